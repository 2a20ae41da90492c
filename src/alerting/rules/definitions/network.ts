// Per-network alerts (rule group ledger-fleet-network). Each one names the network. The PromQL
// reads the recorded fleet-wide series (src/recording), so it holds with one exporter or many shards.
import type { NetworkView } from '../../../state/snapshot.js';
import { durationWords, percent } from '../format.js';
import type { AlertDefinition, AlertSample, EvalContext } from '../types.js';
import { RECORDED } from '../../../recording/rules.js';

const GROUP = 'ledger-fleet-network';
const HOUR_MS = 3_600_000;

function perNetwork(ctx: EvalContext, value: (n: NetworkView) => number | undefined): AlertSample[] {
  const out: AlertSample[] = [];
  for (const n of ctx.snapshot.networks) {
    const v = value(n);
    if (v !== undefined) out.push({ labels: { network: n.network }, value: v });
  }
  return out;
}

const threshold = (ctx: EvalContext) => ctx.params.threshold ?? 0;

export const NETWORK_ALERTS: AlertDefinition[] = [
  {
    name: 'LedgerFleetDegraded',
    group: GROUP,
    scope: 'network',
    comment:
      'Fewer than three quarters of the configured nodes of a network are up\n' +
      '(in a fleet of 3, one node down is a third of the capacity).',
    defaults: { severity: 'critical', forMs: 120_000, keepFiringForMs: 300_000, threshold: 0.75 },
    promql: (p) => `${RECORDED.nodesUp} / ${RECORDED.nodes} < ${p.threshold}`,
    summary: () => 'Fleet of network {{ $labels.network }} is degraded',
    description: (p) =>
      `Only {{ $value | humanizePercentage }} of the configured nodes of network {{ $labels.network }} are up ` +
      `(threshold ${percent(p.threshold ?? 0)}) for more than ${durationWords(p.forMs)}.`,
    evaluate: (ctx) =>
      perNetwork(ctx, (n) => {
        if (n.nodes === 0) return undefined;
        const ratio = n.nodesUp / n.nodes;
        return ratio < threshold(ctx) ? ratio : undefined;
      }),
  },
  {
    name: 'LedgerFleetVersionSkew',
    group: GROUP,
    scope: 'network',
    comment: 'Rolling upgrades run several versions for a while; only a long skew is news.',
    defaults: { severity: 'info', forMs: HOUR_MS, keepFiringForMs: 900_000, threshold: 1 },
    promql: (p) => `${RECORDED.versions} > ${p.threshold}`,
    summary: () => 'Network {{ $labels.network }} runs {{ printf "%.0f" $value }} node versions',
    description: (p) =>
      `The nodes up in network {{ $labels.network }} have run {{ printf "%.0f" $value }} distinct versions for ` +
      `more than ${durationWords(p.forMs)}.`,
    evaluate: (ctx) => perNetwork(ctx, (n) => (n.versions > threshold(ctx) ? n.versions : undefined)),
  },
  {
    name: 'LedgerValidatorSetShrunk',
    group: GROUP,
    scope: 'network',
    comment:
      'Value: validators lost against the largest set seen in the last hour. Resolves by\n' +
      'itself an hour after the drop, or as soon as the set grows back.',
    defaults: { severity: 'warning', forMs: 300_000, keepFiringForMs: 0, threshold: 0 },
    promql: (p) => `max_over_time(${RECORDED.validatorsActive}[1h]) - ${RECORDED.validatorsActive} > ${p.threshold}`,
    summary: () => 'Active validator set of network {{ $labels.network }} shrank',
    description: () =>
      'The active validator set of network {{ $labels.network }} has {{ printf "%.0f" $value }} fewer validators ' +
      'than its largest size in the last hour.',
    evaluate: (ctx) =>
      perNetwork(ctx, (n) => {
        const active = n.validators?.list.length;
        const seen = ctx.range(`validators\u0000${n.network}`, active, HOUR_MS);
        if (active === undefined || seen.length === 0) return undefined;
        const lost = Math.max(...seen) - active;
        return lost > threshold(ctx) ? lost : undefined;
      }),
  },
  {
    name: 'LedgerValidatorSetMismatch',
    group: GROUP,
    scope: 'network',
    comment: 'Nodes may briefly disagree around an epoch change.',
    defaults: { severity: 'warning', forMs: 300_000, keepFiringForMs: 600_000 },
    promql: () => `${RECORDED.validatorSetMismatch} == 1`,
    summary: () => 'Nodes of network {{ $labels.network }} disagree on the validator set',
    description: (p) =>
      `The nodes up in network {{ $labels.network }} have reported different validator sets for more than ` +
      `${durationWords(p.forMs)}.`,
    evaluate: (ctx) => perNetwork(ctx, (n) => (n.validatorSetMismatch === 1 ? 1 : undefined)),
  },
  {
    name: 'LedgerMinersActiveDropped',
    group: GROUP,
    scope: 'network',
    comment: "Active miners fluctuate; a fall below 80% of the last hour's maximum is a drop.",
    defaults: { severity: 'warning', forMs: 600_000, keepFiringForMs: 600_000, threshold: 0.8 },
    promql: (p) => `${RECORDED.minersActive} < ${p.threshold} * max_over_time(${RECORDED.minersActive}[1h])`,
    summary: () => 'Active miners of network {{ $labels.network }} dropped',
    description: (p) =>
      `Network {{ $labels.network }} has {{ printf "%.0f" $value }} active miners, below ` +
      `${percent(p.threshold ?? 0)} of its maximum in the last hour, for more than ${durationWords(p.forMs)}.`,
    evaluate: (ctx) =>
      perNetwork(ctx, (n) => {
        const active = n.mining?.active;
        const seen = ctx.range(`miners\u0000${n.network}`, active, HOUR_MS);
        if (active === undefined || seen.length === 0) return undefined;
        return active < threshold(ctx) * Math.max(...seen) ? active : undefined;
      }),
  },
  {
    name: 'LedgerMiningUpgradeApproaching',
    group: GROUP,
    scope: 'network',
    comment: '1200 blocks at ~3 s per block is about one hour.',
    defaults: { severity: 'info', forMs: 60_000, keepFiringForMs: 600_000, threshold: 1200 },
    promql: (p) => `${RECORDED.blocksUntilUpgrade} > 0 and ${RECORDED.blocksUntilUpgrade} <= ${p.threshold}`,
    summary: () => 'Mining upgrade of network {{ $labels.network }} is near',
    description: (p) =>
      `The mining upgrade of network {{ $labels.network }} activates in {{ printf "%.0f" $value }} blocks (about ` +
      `3 s per block, so within ${aboutTime(p.threshold ?? 0)}).`,
    evaluate: (ctx) =>
      perNetwork(ctx, (n) => {
        const left = n.mining?.blocksUntilUpgrade;
        return left !== undefined && left > 0 && left <= threshold(ctx) ? left : undefined;
      }),
  },
];

/** Chain time of `blocks` at ~3 s per block, in words ("the hour" for the default 1200). */
function aboutTime(blocks: number): string {
  const ms = blocks * 3_000;
  return ms === HOUR_MS ? 'the hour' : `about ${durationWords(Math.round(ms / 60_000) * 60_000 || 60_000)}`;
}
