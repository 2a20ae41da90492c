// Alerts on the operator's own validators (rule group ledger-fleet-watch): out of the active set,
// unpaid while in it (offline), jailed, close to losing its seat, charging another commission.
import { WATCH_METRICS as M } from '../../../watch/metricNames.js';
import { entriesOf, type WatchedValidatorView } from '../../../watch/types.js';
import { durationWords } from '../format.js';
import type { AlertDefinition, AlertSample, EvalContext } from '../types.js';
import { byEntry, perEntry, WATCH_GROUP, type Verdict } from './watchSupport.js';

const HOUR_MS = 3_600_000;
const validators = (ctx: EvalContext) => entriesOf(ctx.snapshot.watch, 'validator');
const who = 'Validator {{ $labels.name }} ({{ $labels.validator }}) of network {{ $labels.network }}';

function offline(v: WatchedValidatorView): Verdict {
  if (v.active === undefined) return undefined;
  if (!v.active) return false;
  return v.rewarded === undefined ? undefined : v.rewarded ? false : 0;
}

function seatAtRisk(v: WatchedValidatorView): Verdict {
  if (v.seatMarginBelow === undefined) return false;
  if (v.active === undefined) return undefined;
  if (!v.active) return false;
  if (v.seatMarginRatio === undefined) return undefined;
  return v.seatMarginRatio < v.seatMarginBelow ? v.seatMarginRatio : false;
}

/**
 * Against the configured commission, or, without one, against every value of the last hour. The
 * hour is kept in memory: until the engine has seen a whole hour of it (after a restart, or for an
 * entry just added), an unchanged commission is not known to have stayed so, and decides nothing.
 */
function commissionChanged(ctx: EvalContext, v: WatchedValidatorView): Verdict {
  const ratio = v.commissionRatio;
  const key = `commission\u0000${v.network}\u0000${v.name}\u0000${v.address}`;
  const seen = ctx.range(key, ratio, HOUR_MS);
  if (ratio === undefined) return undefined;
  if (v.commissionBps !== undefined) return Math.round(ratio * 10_000) !== v.commissionBps ? ratio : false;
  if (seen.some((x) => x !== ratio)) return ratio;
  return (ctx.rangeAge?.(key) ?? HOUR_MS) < HOUR_MS ? undefined : false;
}

/**
 * "commission 2.5%, expected 5%" when the entry sets commissionBps (the _expected_ series, looked
 * up for the alert's labels), else "commission 7%, changed within the last hour".
 */
const COMMISSION_SUMMARY =
  'Validator {{ $labels.name }} ({{ $labels.network }}): commission {{ $value | humanizePercentage }}' +
  `{{ with query (printf "${M.validatorExpectedCommission}{name=%q,network=%q,validator=%q}" ` +
  '$labels.name $labels.network $labels.validator) }}, expected {{ . | first | value | humanizePercentage }}' +
  '{{ else }}, changed within the last hour{{ end }}';

/** The commission verdicts, with the expected commission for the summary where one is configured. */
function commissionSamples(ctx: EvalContext): AlertSample[] {
  const list = validators(ctx);
  const expected = new Map(list?.map((v) => [v.name, v.commissionBps]));
  return perEntry(list, (v) => commissionChanged(ctx, v)).map((s) => {
    const bps = s.labels.name === undefined ? undefined : expected.get(s.labels.name);
    return bps === undefined ? s : { ...s, refs: { [M.validatorExpectedCommission]: bps / 10_000 } };
  });
}

