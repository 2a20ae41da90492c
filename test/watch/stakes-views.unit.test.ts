// The delegator and agent views from their reads (pure): each delegation placed against the
// network's active set and newest rewards, the agent's score, decay and next halving; their
// ledger_watch_* samples with the extra label; their state in words.
import { describe, expect, it } from 'vitest';
import type { EntityReadView, FailureReason, ValidatorInfo } from '../../src/domain.js';
import { AGENT_FAMILIES, DELEGATOR_FAMILIES, labelPairs } from '../../src/watch/families.js';
import type { EntryInputs } from '../../src/watch/inputs.js';
import { agentView, DECAY_HALVING_EPOCHS, delegatorView } from '../../src/watch/stakeViews.js';
import { agentState, delegatorState } from '../../src/watch/stakeWords.js';
import type { WatchEntry } from '../../src/watch/types.js';

const V1 = 'a1'.repeat(32);
const V2 = 'b2'.repeat(32);
const V3 = 'c3'.repeat(32);
const noFailures = { timeout: 0, connect: 0, http_5xx: 0, http_4xx: 0, invalid_response: 0, rpc_error: 0 } as Record<
  FailureReason,
  number
>;
const ok = (data: unknown, key = 'x'): EntityReadView => ({
  entity: { key, network: 'main', label: 'delegator', id: key, params: [] },
  data,
  lastSuccessAt: 1_000_000,
  consecutiveFailures: 0,
  failures: noFailures,
  servedBy: 'n1',
});
const failed: EntityReadView = {
  entity: { key: 'x', network: 'main', label: 'delegator', id: 'x', params: [] },
  consecutiveFailures: 2,
  failures: { ...noFailures, timeout: 2 },
};

function inputs(
  entry: WatchEntry,
  own: EntryInputs['own'],
  networkReads: EntryInputs['networkReads'] = {},
  epoch?: number,
) {
  return {
    entry,
    network: undefined,
    epoch,
    decimals: 9,
    epochBlocks: 100,
    own,
    networkReads,
    intervalMs: 30_000,
  } satisfies EntryInputs;
}

const delegator: WatchEntry = { kind: 'delegator', name: 'my-stake', address: 'dd'.repeat(32), network: 'main' };
const set: ValidatorInfo[] = [
  { address: V1, stake: 1n, weight: 10 },
  { address: V2, stake: 1n, weight: 9 },
] as ValidatorInfo[];
const delegations = [
  { validator: V1, amount: 1_500_000_000_000n, commissionBps: 500 },
  { validator: V2, amount: 2n ** 70n, commissionBps: 1_200 },
  { validator: V3, amount: 1n, commissionBps: 10_000 },
];

