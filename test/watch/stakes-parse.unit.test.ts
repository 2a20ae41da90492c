// The answers the delegator and agent kinds read, parsed as claw-node 0.5.8 sends them
// (reference-node-facts.md): amounts exact (u128), a wrong shape an invalid_response naming the
// field and what was there instead.
import { describe, expect, it } from 'vitest';
import { ProbeError } from '../../src/probes/errors.js';
import { parseAgent, parseAgentScore, parseReputation } from '../../src/probes/watch/agentParse.js';
import { MAX_DELEGATIONS, parseUserDelegations } from '../../src/probes/watch/delegations.js';

const V1 = 'a1'.repeat(32);
const V2 = 'b2'.repeat(32);
const AGENT = '0c'.repeat(32);
const bytes = (hex: string) => Array.from(Buffer.from(hex, 'hex'));

function reasonOf(f: () => unknown): { reason: string; message: string } {
  try {
    f();
  } catch (e) {
    if (e instanceof ProbeError) return { reason: e.reason, message: e.message };
    throw e;
  }
  throw new Error('did not throw');
}

describe('getUserDelegations', () => {
  it('reads each delegation exactly (u128 beyond 2^64) with the validator commission; [] is no delegations', () => {
    const max = '340282366920938463463374607431768211455';
    expect(
      parseUserDelegations([
        { validator: V1, amount: max, commission_bps: 500 },
        { validator: V2.toUpperCase(), amount: '12345678901234567891', commission_bps: 10_000 },
      ]),
    ).toEqual([
      { validator: V1, amount: 2n ** 128n - 1n, commissionBps: 500 },
      { validator: V2, amount: 12345678901234567891n, commissionBps: 10_000 },
    ]);
    expect(parseUserDelegations([])).toEqual([]);
  });

  it.each([
    [{ validators: [] }, /getUserDelegations: expected an array, got/],
    [null, /expected an array, got null/],
    [['x'], /getUserDelegations\[0\]: expected an object, got/],
    [
      [{ validator: 'zz', amount: '1', commission_bps: 1 }],
      /getUserDelegations\[0\]\.validator is not a 64-hex address/,
    ],
    [[{ validator: V1, amount: 1.5, commission_bps: 1 }], /getUserDelegations\[0\]\.amount is not a u128 amount: 1\.5/],
    [[{ validator: V1, amount: '-1', commission_bps: 1 }], /\.amount is not a u128 amount/],
    [
      [{ validator: V1, amount: '340282366920938463463374607431768211456', commission_bps: 1 }],
      /\.amount is not a u128/,
    ],
    [[{ validator: V1, amount: '1', commission_bps: 10_001 }], /commission_bps is over 10000: 10001/],
    [[{ validator: V1, amount: '1' }], /commission_bps is not a non-negative integer/],
    [
      [
        { validator: V1, amount: '1', commission_bps: 1 },
        { validator: V1, amount: '2', commission_bps: 1 },
      ],
      /getUserDelegations\[1\]\.validator a1a1.* is listed twice/,
    ],
  ])('refuses %j as an invalid response with a clear reason', (answer, message) => {
    const r = reasonOf(() => parseUserDelegations(answer));
    expect(r.reason).toBe('invalid_response');
    expect(r.message).toMatch(message);
  });

  it('refuses a list longer than a delegator can have', () => {
    const list = Array.from({ length: MAX_DELEGATIONS + 1 }, (_, i) => ({
      validator: i.toString(16).padStart(64, '0'),
      amount: '1',
      commission_bps: 1,
    }));
    expect(reasonOf(() => parseUserDelegations(list)).message).toMatch(/more than 1000/);
  });
});

describe('getAgent, getAgentScore, getReputation', () => {
  it('reads an agent in the serde form; null is "not registered", not a failure', () => {
    expect(
      parseAgent({ address: bytes(AGENT), name: 'bot', metadata: { k: 'v' }, registered_at: 1234 }, AGENT),
    ).toEqual({ registered: true, name: 'bot', registeredAt: 1234 });
    expect(parseAgent(null, AGENT)).toEqual({ registered: false });
  });

  it.each([
    [[], /getAgent: expected an object or null, got/],
    [{ address: AGENT, name: 'bot', registered_at: 1 }, /getAgent\.address is not an array of 32 bytes/],
    [{ address: bytes(V1), name: 'bot', registered_at: 1 }, /getAgent answered for another address/],
    [{ address: [...bytes(AGENT).slice(1), 256], name: 'bot', registered_at: 1 }, /not an array of 32 bytes/],
    [{ address: bytes(AGENT), name: 7, registered_at: 1 }, /getAgent\.name is not a string: 7/],
    [{ address: bytes(AGENT), name: 'bot', registered_at: -1 }, /getAgent\.registered_at is not a non-negative/],
  ])('getAgent %j: invalid response', (answer, message) => {
    const r = reasonOf(() => parseAgent(answer, AGENT));
    expect(r).toMatchObject({ reason: 'invalid_response' });
    expect(r.message).toMatch(message);
  });

  const score = { total: 4200, activity: 9000, uptime: 0, block_production: 0, economic: 5000, platform: 100 };
  it('reads a score of integers in basis points', () => {
    expect(parseAgentScore({ ...score, decay_factor: 5000 })).toEqual({ ...score, decay_factor: 5000 });
  });

  it.each([
    [null, /getAgentScore: expected an object, got null/],
    [{ ...score }, /getAgentScore\.decay_factor is not a non-negative integer: undefined/],
    [{ ...score, decay_factor: 0.95 }, /decay_factor is not a non-negative integer: 0\.95/],
    [{ ...score, total: 10_001, decay_factor: 1 }, /getAgentScore\.total is over 10000 basis points: 10001/],
  ])('getAgentScore %j: invalid response', (answer, message) => {
    const r = reasonOf(() => parseAgentScore(answer));
    expect(r.reason).toBe('invalid_response');
    expect(r.message).toMatch(message);
  });

  it('counts attestations and sums their scores (-100..100)', () => {
    const a = (s: number) => ({ from: bytes(V1), to: bytes(AGENT), category: 'c', score: s, platform: 'p', memo: '' });
    expect(parseReputation([a(100), a(-40), a(0)])).toEqual({ attestations: 3, scoreSum: 60 });
    expect(parseReputation([])).toEqual({ attestations: 0, scoreSum: 0 });
    expect(reasonOf(() => parseReputation([a(101)])).message).toMatch(/getReputation\[0\]\.score is not an integer in/);
    expect(reasonOf(() => parseReputation([{ ...a(1), from: V1 }])).message).toMatch(/\.from is not an array of 32/);
    expect(reasonOf(() => parseReputation({})).message).toMatch(/getReputation: expected an array/);
  });
});
