// The ledger_watch_* families, declared as data like the probes' families (a docs generator lists
// them; metrics/fleetText.ts writes them from FleetSnapshot.watch). Labels: network, name and the
// entry's kind (validator, miner, account) = its address, plus the family's own label if any.
// No value, no sample.
import { WATCH_METRICS as M } from './metricNames.js';
import type {
  WatchedAccountView,
  WatchedEntryView,
  WatchedMinerView,
  WatchedValidatorView,
  WatchKind,
} from './types.js';

type Value<V> = (v: V) => number | undefined;

export interface WatchFamily {
  name: string;
  help: string;
  type: 'gauge' | 'counter';
  /** The kinds of entry it has samples for. */
  kinds: readonly WatchKind[];
  /** The label beyond network, name and the address, when it has one (kind, state, reason). */
  extraLabel?: string;
  /** The labels beyond network, name and the address when there are several (token, symbol, spender). */
  extraLabels?: readonly string[];
  /** One sample, or one per value of the extra label. */
  samples(v: WatchedEntryView): Array<[extra: string, value: number | undefined]>;
  /** The samples are monotonic times (s): written as their wall times, Unix timestamps. */
  wallTime?: boolean;
}

const bool = (b: boolean | undefined) => (b === undefined ? undefined : b ? 1 : 0);

/** A gauge of one sample per entry of `kind`; `V` is that kind's view. */
export function watchGauge<V extends WatchedEntryView>(
  kind: WatchKind,
  name: string,
  help: string,
  value: Value<V>,
): WatchFamily {
  return { name, help, type: 'gauge', kinds: [kind], samples: (v) => [['', value(v as V)]] };
}
const gauge = watchGauge;

const validator = (name: string, help: string, value: Value<WatchedValidatorView>) =>
  gauge('validator', `ledger_watch_validator_${name}`, help, value);
const miner = (name: string, help: string, value: Value<WatchedMinerView>) =>
  gauge('miner', `ledger_watch_miner_${name}`, help, value);
const account = (name: string, help: string, value: Value<WatchedAccountView>) =>
  gauge('account', `ledger_watch_account_${name}`, help, value);
export const VALIDATOR_FAMILIES: readonly WatchFamily[] = [
  validator('active', 'Whether the watched validator is in the active set (1) or not (0).', (v) => bool(v.active)),
  validator(
    'rank',
    'Place of the watched validator in the active set by weight, 1 = heaviest; absent when not active.',
    (v) => v.rank,
  ),
  validator('stake_tokens', 'Stake of the watched validator, in tokens.', (v) => v.stakeTokens),
  validator('weight', 'Weight of the watched validator (0 outside the active set).', (v) => v.weight),
  validator('agent_score', 'Agent score of the watched validator (0 outside the active set).', (v) => v.agentScore),
  validator(
    'commission_ratio',
    'Commission of the watched validator: commission_bps / 10000.',
    (v) => v.commissionRatio,
  ),
  validator('jailed', 'Whether the watched validator is jailed (1) or not (0).', (v) => bool(v.jailed)),
  validator(
    'rewarded',
    'Whether the watched validator was paid in the newest block read (1); 0 when active and not paid (offline ' +
      'this epoch).',
    (v) => bool(v.rewarded),
  ),
  {
    name: 'ledger_watch_validator_epoch_blocks',
    help:
      'Blocks of the watched validator this epoch, by kind: expected, produced, signed; absent while the node has ' +
      'no data.',
    type: 'gauge',
    kinds: ['validator'],
    extraLabel: 'kind',
    samples: (v) => {
      const b = (v as WatchedValidatorView).epochBlocks;
      return b
        ? [
            [',kind="expected"', b.expected],
            [',kind="produced"', b.produced],
            [',kind="signed"', b.signed],
          ]
        : [];
    },
  },
  validator(
    'seat_margin_ratio',
    '(own weight - lowest active weight) / own weight while the active set is full; 1 while seats are free.',
    (v) => v.seatMarginRatio,
  ),
  gauge<WatchedValidatorView>(
    'validator',
    M.validatorSeatMarginBelow,
    "The watched validator's seatMarginBelow setting, as a ratio.",
    (v) => v.seatMarginBelow,
  ),
  gauge<WatchedValidatorView>(
    'validator',
    M.validatorExpectedCommission,
    "The watched validator's commissionBps setting / 10000.",
    (v) => (v.commissionBps === undefined ? undefined : v.commissionBps / 10_000),
  ),
];