export const WATCH_VALIDATOR_ALERTS: AlertDefinition[] = [
  {
    name: 'LedgerValidatorInactive',
    group: WATCH_GROUP,
    scope: 'watch',
    comment: 'The active set changes at epoch boundaries only (100 blocks, about 5 minutes).',
    defaults: { severity: 'critical', forMs: 120_000, keepFiringForMs: 600_000 },
    promql: () => byEntry('validator', `${M.validatorActive} == 0`),
    summary: () => 'Validator {{ $labels.name }} ({{ $labels.network }}) is not in the active set',
    description: (p) =>
      `${who} has been out of the active set for more than ${durationWords(p.forMs)}: it produces no blocks and ` +
      `earns nothing.`,
    evaluate: (ctx) => perEntry(validators(ctx), (v) => (v.active === undefined ? undefined : v.active ? false : 0)),
  },
  {
    name: 'LedgerValidatorOffline',
    group: WATCH_GROUP,
    scope: 'watch',
    comment:
      'Active and not paid in the newest block read: it missed a slot and is excluded from rewards\n' +
      'for the rest of the epoch (an empty reward pool pays nobody; the reader reports no value then).',
    defaults: { severity: 'critical', forMs: 120_000, keepFiringForMs: 300_000 },
    promql: () => byEntry('validator', `${M.validatorRewarded} == 0\nand ${M.validatorActive} == 1`),
    summary: () => 'Validator {{ $labels.name }} ({{ $labels.network }}) is offline and unpaid',
    description: (p) =>
      `${who} is in the active set but has not been paid for more than ${durationWords(p.forMs)}: it missed its ` +
      `slot and earns nothing until the next epoch.`,
    evaluate: (ctx) => perEntry(validators(ctx), offline),
  },
  {
    name: 'LedgerValidatorJailed',
    group: WATCH_GROUP,
    scope: 'watch',
    comment: 'Only equivocation (signing two blocks for one slot) jails, for one epoch.',
    defaults: { severity: 'critical', forMs: 60_000, keepFiringForMs: 300_000 },
    promql: () => byEntry('validator', `${M.validatorJailed} == 1`),
    summary: () => 'Validator {{ $labels.name }} ({{ $labels.network }}) is jailed',
    description: () =>
      `${who} is jailed: it leaves the active set at the next epoch boundary and earns nothing while jailed.`,
    evaluate: (ctx) => perEntry(validators(ctx), (v) => (v.jailed === undefined ? undefined : v.jailed ? 1 : false)),
  },
  {
    name: 'LedgerValidatorSeatAtRisk',
    group: WATCH_GROUP,
    scope: 'watch',
    comment:
      'Only for validators with seatMarginBelow (exported as the _below_ratio series); the margin is\n' +
      "(own weight - lowest seat's weight) / own weight while all 21 seats are taken.",
    defaults: { severity: 'warning', forMs: 600_000, keepFiringForMs: 900_000 },
    promql: () =>
      byEntry('validator', `${M.validatorSeatMargin} < ${M.validatorSeatMarginBelow}\nand ${M.validatorActive} == 1`),
    summary: () => 'Validator {{ $labels.name }} ({{ $labels.network }}) may lose its seat',
    description: () =>
      `${who} weighs only {{ $value | humanizePercentage }} more than the lowest seat of the full active set, ` +
      `less than its configured margin: a heavier candidate takes the seat at an epoch boundary.`,
    evaluate: (ctx) => perEntry(validators(ctx), seatAtRisk),
  },
  {
    name: 'LedgerValidatorCommissionChanged',
    group: WATCH_GROUP,
    scope: 'watch',
    comment:
      'Against commissionBps when the entry sets it (the _expected_ series), else any change in the last hour\n' +
      '(the built-in engine holds it as it is until it has seen that hour after a restart).',
    defaults: { severity: 'warning', forMs: 60_000, keepFiringForMs: 300_000 },
    promql: () =>
      byEntry(
        'validator',
        [
          `${M.validatorCommission}`,
          `  and (abs(${M.validatorCommission} - ${M.validatorExpectedCommission}) > 0.00005)`,
          `or (${M.validatorCommission} and changes(${M.validatorCommission}[1h]) > 0`,
          `  unless ${M.validatorExpectedCommission})`,
        ].join('\n'),
      ),
    summary: () => COMMISSION_SUMMARY,
    description: () =>
      `${who} charges a commission of {{ $value | humanizePercentage }}: not the commission it should charge, or ` +
      `changed within the last hour.`,
    evaluate: commissionSamples,
  },
];
