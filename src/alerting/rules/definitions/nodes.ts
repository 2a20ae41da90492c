// Per-node alerts (rule group ledger-fleet-nodes). Each one names the node and its network, and
// nothing else: the PromQL keeps only those labels, so HA twins of a shard raise one alert per node.
import type { NodeView } from '../../../state/snapshot.js';
import { durationWords, promDuration } from '../format.js';
import type { AlertDefinition, AlertSample, EvalContext } from '../types.js';
import { counterIncrease } from '../range.js';
import { perNode as oncePerNode, RECORDED } from '../../../recording/rules.js';

const GROUP = 'ledger-fleet-nodes';
export const HEIGHT_STALLED = 'LedgerNodeHeightStalled';
/** Default stall window in seconds; config checks hold every node's interval to half of the window in force. */
export const STALL_THRESHOLD_S = 120;
const ids = (n: NodeView) => ({ node: n.name, network: n.network });
const key = (n: NodeView, what: string) => `${what}\u0000${n.network}\u0000${n.name}`;
const healthSupported = (n: NodeView) => n.probes.find((p) => p.probe === 'health')?.supported !== false;

function perNode(ctx: EvalContext, value: (n: NodeView) => number | undefined): AlertSample[] {
  const out: AlertSample[] = [];
  for (const n of ctx.snapshot.nodes) {
    const v = value(n);
    if (v !== undefined) out.push({ labels: ids(n), value: v });
  }
  return out;
}

const GATED_ON_UP = '\n  and on (node, network) ledger_node_up == 1';
const GATED_ON_HEALTH = '\n  unless on (node, network) ledger_probe_supported{probe="health"} == 0';

export const NODE_ALERTS: AlertDefinition[] = [
  {
    name: 'LedgerNodeDown',
    group: GROUP,
    scope: 'node',
    defaults: { severity: 'critical', forMs: 60_000, keepFiringForMs: 300_000 },
    promql: () => oncePerNode('ledger_node_up == 0'),
    summary: () => 'Ledger node {{ $labels.node }} ({{ $labels.network }}) is down',
    description: (p) =>
      `Node {{ $labels.node }} in network {{ $labels.network }} has not given a valid answer to its health or ` +
      `blockNumber probe for more than ${durationWords(p.forMs)}.`,
    evaluate: (ctx) => perNode(ctx, (n) => (n.up ? undefined : 0)),
  },
  {
    name: 'LedgerNodeUnhealthy',
    group: GROUP,
    scope: 'node',
    comment: '/health answers 200 with status "degraded" when the last block is 60 s old or more.',
    defaults: { severity: 'warning', forMs: 180_000, keepFiringForMs: 300_000 },
    promql: () => oncePerNode(`ledger_node_healthy == 0${GATED_ON_UP}${GATED_ON_HEALTH}`),
    summary: () => 'Ledger node {{ $labels.node }} ({{ $labels.network }}) reports itself unhealthy',
    description: (p) =>
      `Node {{ $labels.node }} in network {{ $labels.network }} answers, but its /health status has not been ` +
      `"ok" for more than ${durationWords(p.forMs)}.`,
    evaluate: (ctx) =>
      perNode(ctx, (n) =>
        n.up && healthSupported(n) && n.health?.status !== undefined && n.health.status !== 'ok' ? 0 : undefined,
      ),
  },
  {
    name: HEIGHT_STALLED,
    group: GROUP,
    scope: 'node',
    comment:
      'No height change in 2 minutes (~40 blocks; the threshold, in seconds) while the node answers, over a\n' +
      'height series at least that old (a fresh exporter or node waits a whole window).\n' +
      'The window spans at least two polls of every node: with built-in alerting, check-config refuses a node\n' +
      'polled less often than every half window (2 x interval > threshold), which would look stalled between ' +
      'polls.',
    defaults: { severity: 'critical', forMs: 60_000, keepFiringForMs: 300_000, threshold: STALL_THRESHOLD_S },
    promql: (p) => {
      const window = promDuration(stallWindowMs(p.threshold));
      // The series must reach back a whole window: a fresh one (new exporter or node) has seen no poll yet.
      return oncePerNode(
        `changes(ledger_node_block_height[${window}]) == 0${GATED_ON_UP}\n  and on (node, network) ` +
          `ledger_node_block_height offset ${window}`,
      );
    },
    summary: () => 'Ledger node {{ $labels.node }} ({{ $labels.network }}) is not advancing',
    description: (p) =>
      `Node {{ $labels.node }} in network {{ $labels.network }} answers, but its block height has not changed ` +
      `for more than ${durationWords(stallWindowMs(p.threshold))} (block time is about 3 s).`,
    evaluate: (ctx) =>
      perNode(ctx, (n) => {
        const window = stallWindowMs(ctx.params.threshold);
        const heights = ctx.range(key(n, 'height'), n.height, window);
        if (!n.up || n.height === undefined || heights.length === 0) return undefined;
        if ((ctx.rangeAge?.(key(n, 'height')) ?? window) < window) return undefined;
        return heights.every((h) => h === heights[0]) ? 0 : undefined;
      }),
  },
  {
    name: 'LedgerNodeBehindFleet',
    group: GROUP,
    scope: 'node',
    comment: '20 blocks is about one minute of chain time.',
    defaults: { severity: 'warning', forMs: 300_000, keepFiringForMs: 300_000, threshold: 20 },
    promql: (p) => oncePerNode(`${RECORDED.lagBlocks} > ${p.threshold}${GATED_ON_UP}`),
    summary: () => 'Ledger node {{ $labels.node }} ({{ $labels.network }}) is behind the fleet',
    description: (p) =>
      `Node {{ $labels.node }} in network {{ $labels.network }} is {{ printf "%.0f" $value }} blocks behind the ` +
      `highest node of its network, and has been more than ${p.threshold} blocks behind for ` +
      `${durationWords(p.forMs)}.`,
    evaluate: (ctx) =>
      perNode(ctx, (n) =>
        n.up && n.lagBlocks !== undefined && n.lagBlocks > (ctx.params.threshold ?? 0) ? n.lagBlocks : undefined,
      ),
  },
  {
    name: 'LedgerNodeLowPeers',
    group: GROUP,
    scope: 'node',
    defaults: { severity: 'warning', forMs: 600_000, keepFiringForMs: 600_000, threshold: 2 },
    promql: (p) => oncePerNode(`ledger_node_peers < ${p.threshold}${GATED_ON_UP}${GATED_ON_HEALTH}`),
    summary: () => 'Ledger node {{ $labels.node }} ({{ $labels.network }}) has few peers',
    description: (p) =>
      `Node {{ $labels.node }} in network {{ $labels.network }} has had fewer than ${p.threshold} peers for ` +
      `${durationWords(p.forMs)} (now {{ printf "%.0f" $value }}).`,
    evaluate: (ctx) =>
      perNode(ctx, (n) => {
        const peers = n.health?.peerCount;
        return n.up && healthSupported(n) && peers !== undefined && peers < (ctx.params.threshold ?? 0)
          ? peers
          : undefined;
      }),
  },
  {
    name: 'LedgerNodeServerErrors',
    group: GROUP,
    scope: 'node',
    comment: 'More than 2 answers with HTTP 5xx in 5 minutes, over all probes the node supports.',
    defaults: { severity: 'warning', forMs: 120_000, keepFiringForMs: 600_000, threshold: 2 },
    promql: (p) =>
      oncePerNode(
        [
          'sum without (probe, reason) (',
          '  increase(ledger_probe_failures_total{reason="http_5xx"}[5m])',
          '    unless on (node, network, probe) ledger_probe_supported == 0',
          `) > ${p.threshold}`,
        ].join('\n'),
      ),
    summary: () => 'Ledger node {{ $labels.node }} ({{ $labels.network }}) answers with HTTP 5xx',
    description: () =>
      'Node {{ $labels.node }} in network {{ $labels.network }} answered {{ printf "%.0f" $value }} probes with ' +
      'HTTP 5xx in the last 5 minutes. The exporter recorded each answer as evidence.',
    evaluate: (ctx) =>
      perNode(ctx, (n) => {
        let sum = 0;
        let seen = false;
        for (const p of n.probes) {
          const values = ctx.range(key(n, `5xx\u0000${p.probe}`), p.failures.http_5xx, SERVER_ERROR_WINDOW_MS);
          if (!p.supported || values.length === 0) continue;
          seen = true;
          sum += counterIncrease(values);
        }
        return seen && sum > (ctx.params.threshold ?? 0) ? sum : undefined;
      }),
  },
  ...certificateAlerts(),
];

