// Alerts on the operator's delegations and agents (rule group ledger-fleet-watch): a validator
// delegated to leaves the active set, goes offline, charges too much, a delegation vanishes or
// shrinks; an agent is not registered, scores too low, or its score falls. One instance per
// delegation (labels name, network, delegator, validator) or per agent. The two look-backs
// (LedgerDelegationRemoved, LedgerAgentScoreDropped) are kept by the engine across restarts
// (rules/memory.ts, alerting.stateDir/alert-memory.json): a restart neither resolves nor re-fires
// them, and a read that fails records nothing and decides nothing.
import { WATCH_METRICS as M } from '../../../watch/metricNames.js';
import {
  entriesOf,
  type DelegationView,
  type WatchedAgentView,
  type WatchedDelegatorView,
} from '../../../watch/types.js';
import type { AlertDefinition, AlertSample, EvalContext, Labels } from '../types.js';
import { byEntry, perEntry, WATCH_GROUP, watchLabels, type Verdict } from './watchSupport.js';

/** How long a delegation's larger amount is remembered: LedgerDelegationRemoved resolves this long after. */
export const DELEGATION_MEMORY_MS = 24 * 3_600_000;
/** The window LedgerAgentScoreDropped compares the total score with. */
export const SCORE_DROP_WINDOW_MS = 3_600_000;

const D = 'delegator, validator';
const delegation =
  'The delegation of {{ $labels.name }} ({{ $labels.delegator }}) of network {{ $labels.network }} to validator ' +
  '{{ $labels.validator }}';
const agentWho = 'Agent {{ $labels.name }} ({{ $labels.agent }}) of network {{ $labels.network }}';
const delegators = (ctx: EvalContext) => entriesOf(ctx.snapshot.watch, 'delegator');
const agents = (ctx: EvalContext) => entriesOf(ctx.snapshot.watch, 'agent');

// Each delegation's labels, kept while the entry and validator stay (the engine knows them without hashing again).
const labelsByDelegation = new Map<string, Labels>();
function delegationLabels(v: WatchedDelegatorView, validator: string): Labels {
  const key = `${v.name}\u0000${v.network}\u0000${v.address}\u0000${validator}`;
  let l = labelsByDelegation.get(key);
  if (!l) {
    if (labelsByDelegation.size > 100_000) labelsByDelegation.clear();
    labelsByDelegation.set(key, (l = { ...watchLabels(v), validator }));
  }
  return l;
}

/** One sample per delegation; a delegator whose list is not known holds every instance it has. */
function perDelegation(
  list: readonly WatchedDelegatorView[],
  verdict: (v: WatchedDelegatorView, d: DelegationView) => Verdict,
): AlertSample[] {
  const out: AlertSample[] = [];
  for (const v of list) {
    if (!v.delegations) {
      out.push({ labels: watchLabels(v), value: 0, hold: true, holdMatching: true });
      continue;
    }
    for (const d of v.delegations) {
      const r = verdict(v, d);
      if (r === false) continue;
      const labels = delegationLabels(v, d.validator);
      out.push(r === undefined ? { labels, value: 0, hold: true } : { labels, value: r });
    }
  }
  return out;
}

const maxOf = (values: readonly bigint[]): bigint => values.reduce((m, x) => (x > m ? x : m), 0n);
/** The share of `max` that `now` lacks, 0..1. */
const shareLost = (max: bigint, now: bigint): number => Number(((max - now) * 1_000_000n) / max) / 1_000_000;

/**
 * Each delegation against the largest amount it had in the last DELEGATION_MEMORY_MS, kept across
 * restarts: smaller, or gone from the list, fires (value: the share removed). A delegation gone
 * for longer than that is forgotten.
 */
function removed(ctx: EvalContext): AlertSample[] {
  const out: AlertSample[] = [];
  const memory = ctx.durable;
  for (const v of delegators(ctx)) {
    if (!v.delegations) {
      out.push({ labels: watchLabels(v), value: 0, hold: true, holdMatching: true });
      continue;
    }
    if (!memory) continue;
    const group = `${v.network}\u0000${v.name}\u0000${v.address}`;
    const now = new Map(v.delegations.map((d) => [d.validator, BigInt(d.amount)]));
    const known = memory.keys(group).map((k) => k.slice(group.length + 1));
    for (const validator of new Set([...now.keys(), ...known])) {
      const key = `${group}\u0001${validator}`;
      const amount = now.get(validator) ?? 0n;
      const max = maxOf(memory.read(key, amount, DELEGATION_MEMORY_MS));
      if (max === 0n && !now.has(validator)) memory.forget(key);
      if (amount < max) out.push({ labels: delegationLabels(v, validator), value: shareLost(max, amount) });
    }
  }
  return out;
}