describe('delegator view', () => {
  it('places each delegation: in the set or not, paid or offline, its commission; exact amounts kept', () => {
    const v = delegatorView(
      inputs(
        { ...delegator, maxCommissionBps: 1_000 },
        { watchDelegations: ok(delegations) },
        { watchValidatorSet: ok(set), watchBlockRewards: ok({ height: 500, paid: [V1], entries: 2 }) },
      ),
    );
    expect(v.rewardsHeight).toBe(500);
    expect(v.delegations).toEqual([
      { validator: V1, amount: '1500000000000', tokens: 1_500, commissionRatio: 0.05, active: true, rewarded: true },
      {
        validator: V2,
        amount: (2n ** 70n).toString(),
        tokens: Number(2n ** 70n) / 1e9,
        commissionRatio: 0.12,
        active: true,
        rewarded: false,
      },
      { validator: V3, amount: '1', tokens: 1e-9, commissionRatio: 1, active: false },
    ]);
    const sample = (name: string) =>
      DELEGATOR_FAMILIES.find((f) => f.name === name)!
        .samples(v)
        .map(([extra, x]) => `${extra} ${x}`);
    expect(sample('ledger_watch_delegation_validator_active')).toEqual([
      `,validator="${V1}" 1`,
      `,validator="${V2}" 1`,
      `,validator="${V3}" 0`,
    ]);
    expect(sample('ledger_watch_delegation_validator_rewarded')).toEqual([
      `,validator="${V1}" 1`,
      `,validator="${V2}" 0`,
      `,validator="${V3}" undefined`,
    ]);
    expect(sample('ledger_watch_delegator_max_commission_ratio')).toEqual([' 0.1']);
    const words = delegatorState(v);
    expect(words.status).toBe('down');
    expect(words.text).toMatch(/^3 delegations, [\d,.]+ tokens; /);
    expect(words.text).toContain('b2b2b2b2… OFFLINE');
    expect(words.text).toContain('c3c3c3c3… NOT in the active set');
    expect(words.text).toContain('b2b2b2b2… charges 12%, above 10%');
  });

  it('an empty reward pool says nothing about payment; without the set, nothing about the set', () => {
    const v = delegatorView(
      inputs(
        delegator,
        { watchDelegations: ok(delegations) },
        { watchBlockRewards: ok({ height: 5, paid: [], entries: 0 }) },
      ),
    );
    expect(v.delegations!.map((d) => [d.active, d.rewarded])).toEqual([
      [undefined, undefined],
      [undefined, undefined],
      [undefined, undefined],
    ]);
    expect(delegatorState(v)).toEqual({
      status: 'up',
      text: expect.stringContaining('every validator active and paid'),
    });
  });

  it('a failed read has no delegations (nothing exported, nothing decided); none is a value', () => {
    const v = delegatorView(inputs(delegator, { watchDelegations: failed }, { watchValidatorSet: ok(set) }));
    expect(v.delegations).toBeUndefined();
    expect(DELEGATOR_FAMILIES[0]!.samples(v)).toEqual([]);
    expect(delegatorState(v).text).toMatch(/cannot be read: 2 reads failed in a row \(timeout\)/);
    expect(delegatorState(delegatorView(inputs(delegator, { watchDelegations: ok([]) })))).toEqual({
      status: 'up',
      text: 'no delegations',
    });
  });

  it('extra label values are escaped', () => {
    expect(labelPairs([['validator', 'a"b\\c\nd']])).toBe(',validator="a\\"b\\\\c\\nd"');
  });
});

describe('agent view', () => {
  const agent: WatchEntry = {
    kind: 'agent',
    name: 'arena-bot',
    address: '0c'.repeat(32),
    network: 'main',
    minScore: 5_000,
  };
  const score = {
    total: 4_200,
    activity: 9_000,
    uptime: 0,
    block_production: 0,
    economic: 5_000,
    platform: 100,
    decay_factor: 5_000,
  };

  it('score by dimension as ratios, decay, attestations, and when the decay halves next', () => {
    // Registered at height 12,345 (epoch 123); now epoch 123 + 2,880 + 80: the next halving in 2,800 epochs.
    const v = agentView(
      inputs(
        agent,
        {
          watchAgent: ok({ registered: true, name: 'bot', registeredAt: 12_345 }),
          watchAgentScore: ok(score),
          watchReputation: ok({ attestations: 3, scoreSum: 60 }),
        },
        {},
        123 + DECAY_HALVING_EPOCHS + 80,
      ),
    );
    expect(v).toMatchObject({
      registered: true,
      agentName: 'bot',
      scores: { total: 0.42, activity: 0.9, uptime: 0, block_production: 0, economic: 0.5, platform: 0.01 },
      decayRatio: 0.5,
      attestations: 3,
      attestationScoreSum: 60,
      epochsToNextHalving: 2_800,
    });
    const dims = AGENT_FAMILIES.find((f) => f.name === 'ledger_watch_agent_score_ratio')!.samples(v);
    expect(dims.map(([e]) => e)).toEqual([
      ',dimension="total"',
      ',dimension="activity"',
      ',dimension="uptime"',
      ',dimension="block_production"',
      ',dimension="economic"',
      ',dimension="platform"',
    ]);
    expect(agentState(v)).toEqual({
      status: 'degraded',
      text:
        'score 42% below 50%; decay 50% (halves next in 2,800 epochs, ~9.7 days at 3 s blocks); ' +
        '3 attestations (sum 60)',
    });
  });

  it('not registered is a value; unread is unknown', () => {
    const v = agentView(
      inputs(agent, { watchAgent: ok({ registered: false }), watchAgentScore: ok({ ...score, total: 0 }) }),
    );
    expect(v.registered).toBe(false);
    expect(AGENT_FAMILIES[0]!.samples(v)).toEqual([['', 0]]);
    expect(agentState(v)).toEqual({ status: 'down', text: 'NOT registered as an agent on this network' });
    expect(agentState(agentView(inputs(agent, {}))).status).toBe('unknown');
  });
});