const SERVER_ERROR_WINDOW_MS = 300_000;
const DAY_SECONDS = 86_400;

/**
 * The certificate of an https node running out, from the expiry the probes' own connections read:
 * a warning two weeks ahead, and a critical alert of its own three days ahead (alert names are the
 * keys of overrides and silences, so each severity is its own rule; inhibit the warning by it).
 */
function certificateAlerts(): AlertDefinition[] {
  const expiring = (name: string, severity: 'warning' | 'critical', days: number): AlertDefinition => ({
    name,
    group: GROUP,
    scope: 'node',
    comment:
      `Days until the earliest certificate of the chain the node presents expires (threshold in days; ${days} by ` +
      `default).`,
    defaults: { severity, forMs: 300_000, keepFiringForMs: 600_000, threshold: days },
    promql: (p) =>
      oncePerNode(`(ledger_node_tls_cert_expiry_timestamp_seconds - time()) / ${DAY_SECONDS} < ${p.threshold}`),
    summary: () => 'Ledger node {{ $labels.node }} ({{ $labels.network }}) has a TLS certificate expiring',
    description: (p) =>
      `A certificate in the chain node {{ $labels.node }} in network {{ $labels.network }} presents expires in ` +
      `{{ printf "%.0f" $value }} days (alert under ${p.threshold}; 0 or less: expired, and the node's probes ` +
      `fail as TLS failures).`,
    evaluate: (ctx) =>
      perNode(ctx, (n) => {
        const expiry = n.values?.tlsCertExpirySeconds;
        if (expiry === undefined) return undefined;
        const days = (expiry - ctx.now / 1000) / DAY_SECONDS;
        return days < (ctx.params.threshold ?? days) ? days : undefined;
      }),
  });
  return [
    expiring('LedgerNodeCertificateExpiring', 'warning', 14),
    expiring('LedgerNodeCertificateExpiringCritical', 'critical', 3),
  ];
}

/** The stall threshold is in seconds without a height change. */
export function stallWindowMs(threshold: number | undefined): number {
  return (threshold ?? STALL_THRESHOLD_S) * 1000;
}
