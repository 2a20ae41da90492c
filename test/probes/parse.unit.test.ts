// The pure parsers of node answers: tolerant of missing and extra fields, strict about the type of
// every field used, exact for u128 amounts. Every rejection is a ProbeError 'invalid_response'.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeUtf8 } from '../../src/probe/http.js';
import { ProbeError } from '../../src/probes/errors.js';
import { isMethodNotFound, parseRpcResponse } from '../../src/probe/jsonrpc.js';
import {
  parseAmount,
  parseBlockNumber,
  parseHealth,
  parseJson,
  parseMiningStats,
  parseValidators,
  toTokens,
} from '../../src/probes/parse.js';

/** Runs fn, expects a ProbeError with reason invalid_response, returns its message. */
function rejects(fn: () => unknown): string {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(ProbeError);
  expect((caught as ProbeError).reason).toBe('invalid_response');
  return (caught as ProbeError).message;
}

const U128_MAX = (1n << 128n) - 1n;
const ADDR_A = 'ab'.repeat(32);
const ADDR_B = 'cd'.repeat(32);

describe('parseHealth', () => {
  const full = {
    status: 'ok',
    version: '0.5.8',
    chain_id: 'clawnet-mainnet',
    genesis_hash: 'ef'.repeat(32),
    height: 123456,
    epoch: 41,
    peer_count: 8,
    mempool_size: 17,
    last_block_age_secs: 2,
    uptime_secs: 86400,
  };

  it('maps every field of a current build', () => {
    expect(parseHealth(full)).toEqual({
      status: 'ok',
      version: '0.5.8',
      chainId: 'clawnet-mainnet',
      genesisHash: 'ef'.repeat(32),
      height: 123456,
      epoch: 41,
      peerCount: 8,
      mempoolSize: 17,
      lastBlockAgeSecs: 2,
      uptimeSecs: 86400,
    });
  });

  it('tolerates missing fields (earliest builds have no chain_id or genesis_hash)', () => {
    const { chain_id: _c, genesis_hash: _g, ...earliest } = full;
    const h = parseHealth(earliest);
    expect(h.chainId).toBeUndefined();
    expect(h.genesisHash).toBeUndefined();
    expect(h.height).toBe(123456);
    expect(parseHealth({})).toEqual(Object.fromEntries(Object.keys(parseHealth(full)).map((k) => [k, undefined])));
  });

  it('treats null as missing', () => {
    expect(parseHealth({ ...full, chain_id: null, height: null })).toMatchObject({
      chainId: undefined,
      height: undefined,
      version: '0.5.8',
    });
  });

  it('ignores extra fields of newer builds', () => {
    const h = parseHealth({ ...full, sync: { behind: 3 }, features: ['mining'], height: 7 });
    expect(h.height).toBe(7);
    expect(Object.keys(h)).not.toContain('sync');
    expect(Object.keys(h)).not.toContain('features');
  });

  it('keeps a degraded status as sent', () => {
    expect(parseHealth({ ...full, status: 'degraded' }).status).toBe('degraded');
  });

  it('cuts overlong strings instead of carrying them into labels', () => {
    const h = parseHealth({ ...full, version: 'v'.repeat(10_000), status: 's'.repeat(1000) });
    expect(h.version).toHaveLength(64);
    expect(h.status).toHaveLength(32);
  });

  it.each([
    ['height as a string', { height: '123' }],
    ['height negative', { height: -1 }],
    ['height a float', { height: 1.5 }],
    ['height Infinity (1e400 in JSON)', { height: JSON.parse('1e400') as number }],
    ['height beyond 2^53', { height: 2 ** 53 + 2 }],
    ['peer_count a boolean', { peer_count: true }],
    ['uptime_secs an array', { uptime_secs: [1] }],
    ['status a number', { status: 1 }],
    ['version an object', { version: { major: 0 } }],
    ['chain_id a number', { chain_id: 7 }],
  ])('rejects %s', (_name, patch) => {
    const message = rejects(() => parseHealth({ ...full, ...patch }));
    expect(message).toMatch(/health\./);
  });

  it.each([
    ['an array', [full]],
    ['null', null],
    ['a string', 'ok'],
    ['a number', 200],
  ])('rejects a body that is %s', (_name, body) => {
    rejects(() => parseHealth(body));
  });

  it('never echoes a string value in its message (it may be huge or hold secrets)', () => {
    const message = rejects(() => parseHealth({ ...full, height: 'token=abcdef-secret' }));
    expect(message).not.toContain('abcdef-secret');
  });
});

