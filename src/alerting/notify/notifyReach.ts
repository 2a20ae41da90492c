// `notify-test --node NAME`: which receivers a critical alert about that node would reach now,
// through the same routes, delivery rules and maintenance windows as real alerts.
import type { NodeTarget } from '../../domain.js';
import type { AlertingSettings } from '../settings.js';
import { deliveryTargets, type ReceiverRef } from './deliveryFilter.js';
import { MaintenanceWindows } from '../maintenance/windows.js';
import { Router, type RoutingSpec } from './routing.js';
import type { Labels } from '../rules/types.js';

/** The alert the question is about: the per-node critical alert (its labels as the engine sets them). */
export const PROBE_ALERT = 'LedgerNodeDown';

export interface NodeReach {
  labels: Labels;
  /** Index of the route that matched; undefined: no route matches (nothing is sent). */
  route?: number;
  receivers: string[];
  /** A maintenance window silencing this node's alerts right now. */
  silencedBy?: string;
}

export function nodeAlertReach(
  node: { name: string; network: string },
  routing: RoutingSpec,
  receivers: readonly ReceiverRef[],
  isSilenced?: (labels: Labels, now: number) => string | undefined,
  now = Date.now(),
): NodeReach {
  const labels: Labels = { alertname: PROBE_ALERT, severity: 'critical', node: node.name, network: node.network };
  const route = new Router(routing).route(labels);
  const routed = receivers.filter((r) => route?.receivers.includes(r.name));
  const reach = deliveryTargets(undefined, labels, routed, receivers).map((r) => r.name);
  const silencedBy = isSilenced?.(labels, now);
  return { labels, ...(route ? { route: route.index } : {}), receivers: reach, ...(silencedBy ? { silencedBy } : {}) };
}

/** One line for the terminal, e.g. `node val-eu-1 (testnet): critical alerts reach pager, slack (route #1)`. */
export function describeReach(r: NodeReach): string {
  const who = `node ${r.labels.node} (${r.labels.network})`;
  const via = r.route === undefined ? 'no route matches' : `route #${r.route + 1}`;
  const reach =
    r.receivers.length > 0
      ? `critical alerts reach ${r.receivers.join(', ')} (${via})`
      : `critical alerts reach no receiver (${via})`;
  return r.silencedBy ? `${who}: ${reach}; silenced now by maintenance window ${r.silencedBy}` : `${who}: ${reach}`;
}

/** notify-test --node: the line to print and the receivers to send to, or why not. */
export function reachForNode(
  config: { nodes: readonly NodeTarget[]; alerting?: AlertingSettings },
  nodeName: string,
  now = Date.now(),
): { line: string; receivers: string[] } | { error: string } {
  const node = config.nodes.find((n) => n.name === nodeName);
  if (!node) return { error: `no node named "${nodeName}"; configured: ${config.nodes.map((n) => n.name).join(', ')}` };
  const alerting = config.alerting;
  if (!alerting) return { error: 'no alerting: section in the config' };
  const windows = new MaintenanceWindows(alerting.maintenance);
  try {
    const reach = nodeAlertReach(
      node,
      alerting.routing,
      alerting.receivers,
      (labels, t) => windows.isSilenced(labels, t),
      now,
    );
    return { line: describeReach(reach), receivers: reach.receivers };
  } finally {
    windows.dispose();
  }
}