/** The total score against its highest of the last hour (kept across restarts); threshold: the share fallen. */
function scoreDropped(ctx: EvalContext, a: WatchedAgentView): Verdict {
  // Not registered: LedgerAgentNotRegistered's (an unregistered address scores 0).
  if (a.registered === false) return false;
  const total = a.scores?.total;
  if (total === undefined || a.registered === undefined) return undefined;
  const bps = BigInt(Math.round(total * 10_000));
  const max = maxOf(
    ctx.durable?.read(`${a.network}\u0000${a.name}\u0000${a.address}`, bps, SCORE_DROP_WINDOW_MS) ?? [],
  );
  if (max === 0n || bps >= max) return false;
  const lost = shareLost(max, bps);
  return lost >= (ctx.params.threshold ?? 0.2) - 1e-9 ? lost : false;
}

const tokens = M.delegationTokens;
const removedExpr = [
  `1 - ${tokens} / max_over_time(${tokens}[24h]) > 0`,
  `or (max_over_time(${tokens}[24h]) * 0 + 1 unless ${tokens})`,
  `  and on (network, name, delegator) (${M.consecutiveFailures} == 0)`,
  `  and on (network, name, delegator) ${M.lastSuccess}`,
].join('\n');
const totalScore = `${M.agentScore}{dimension="total"}`;

export const DELEGATOR_ALERTS: AlertDefinition[] = [
  {
    name: 'LedgerDelegationValidatorInactive',
    group: WATCH_GROUP,
    scope: 'watch',
    comment: 'A validator delegated to is out of the active set: the delegation earns nothing.',
    defaults: { severity: 'warning', forMs: 120_000, keepFiringForMs: 600_000 },
    promql: () => byEntry(D, `${M.delegationActive} == 0`),
    summary: () => 'A validator {{ $labels.name }} ({{ $labels.network }}) delegates to is not in the active set',
    description: () =>
      `${delegation} earns nothing: the validator is not in the active set (it leaves or joins at epoch boundaries).`,
    evaluate: (ctx) =>
      perDelegation(delegators(ctx), (_v, d) => (d.active === undefined ? undefined : d.active ? false : 0)),
  },
  {
    name: 'LedgerDelegationValidatorOffline',
    group: WATCH_GROUP,
    scope: 'watch',
    comment: 'Active and not paid in the newest block read: it missed a slot and is unpaid for the epoch.',
    defaults: { severity: 'warning', forMs: 120_000, keepFiringForMs: 300_000 },
    promql: () => byEntry(D, `${M.delegationRewarded} == 0\nand ${M.delegationActive} == 1`),
    summary: () => 'A validator {{ $labels.name }} ({{ $labels.network }}) delegates to is offline',
    description: () =>
      `${delegation} earns nothing this epoch: the validator is in the active set but was not paid in the newest ` +
      `block (it missed its slot).`,
    evaluate: (ctx) =>
      perDelegation(delegators(ctx), (_v, d) =>
        d.active === undefined
          ? undefined
          : !d.active
            ? false
            : d.rewarded === undefined
              ? undefined
              : !d.rewarded && 0,
      ),
  },
  {
    name: 'LedgerDelegationCommissionHigh',
    group: WATCH_GROUP,
    scope: 'watch',
    comment: 'Only for delegators with maxCommissionBps (exported as the _max_commission_ratio series).',
    defaults: { severity: 'warning', forMs: 60_000, keepFiringForMs: 300_000 },
    promql: () =>
      byEntry(D, `${M.delegationCommission}\n> ignoring (validator) group_left ${M.delegatorMaxCommission}`),
    summary: () => 'A validator {{ $labels.name }} ({{ $labels.network }}) delegates to charges too much',
    description: () =>
      `${delegation}: the validator charges a commission of {{ $value | humanizePercentage }}, more than the ` +
      `delegator's configured maximum.`,
    evaluate: (ctx) =>
      perDelegation(delegators(ctx), (v, d) =>
        v.maxCommissionBps === undefined
          ? false
          : Math.round(d.commissionRatio * 10_000) > v.maxCommissionBps && d.commissionRatio,
      ),
  },
  {
    name: 'LedgerDelegationRemoved',
    group: WATCH_GROUP,
    scope: 'watch',
    comment:
      'Smaller than its largest amount of the last 24 hours, or gone from the list: undelegated (or moved) by\n' +
      "its owner's key. Resolves when the amount is back, or 24 hours after the larger amount was last read.\n" +
      'The built-in engine keeps the 24 hours across restarts (alerting.stateDir/alert-memory.json).',
    defaults: { severity: 'critical', forMs: 60_000, keepFiringForMs: 300_000 },
    promql: () => byEntry(D, removedExpr),
    summary: () => 'A delegation of {{ $labels.name }} ({{ $labels.network }}) was removed or shrank',
    description: () =>
      `${delegation} lost {{ $value | humanizePercentage }} of its amount within 24 hours: undelegated or moved ` +
      `with the owner's key. If nobody meant to, treat the key as compromised.`,
    evaluate: removed,
  },
];