describe('parseBlockNumber', () => {
  it('accepts non-negative safe integers', () => {
    expect(parseBlockNumber(0)).toBe(0);
    expect(parseBlockNumber(4242)).toBe(4242);
    expect(parseBlockNumber(Number.MAX_SAFE_INTEGER)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it.each([['0x1092'], ['4242'], [-1], [1.5], [2 ** 53], [Infinity], [null], [{ height: 1 }], [[1]]])(
    'rejects %j',
    (v) => {
      rejects(() => parseBlockNumber(v));
    },
  );
});

describe('parseAmount (u128 base units, exact)', () => {
  it('is exact for decimal strings beyond 2^53', () => {
    expect(parseAmount('9007199254740993', 'x')).toBe(9007199254740993n); // 2^53 + 1: a double would round it
    expect(parseAmount('1234567890123456789012', 'x')).toBe(1234567890123456789012n);
    expect(parseAmount(U128_MAX.toString(), 'x')).toBe(U128_MAX);
    expect(parseAmount('0', 'x')).toBe(0n);
  });

  it('accepts safe-integer numbers, rejects unsafe ones (already rounded by JSON.parse)', () => {
    expect(parseAmount(5_000_000_000, 'x')).toBe(5_000_000_000n);
    rejects(() => parseAmount(2 ** 53, 'x'));
    rejects(() => parseAmount(1e21, 'x'));
  });

  it('rejects 2^128 and above', () => {
    rejects(() => parseAmount((1n << 128n).toString(), 'x'));
    rejects(() => parseAmount('9'.repeat(39), 'x'));
    rejects(() => parseAmount('1' + '0'.repeat(39), 'x'));
  });

  it.each([
    ['-1'],
    ['-0'],
    ['1.5'],
    ['1.0'],
    ['0x10'],
    ['0X10'],
    ['1e9'],
    [' 1'],
    ['1 '],
    ['+1'],
    [''],
    ['1_000'],
    ['٣'],
  ])('rejects the string %j', (v) => {
    rejects(() => parseAmount(v, 'stake'));
  });

  it.each([[-1], [1.5], [NaN], [Infinity], [null], [true], [[1]], [{ value: '1' }], [undefined]])('rejects %j', (v) => {
    rejects(() => parseAmount(v, 'stake'));
  });

  it('names the field in its message', () => {
    expect(rejects(() => parseAmount('lots', 'getValidators[3].stake'))).toContain('getValidators[3].stake');
  });
});

describe('toTokens', () => {
  // The reference: the exact decimal string, rounded once to the nearest double by Number().
  function exactDecimal(raw: bigint, decimals: number): string {
    const s = raw.toString().padStart(decimals + 1, '0');
    return decimals === 0 ? s : `${s.slice(0, -decimals)}.${s.slice(-decimals)}`;
  }

  it('converts 1234567890123456789012 base units with 9 decimals exactly', () => {
    const t = toTokens(1234567890123456789012n, 9);
    expect(t).toBe(1234567890123.4568);
    expect(t).toBe(Number(exactDecimal(1234567890123456789012n, 9)));
  });

  it.each([
    [0n, 9],
    [1n, 9],
    [999_999_999n, 9],
    [1_000_000_000n, 9],
    [2_000_000_000n, 9],
    [9007199254740993n, 9],
    [123456789n, 0],
    [U128_MAX, 9],
    [U128_MAX, 18],
    [1n, 18],
    [5_000_000_000_000n, 9],
  ])('%s base units with %i decimals is the nearest double to the exact value', (raw, decimals) => {
    expect(toTokens(raw, decimals)).toBe(Number(exactDecimal(raw, decimals)));
  });

  it('keeps the fraction that a naive Number(raw) would lose', () => {
    // 2^53 + 1 base units with 0 decimals cannot be a double; with 9 decimals it can be nearly exact.
    const raw = 9007199254740993n;
    expect(toTokens(raw, 9)).toBe(9007199.254740993);
  });
});

describe('parseValidators', () => {
  const real = [
    { address: ADDR_A, stake: '1234567890123456789012', weight: 60, agentScore: 71 },
    { address: ADDR_B, stake: '5000000000000', weight: 40, agentScore: 55 },
  ];

  it('parses the reference shape, stake exact', () => {
    expect(parseValidators(real)).toEqual([
      { address: ADDR_A, stake: 1234567890123456789012n, weight: 60, agentScore: 71 },
      { address: ADDR_B, stake: 5000000000000n, weight: 40, agentScore: 55 },
    ]);
  });

  it('accepts an empty set', () => {
    expect(parseValidators([])).toEqual([]);
  });

  it('tolerates missing optional and extra fields', () => {
    expect(parseValidators([{ address: ADDR_A, stake: '7', status: 'active', commission: 5 }])).toEqual([
      { address: ADDR_A, stake: 7n, weight: undefined, agentScore: undefined },
    ]);
  });

  it('normalises 0x and upper-case addresses', () => {
    expect(parseValidators([{ address: '0x' + ADDR_A.toUpperCase(), stake: '1' }])[0]?.address).toBe(ADDR_A);
  });

  it.each([
    ['an object instead of an array', { validators: real }],
    ['null', null],
    ['a non-numeric stake', [{ address: ADDR_A, stake: 'lots' }]],
    ['a negative stake', [{ address: ADDR_A, stake: '-5' }]],
    ['a decimal stake', [{ address: ADDR_A, stake: '1.5' }]],
    ['a float stake number', [{ address: ADDR_A, stake: 1.5e30 }]],
    ['a missing stake', [{ address: ADDR_A, weight: 1 }]],
    ['a stake of 2^128', [{ address: ADDR_A, stake: (1n << 128n).toString() }]],
    ['a missing address', [{ stake: '1' }]],
    ['a non-hex address', [{ address: 'validator-one', stake: '1' }]],
    ['a numeric address', [{ address: 123, stake: '1' }]],
    ['a weight as a string', [{ address: ADDR_A, stake: '1', weight: '60' }]],
    ['a negative agentScore', [{ address: ADDR_A, stake: '1', agentScore: -3 }]],
    ['an array element', [[ADDR_A, '1']]],
    ['a null element', [null]],
  ])('rejects %s', (_name, body) => {
    rejects(() => parseValidators(body));
  });

  it('rejects the whole list when one entry is bad (no half-read set)', () => {
    const message = rejects(() => parseValidators([...real, { address: ADDR_A, stake: 'x' }]));
    expect(message).toContain('[2]');
  });

  it('returns the previous list itself when the answer says the same, however its addresses are spelled', () => {
    const previous = parseValidators(real);
    expect(parseValidators(real, 1000, previous)).toBe(previous);
    const respelled = [{ ...real[0]!, address: '0x' + ADDR_A.toUpperCase() }, real[1]!];
    expect(parseValidators(respelled, 1000, previous)).toBe(previous);
  });

  it('reads a changed answer against the previous list: a new list, unchanged entries kept', () => {
    const previous = parseValidators(real);
    const next = parseValidators([real[0]!, { ...real[1]!, stake: '5000000000001' }], 1000, previous);
    expect(next).not.toBe(previous);
    expect(next).toEqual([previous[0], { address: ADDR_B, stake: 5000000000001n, weight: 40, agentScore: 55 }]);
    expect(next[0]).toBe(previous[0]);
    // A duplicate after the point where the lists part is still dropped (first spelling wins).
    const dup = parseValidators(
      [real[0]!, real[1]!, { ...real[1]!, address: '0x' + ADDR_B, stake: '9' }],
      1000,
      previous,
    );
    expect(dup).toEqual(previous);
    // Also a duplicate of an entry taken from the previous list before the lists parted.
    expect(parseValidators([real[0]!, { ...real[0]!, address: '0x' + ADDR_A, stake: '9' }], 1000, previous)).toEqual([
      previous[0],
    ]);
    expect(parseValidators([real[1]!, real[0]!], 1000, previous)).toEqual([previous[1], previous[0]]);
  });

  it('says the same with or without a previous list, for any answers (accepted or refused)', () => {
    const hex = fc.constantFrom('ab', 'AB', '0x' + 'ab', '0xAb', 'cd', '0xcd', 'ef', 'x1', '');
    const entry = fc.record(
      {
        address: fc.oneof(hex, fc.constant(7)),
        stake: fc.oneof(fc.constantFrom('1', '2', '00', '-1', 'x'), fc.nat(5), fc.constant(1.5)),
        weight: fc.oneof(fc.constant(undefined), fc.constant(null), fc.nat(3), fc.constant(-1), fc.constant('1')),
        agentScore: fc.oneof(fc.constant(undefined), fc.nat(3)),
      },
      { requiredKeys: ['address'] },
    );
    const outcome = (fn: () => unknown) => {
      try {
        return { ok: fn() };
      } catch (err) {
        return { error: (err as Error).message };
      }
    };
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 6 }), fc.array(entry, { maxLength: 6 }), (before, now) => {
        const prev = outcome(() => parseValidators(before));
        const previous = 'ok' in prev ? (prev.ok as ReturnType<typeof parseValidators>) : undefined;
        expect(outcome(() => parseValidators(now, 1000, previous))).toEqual(outcome(() => parseValidators(now)));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('parseMiningStats', () => {
  const real = {
    totalMiners: 12,
    activeMiners: 9,
    currentBlockReward: '2000000000',
    miningUpgradeHeight: 100000,
    upgraded: false,
  };

  it('parses the reference shape, reward exact', () => {
    expect(parseMiningStats(real)).toEqual({ ...real, currentBlockReward: 2000000000n });
    expect(parseMiningStats({ ...real, currentBlockReward: U128_MAX.toString(), upgraded: true })).toMatchObject({
      currentBlockReward: U128_MAX,
      upgraded: true,
    });
  });

  it('ignores extra fields', () => {
    expect(parseMiningStats({ ...real, halvingInterval: 5 })).toEqual({ ...real, currentBlockReward: 2000000000n });
  });

  it.each([
    ['an array', [12, 9]],
    ['null', null],
    ['counts as strings', { ...real, totalMiners: '12' }],
    ['a negative count', { ...real, activeMiners: -1 }],
    ['a decimal reward', { ...real, currentBlockReward: '2.5' }],
    ['a hex reward', { ...real, currentBlockReward: '0x77359400' }],
    ['upgraded missing', { ...real, upgraded: undefined }],
    ['upgraded as a string', { ...real, upgraded: 'false' }],
    ['upgrade height a float', { ...real, miningUpgradeHeight: 1.5 }],
    ['totalMiners missing', { ...real, totalMiners: undefined }],
  ])('rejects %s', (_name, body) => {
    rejects(() => parseMiningStats(body));
  });
});

describe('parseRpcResponse', () => {
  it('returns the result for the matching id, null results included', () => {
    expect(parseRpcResponse({ jsonrpc: '2.0', id: 7, result: 4242 }, 7, 'claw_blockNumber')).toEqual({
      ok: true,
      result: 4242,
    });
    expect(parseRpcResponse({ jsonrpc: '2.0', id: 7, result: null }, 7, 'claw_getBlockByNumber')).toEqual({
      ok: true,
      result: null,
    });
    expect(parseRpcResponse({ jsonrpc: '2.0', id: 7, result: [], error: null }, 7, 'm')).toEqual({
      ok: true,
      result: [],
    });
  });

  it('recognises method not found by -32000 with the message real nodes send, and by -32601', () => {
    expect(
      parseRpcResponse(
        { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'method not found: claw_getMiningStats' } },
        1,
        'm',
      ),
    ).toEqual({
      ok: false,
      code: -32000,
      message: 'method not found: claw_getMiningStats',
      methodNotFound: true,
    });
    expect(
      parseRpcResponse({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } }, 1, 'm'),
    ).toMatchObject({
      ok: false,
      methodNotFound: true,
    });
    expect(parseRpcResponse({ jsonrpc: '2.0', id: 1, error: { code: -32601 } }, 1, 'm')).toMatchObject({
      methodNotFound: true,
      message: '',
    });
  });

  it('treats other errors as errors, not as a missing method', () => {
    expect(
      parseRpcResponse({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'invalid params' } }, 1, 'm'),
    ).toEqual({
      ok: false,
      code: -32000,
      message: 'invalid params',
      methodNotFound: false,
    });
    expect(isMethodNotFound(-32600, 'method not found')).toBe(false);
    expect(isMethodNotFound(-32000, 'faucet is disabled on this network')).toBe(false);
  });

  it('bounds an error message', () => {
    const r = parseRpcResponse({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'e'.repeat(5000) } }, 1, 'm');
    expect(r.ok === false && r.message.length).toBe(200);
  });

  it.each([
    ['a wrong id', { jsonrpc: '2.0', id: 8, result: 1 }],
    ['the id as a string', { jsonrpc: '2.0', id: '7', result: 1 }],
    ['a null id', { jsonrpc: '2.0', id: null, result: 1 }],
    ['no jsonrpc', { id: 7, result: 1 }],
    ['jsonrpc 1.0', { jsonrpc: '1.0', id: 7, result: 1 }],
    ['neither result nor error', { jsonrpc: '2.0', id: 7 }],
    ['an error without a code', { jsonrpc: '2.0', id: 7, error: { message: 'x' } }],
    ['an error as a string', { jsonrpc: '2.0', id: 7, error: 'boom' }],
    ['a batch array', [{ jsonrpc: '2.0', id: 7, result: 1 }]],
    ['null', null],
    ['a number', 7],
  ])('rejects %s', (_name, body) => {
    rejects(() => parseRpcResponse(body, 7, 'claw_blockNumber'));
  });
});

describe('parseJson and decodeUtf8', () => {
  it('parses JSON and rejects broken JSON without echoing it', () => {
    expect(parseJson('{"a":[1,2]}', 'GET /health')).toEqual({ a: [1, 2] });
    const message = rejects(() => parseJson('{"password":"hunter2-secret",', 'GET /health'));
    expect(message).not.toContain('hunter2');
    expect(message).toContain('GET /health');
    rejects(() => parseJson('', 'x'));
    rejects(() => parseJson('<html></html>', 'x'));
  });

  it('decodes strict UTF-8', () => {
    expect(decodeUtf8(Buffer.from('{"v":"été ✓"}'), 'x')).toBe('{"v":"été ✓"}');
  });

  it.each([
    ['a lone continuation byte', [0x80]],
    ['0xff', [0xff]],
    ['a truncated sequence', [0xe2, 0x82]],
    ['an overlong encoding', [0xc0, 0xaf]],
    ['an encoded surrogate', [0xed, 0xa0, 0x80]],
  ])('rejects %s', (_name, bytes) => {
    const message = rejects(() =>
      decodeUtf8(Buffer.concat([Buffer.from('{"v":"'), Buffer.from(bytes), Buffer.from('"}')]), 'GET /health'),
    );
    expect(message).toMatch(/UTF-8/);
  });
});
