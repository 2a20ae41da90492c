// The ledger_watch_* families, declared as data like the probes' families (a docs generator lists
// them; metrics/fleetText.ts writes them from FleetSnapshot.watch). Labels: network, name and the
// entry's kind (validator, miner, account) = its address, plus the family's own label if any.
// No value, no sample.
import { escapeLabelValue } from '../exposition/grammar.js';
import { WATCH_METRICS as M } from './metricNames.js';
import type {
  WatchedAccountView,
  WatchedAgentView,
  WatchedDelegatorView,
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
  /** The labels beyond network, name and the address when there are several (validator; token, symbol, spender). */
  extraLabels?: readonly string[];
  /** One sample, or one per value of the extra label(s): `extra` is `,label="value"...` (labelPairs). */
  samples(v: WatchedEntryView): Array<[extra: string, value: number | undefined]>;
  /** The samples are monotonic times (s): written as their wall times, Unix timestamps. */
  wallTime?: boolean;
}

/** A sample's extra labels as written after the entry's own: `,k="v"` each, values escaped. */
export function labelPairs(pairs: ReadonlyArray<readonly [string, string]>): string {
  let out = '';
  for (const [k, v] of pairs) out += `,${k}="${escapeLabelValue(v)}"`;
  return out;
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

/** One sample per delegation of a watched delegator (label validator); none until the list was read. */
const perDelegation = (
  name: string,
  help: string,
  value: (d: NonNullable<WatchedDelegatorView['delegations']>[number]) => number | undefined,
): WatchFamily => ({
  name,
  help,
  type: 'gauge',
  kinds: ['delegator'],
  extraLabel: 'validator',
  samples: (v) =>
    ((v as WatchedDelegatorView).delegations ?? []).map((d): [string, number | undefined] => [
      labelPairs([['validator', d.validator]]),
      value(d),
    ]),
});

export const DELEGATOR_FAMILIES: readonly WatchFamily[] = [
  perDelegation(M.delegationTokens, 'Tokens the watched delegator delegated to the validator.', (d) => d.tokens),
  perDelegation(
    M.delegationCommission,
    'The commission of a validator the watched delegator delegated to: commission_bps / 10000.',
    (d) => d.commissionRatio,
  ),
  perDelegation(
    M.delegationActive,
    'Whether a validator the watched delegator delegated to is in the active set (1) or not (0).',
    (d) => bool(d.active),
  ),
  perDelegation(
    M.delegationRewarded,
    'Whether a validator the watched delegator delegated to was paid in the newest block read (1); 0 when active ' +
      'and not paid (offline this epoch).',
    (d) => bool(d.rewarded),
  ),
  gauge<WatchedDelegatorView>(
    'delegator',
    M.delegatorMaxCommission,
    "The watched delegator's maxCommissionBps setting / 10000.",
    (v) => (v.maxCommissionBps === undefined ? undefined : v.maxCommissionBps / 10_000),
  ),
];

const agent = (name: string, help: string, value: Value<WatchedAgentView>) =>
  gauge('agent', `ledger_watch_agent_${name}`, help, value);
export const AGENT_FAMILIES: readonly WatchFamily[] = [
  agent('registered', 'Whether the watched agent is registered (1: getAgent is not null) or not (0).', (v) =>
    bool(v.registered),
  ),
  {
    name: M.agentScore,
    help:
      "The watched agent's score by dimension: total, activity, uptime, block_production, economic, platform " +
      '(basis points / 10000).',
    type: 'gauge',
    kinds: ['agent'],
    extraLabel: 'dimension',
    samples: (v) =>
      Object.entries((v as WatchedAgentView).scores ?? {}).map(([d, x]): [string, number] => [
        labelPairs([['dimension', d]]),
        x,
      ]),
  },
  agent(
    'decay_ratio',
    "The watched agent's decay factor / 10000: halves every 2,880 epochs since it registered.",
    (v) => v.decayRatio,
  ),
  agent(
    'attestations',
    'Attestations made about the watched agent (getReputation, the list only grows).',
    (v) => v.attestations,
  ),
  agent(
    'attestation_score_sum',
    "The sum of the scores (-100..100) of the watched agent's attestations.",
    (v) => v.attestationScoreSum,
  ),
  gauge<WatchedAgentView>('agent', M.agentMinScore, "The watched agent's minScore setting / 10000.", (v) =>
    v.minScore === undefined ? undefined : v.minScore / 10_000,
  ),
];