export const AGENT_ALERTS: AlertDefinition[] = [
  {
    name: 'LedgerAgentNotRegistered',
    group: WATCH_GROUP,
    scope: 'watch',
    comment: 'getAgent answers null: the address is not (or no longer) a registered agent.',
    defaults: { severity: 'critical', forMs: 120_000, keepFiringForMs: 300_000 },
    promql: () => byEntry('agent', `${M.agentRegistered} == 0`),
    summary: () => 'Agent {{ $labels.name }} ({{ $labels.network }}) is not registered',
    description: () => `${agentWho} is not registered: it has no identity, score or services on the chain.`,
    evaluate: (ctx) =>
      perEntry(agents(ctx), (a) => (a.registered === undefined ? undefined : a.registered ? false : 0)),
  },
  {
    name: 'LedgerAgentScoreLow',
    group: WATCH_GROUP,
    scope: 'watch',
    comment: 'Only for agents with minScore (exported as ledger_watch_agent_min_score_ratio).',
    defaults: { severity: 'warning', forMs: 300_000, keepFiringForMs: 600_000 },
    promql: () =>
      byEntry(
        'agent',
        `${totalScore}\n< ignoring (dimension) ${M.agentMinScore}\nand ignoring (dimension) ${M.agentRegistered} == 1`,
      ),
    summary: () => 'Agent {{ $labels.name }} ({{ $labels.network }}) scores below its minimum',
    description: () =>
      `${agentWho} has a total score of {{ $value | humanizePercentage }}, below its configured minimum: a ` +
      `validator's weight is 30% score, so a low score can cost a seat.`,
    evaluate: (ctx) =>
      perEntry(agents(ctx), (a) => {
        if (a.minScore === undefined || a.registered === false) return false;
        const total = a.scores?.total;
        if (total === undefined || a.registered === undefined) return undefined;
        return Math.round(total * 10_000) < a.minScore && total;
      }),
  },
  {
    name: 'LedgerAgentScoreDropped',
    group: WATCH_GROUP,
    scope: 'watch',
    comment:
      'The total score fell by the threshold (a share) or more below its highest of the last hour. The\n' +
      'built-in engine keeps that hour across restarts (alerting.stateDir/alert-memory.json).',
    defaults: { severity: 'warning', forMs: 60_000, keepFiringForMs: 300_000, threshold: 0.2 },
    promql: (p) =>
      byEntry(
        'agent',
        `(max_over_time(${totalScore}[1h]) - ${totalScore})\n/ max_over_time(${totalScore}[1h]) >= ${p.threshold}`,
      ),
    summary: () => "Agent {{ $labels.name }} ({{ $labels.network }})'s score dropped",
    description: () => `${agentWho}'s total score fell by {{ $value | humanizePercentage }} within the last hour.`,
    evaluate: (ctx) => perEntry(agents(ctx), (a) => scoreDropped(ctx, a)),
  },
];
