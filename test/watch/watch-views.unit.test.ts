// The node's rules as the watch applies them: rank and seat margin in a full active set, the
// miner's reward multiplier by attendance, and unbonding split at the network's height.
import { describe, expect, it } from 'vitest';
import type { EntityReadView, FanOutEntity } from '../../src/domain.js';
import { accountView, minerView, validatorView } from '../../src/watch/entryViews.js';
import type { EntryInputs } from '../../src/watch/inputs.js';
import type { WatchEntry } from '../../src/watch/types.js';

const entity: FanOutEntity = { key: 'k', network: 'main', label: 'x', id: 'x', params: [] };
const read = (data: unknown): EntityReadView => ({
  entity,
  data,
  lastSuccessAt: 5_000,
  consecutiveFailures: 0,
  failures: { timeout: 0, connect: 0, http_5xx: 0, http_4xx: 0, invalid_response: 0, rpc_error: 0 },
});
const addr = (i: number) => i.toString(16).padStart(64, '0');

function inputs(
  entry: WatchEntry,
  own: Record<string, unknown>,
  net: Record<string, unknown> = {},
  heightMax = 1000,
): EntryInputs {
  const wrap = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).map(([k, d]) => [k, read(d)]));
  return {
    entry,
    network: { network: 'main', decimals: 9, nodes: 1, nodesUp: 1, versions: 1, heightMax },
    epoch: 20,
    decimals: 9,
    epochBlocks: 100,
    own: wrap(own),
    networkReads: wrap(net),
    intervalMs: 30_000,
  };
}

describe('watch views', () => {
  it('ranks a validator in a full set by weight and measures its margin over the lowest seat', () => {
    const set = Array.from({ length: 21 }, (_, i) => ({ address: addr(i + 1), stake: 1n, weight: 100 + i * 10 }));
    const me = addr(5); // weight 140: 17th of 21; the lowest seat weighs 100
    const v = validatorView(
      inputs(
        { kind: 'validator', name: 'v', address: me, network: 'main' },
        { watchValidatorDetail: { registered: true, stake: 10n ** 19n, weight: 140 } },
        { watchValidatorSet: set },
      ),
    );
    expect(v.active).toBe(true);
    expect(v.rank).toBe(17);
    expect(v.setSize).toBe(21);
    expect(v.seatMarginRatio).toBeCloseTo((140 - 100) / 140, 12);
    expect(v.stakeTokens).toBe(1e10);
    expect(v.lastSuccessSeconds).toBe(5);
  });

  it('pays a miner x1 for 12 check-ins of 12, x0.8 for 9-11, x0.5 for 6-8, nothing below or while inactive', () => {
    const miner = (attendance: number, active = true) =>
      minerView(
        inputs(
          { kind: 'miner', name: 'm', address: addr(7), network: 'main' },
          {
            watchMinerInfo: {
              registered: true,
              active,
              reputationBps: 5000,
              pendingRewards: 3n * 10n ** 9n,
              attendance,
              consecutiveMisses: 1,
              lastCheckinEpoch: 18,
            },
          },
        ),
      );
    const bits = (n: number) => (1 << n) - 1;
    expect([12, 11, 9, 8, 6, 5].map((n) => miner(bits(n)).rewardMultiplier)).toEqual([1, 0.8, 0.8, 0.5, 0.5, 0]);
    // Bits beyond the last 12 epochs do not count.
    expect(miner(0xffff).attendanceEpochs).toBe(12);
    expect(miner(bits(12), false).rewardMultiplier).toBe(0);
    expect(miner(bits(12)).epochsSinceCheckin).toBe(2);
    expect(miner(bits(12)).pendingRewardsTokens).toBe(3);
  });

  it('splits unbonding at the network height into pending and claimable, with the next release', () => {
    const a = accountView(
      inputs(
        { kind: 'account', name: 'a', address: addr(9), network: 'main' },
        {
          watchBalance: 25n * 10n ** 9n,
          watchUnbonding: [
            { amount: 10n ** 9n, releaseHeight: 1000 },
            { amount: 2n * 10n ** 9n, releaseHeight: 1300 },
            { amount: 10n ** 9n, releaseHeight: 1050 },
          ],
        },
      ),
    );
    expect([a.balanceTokens, a.unbondingPendingTokens, a.unbondingClaimableTokens, a.nextReleaseBlocks]).toEqual([
      25, 3, 1, 50,
    ]);
  });
});
