// Alerts on the operator's own miners and accounts, and on reading any watched entry (rule group
// ledger-fleet-watch): inactive miners, missed check-ins, a reduced reward, a wallet running dry,
// unbonded stake waiting to be claimed, an entry that cannot be read.
import { WATCH_METRICS as M } from '../../../watch/metricNames.js';
import { entriesOf, type WatchedAccountView, type WatchedMinerView } from '../../../watch/types.js';
import { durationWords } from '../format.js';
import type { AlertDefinition, EvalContext } from '../types.js';
import { allEntries, byEntry, perEntry, WATCH_GROUP, type Verdict } from './watchSupport.js';

const miners = (ctx: EvalContext) => entriesOf(ctx.snapshot.watch, 'miner');
const accounts = (ctx: EvalContext) => entriesOf(ctx.snapshot.watch, 'account');
const miner = 'Miner {{ $labels.name }} ({{ $labels.miner }}) of network {{ $labels.network }}';
const account = 'Account {{ $labels.name }} ({{ $labels.account }}) of network {{ $labels.network }}';

function minerInactive(m: WatchedMinerView): Verdict {
  if (m.registered === false) return 0;
  if (m.registered === undefined || m.active === undefined) return undefined;
  return m.active ? false : 0;
}

/** A registered miner's value, or false for an unregistered one (LedgerMinerInactive covers it). */
function minerValue(m: WatchedMinerView, value: number | undefined, holds: (x: number) => boolean): Verdict {
  if (m.registered === false) return false;
  if (value === undefined) return undefined;
  return holds(value) ? value : false;
}

function balanceLow(a: WatchedAccountView): Verdict {
  if (a.minBalance === undefined) return false;
  if (a.balanceTokens === undefined) return undefined;
  return a.balanceTokens < a.minBalance ? a.balanceTokens : false;
}

export const MINER_ALERTS: AlertDefinition[] = [
  {
    name: 'LedgerMinerInactive',
    group: WATCH_GROUP,
    scope: 'watch',
    comment: 'Not registered, or inactive: 6 missed check-ins in a row, or no check-in yet since it registered.',
    defaults: { severity: 'critical', forMs: 300_000, keepFiringForMs: 600_000 },
    promql: () => byEntry('miner', `${M.minerRegistered} == 0 or ${M.minerActive} == 0`),
    summary: () => 'Miner {{ $labels.name }} ({{ $labels.network }}) is inactive',
    description: (p) =>
      `${miner} has been unregistered or inactive for more than ${durationWords(p.forMs)}: it earns nothing.`,
    evaluate: (ctx) => perEntry(miners(ctx), minerInactive),
  },
  {
    name: 'LedgerMinerCheckinMissed',
    group: WATCH_GROUP,
    scope: 'watch',
    comment: "Misses are counted at epoch boundaries; each one forfeits that epoch's pending rewards.",
    defaults: { severity: 'warning', forMs: 60_000, keepFiringForMs: 300_000, threshold: 1 },
    promql: (p) => byEntry('miner', `${M.minerMisses} >= ${p.threshold}`),
    summary: () => 'Miner {{ $labels.name }} ({{ $labels.network }}) missed its check-in',
    description: () =>
      `${miner} has missed {{ $value }} epoch check-ins in a row: the pending rewards of each missed epoch are ` +
      `forfeited, and 6 in a row make it inactive.`,
    evaluate: (ctx) =>
      perEntry(miners(ctx), (m) => minerValue(m, m.consecutiveMisses, (x) => x >= (ctx.params.threshold ?? 1))),
  },
  {
    name: 'LedgerMinerRewardReduced',
    group: WATCH_GROUP,
    scope: 'watch',
    comment: 'The multiplier needs 12 check-ins in the last 12 epochs for x1 (9-11: x0.8, 6-8: x0.5, fewer: nothing).',
    defaults: { severity: 'warning', forMs: 300_000, keepFiringForMs: 600_000 },
    promql: () => byEntry('miner', `${M.minerMultiplier} < 1`),
    summary: () => 'Miner {{ $labels.name }} ({{ $labels.network }}) is paid a reduced reward',
    description: () =>
      `${miner} is paid x{{ $value }} of its mining reward: it checked in fewer than 12 times in the last 12 ` +
      `epochs, or is inactive.`,
    evaluate: (ctx) => perEntry(miners(ctx), (m) => minerValue(m, m.rewardMultiplier, (x) => x < 1)),
  },
];

export const ACCOUNT_ALERTS: AlertDefinition[] = [
  {
    name: 'LedgerAccountBalanceLow',
    group: WATCH_GROUP,
    scope: 'watch',
    comment: 'Only for accounts with minBalance (exported as ledger_watch_account_min_balance_tokens).',
    defaults: { severity: 'warning', forMs: 120_000, keepFiringForMs: 300_000 },
    promql: () => byEntry('account', `${M.accountBalance} < ${M.accountMinBalance}`),
    summary: () => 'Account {{ $labels.name }} ({{ $labels.network }}) is running low',
    description: () =>
      `${account} holds {{ $value }} tokens, below its configured minimum balance: payments from it fail once it ` +
      `runs dry.`,
    evaluate: (ctx) => perEntry(accounts(ctx), balanceLow),
  },
  {
    name: 'LedgerUnbondingClaimable',
    group: WATCH_GROUP,
    scope: 'watch',
    comment: 'Released unbonding entries are never paid out by themselves: the owner must claim them.',
    defaults: { severity: 'info', forMs: 300_000, keepFiringForMs: 600_000 },
    promql: () => byEntry('account', `${M.accountUnbonding}{state="claimable"} > 0`),
    summary: () => 'Account {{ $labels.name }} ({{ $labels.network }}) has unbonded stake to claim',
    description: () => `${account} has {{ $value }} tokens of released unbonding entries waiting to be claimed.`,
    evaluate: (ctx) =>
      perEntry(accounts(ctx), (a) =>
        a.unbondingClaimableTokens === undefined
          ? undefined
          : a.unbondingClaimableTokens > 0
            ? a.unbondingClaimableTokens
            : false,
      ),
  },
];

/** Reading any entry, of every kind (`kinds`: their address labels). */
export const readFailingAlert = (kinds: readonly string[]): AlertDefinition =>
  ({
    name: 'LedgerWatchReadFailing',
    group: WATCH_GROUP,
    scope: 'watch',
    comment:
      'The threshold counts read intervals. While an entry cannot be read, its other alerts are held\n' +
      'as they were: a failing read neither fires nor resolves them.',
    defaults: { severity: 'warning', forMs: 60_000, keepFiringForMs: 300_000, threshold: 3 },
    promql: (p) => byEntry(kinds, `${M.consecutiveFailures} >= ${p.threshold}`),
    summary: () => 'Watched entry {{ $labels.name }} ({{ $labels.network }}) cannot be read',
    description: (p) =>
      `The exporter has not read watched entry {{ $labels.name }} of network {{ $labels.network }} for ` +
      `${p.threshold} read intervals: no node of the network answered for it, so its state is unknown.`,
    // Not read since the exporter started: held (a restart resolves nothing).
    evaluate: (ctx) =>
      perEntry(allEntries(ctx.snapshot.watch), (e) =>
        e.consecutiveFailures >= (ctx.params.threshold ?? 3)
          ? e.consecutiveFailures
          : e.lastSuccessSeconds === undefined
            ? undefined
            : false,
      ),
  }) satisfies AlertDefinition;
