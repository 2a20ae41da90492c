// Types of the on-call view: what a node's status is, why, and what the exporter does about it.
import type { FailureReason, ProbeName } from '../domain.js';

export const STATUS_KINDS = ['up', 'degraded', 'down', 'unknown'] as const;
export type StatusKind = (typeof STATUS_KINDS)[number];

/**
 * Why a node or probe is not plainly up, as a code plus one number, so history entries can keep
 * it in a few bytes; `detail` (live views only) carries text the node sent, already shortened.
 */
export const REASON_CODES = [
  'none',
  'timeout', // n = timeout in tenths of a second
  'refused',
  'unreachable',
  'tls',
  'http_proxy', // n = HTTP status; an HTML error page (a proxy in front of the node)
  'http_node', // n = HTTP status; the node's own answer
  'invalid', // answer not understood
  'rpc_error',
  'unhealthy', // /health status not "ok"
  'stalled', // n = seconds without a new block
  'behind', // n = blocks behind the highest node of the network
  'probes_failing', // n = bit mask of failing probes (PROBE_NAMES order)
  'not_polled',
] as const;
export type ReasonCode = (typeof REASON_CODES)[number];

export interface Reason {
  code: ReasonCode;
  n?: number;
  /** Text from the node or the probe (shortened, escaped when rendered); live views only. */
  detail?: string;
}

/** The last failure of one probe, as the status view needs it to explain itself. */
export interface ProbeFailure {
  at: number;
  reason: FailureReason;
  message: string;
  httpStatus?: number;
  /** The failing answer was an HTML page or came from a server other than the node (a proxy). */
  fromProxy: boolean;
}

export type ProbeOutcome = 'ok' | 'failing' | 'unsupported' | 'pending';

export interface ProbeStatus {
  probe: ProbeName;
  outcome: ProbeOutcome;
  reason?: Reason;
  text: string;
  lastRunAt?: number;
  durationMs?: number;
  lastSuccessAt?: number;
  consecutiveFailures: number;
  backingOff: boolean;
  nextCheckAt?: number;
}

export interface NodeStatus {
  name: string;
  network: string;
  status: StatusKind;
  /** Main reason first; empty when up. */
  reasons: Reason[];
  /** Words for the reasons, e.g. "timeout after 2 s". */
  text: string;
  /** When the node entered this status (known only if seen by this exporter). */
  since?: number;
  lastCheckAt?: number;
  nextCheckAt?: number;
  backingOff: boolean;
  height?: number;
  lagBlocks?: number;
  blockAgeSecs?: number;
  version?: string;
  peers?: number;
  labels: Record<string, string>;
  namespace?: string;
  probes: ProbeStatus[];
}

/** An alert of the built-in engine, as the status page shows it (supplied by the alerting side). */
export interface AlertView {
  name: string;
  severity: string;
  state: 'pending' | 'firing';
  labels: Record<string, string>;
  summary?: string;
  /** ms since the epoch */
  since?: number;
}

export type StatusEventKind =
  'node_down' | 'node_up' | 'node_degraded' | 'config_accepted' | 'config_rejected' | 'alert_firing' | 'alert_resolved';

export interface StatusEvent {
  at: number;
  kind: StatusEventKind;
  node?: string;
  text: string;
  /** A flapping node's status changes folded into this one line: how many, since when. */
  changes?: number;
  firstAt?: number;
  /** Times the folded node went down or degraded from up. */
  spells?: number;
}