export const MINER_FAMILIES: readonly WatchFamily[] = [
  miner('registered', 'Whether the watched miner is registered (1) or not (0).', (v) => bool(v.registered)),
  miner('active', 'Whether the watched miner is active (1) or not (0).', (v) => bool(v.active)),
  miner(
    'consecutive_misses',
    'Epochs the watched miner missed its check-in in a row (6 make it inactive).',
    (v) => v.consecutiveMisses,
  ),
  miner(
    'epochs_since_checkin',
    "Current epoch minus the watched miner's last check-in epoch.",
    (v) => v.epochsSinceCheckin,
  ),
  miner(
    'attendance_epochs',
    'Check-ins of the watched miner among the last 12 epochs (reward needs 6).',
    (v) => v.attendanceEpochs,
  ),
  miner(
    'reward_multiplier',
    'Reward multiplier of the watched miner as the node pays it: 1, 0.8, 0.5 or 0.',
    (v) => v.rewardMultiplier,
  ),
  miner('reputation_ratio', 'Reputation of the watched miner: reputation_bps / 10000.', (v) => v.reputationRatio),
  miner('pending_rewards_tokens', 'Rewards pending for the watched miner, in tokens.', (v) => v.pendingRewardsTokens),
];

export const ACCOUNT_FAMILIES: readonly WatchFamily[] = [
  account('balance_tokens', 'Balance of the watched account, in tokens.', (v) => v.balanceTokens),
  {
    name: 'ledger_watch_account_unbonding_tokens',
    help:
      'Tokens the watched account unbonded, by state: pending (before release), claimable (released, not yet ' +
      'claimed).',
    type: 'gauge',
    kinds: ['account'],
    extraLabel: 'state',
    samples: (v) => {
      const a = v as WatchedAccountView;
      return [
        [',state="pending"', a.unbondingPendingTokens],
        [',state="claimable"', a.unbondingClaimableTokens],
      ];
    },
  },
  account(
    'unbonding_next_release_blocks',
    "Blocks until the watched account's next pending unbonding is released; absent when nothing is pending.",
    (v) => v.nextReleaseBlocks,
  ),
  // The entry's own setting, so Prometheus rules compare with per-entry thresholds (metricNames.ts).
  gauge<WatchedAccountView>(
    'account',
    M.accountMinBalance,
    "The watched account's minBalance setting, in tokens.",
    (v) => v.minBalance,
  ),
];

/** The families of every kind: how reading each entry goes. */
export const commonFamilies = (kinds: readonly WatchKind[]): WatchFamily[] => [
  {
    name: 'ledger_watch_last_success_timestamp_seconds',
    help: 'Unix time of the last complete successful read of the watched entry.',
    type: 'gauge',
    kinds,
    samples: (v) => [['', v.lastSuccessSeconds]],
    wallTime: true,
  },
  {
    name: M.consecutiveFailures,
    help: 'Reads of the watched entry that failed in a row (0 after a success).',
    type: 'gauge',
    kinds,
    samples: (v) => [['', v.consecutiveFailures]],
  },
  {
    name: 'ledger_watch_read_failures_total',
    help:
      'Failed reads of the watched entry by reason: timeout, connect, http_5xx, http_4xx, invalid_response, ' +
      'rpc_error.',
    type: 'counter',
    kinds,
    extraLabel: 'reason',
    samples: (v) => Object.entries(v.failures).map(([reason, n]): [string, number] => [`,reason="${reason}"`, n]),
  },
];
