// How other parts join the daemon without editing it: the alert engine, the status history and
// their HTTP routes are DaemonComponents passed to startDaemon.
import type { ExporterSignals } from './alerting/types.js';
import type { ConfigDiff } from './config/diff.js';
import type { ExporterConfig } from './domain.js';
import type { LimitedEvidenceReader } from './evidence/api.js';
import type { HttpClient } from './http/client.js';
import type { Logger } from './logger.js';
import type { RegistryExtension } from './metrics/view.js';
import type { ProbeResultListener } from './probe/results.js';
import type { Secrets } from './redact.js';
import type { Route } from './server.js';
import type { FleetState } from './state/fleetState.js';
import type { FleetSnapshot } from './state/snapshot.js';

/** What a component may use once the daemon runs. */
export interface DaemonContext {
  config(): ExporterConfig;
  /** A fresh snapshot of the fleet (an alert engine evaluates these on its own interval). */
  snapshot(): FleetSnapshot;
  state: FleetState;
  /** The one outbound HTTP client (receivers POST through it). */
  client: HttpClient;
  secrets: Secrets;
  logger: Logger;
  /** The exporter's own address (http://host:port), for links and the `instance` label. */
  url: string;
  /** What the exporter knows about itself (poll overruns, evidence write errors, agent key verdict). */
  signals(): ExporterSignals;
  /**
   * The running evidence store's records, within /api/evidence's limits (shared with it); absent
   * when the store is off. Its directory is the one from start-up: a reload that changes
   * evidence.dir takes effect at the next restart.
   */
  evidence?: LimitedEvidenceReader;
}

export interface DaemonComponent {
  /** Names the component in logs. */
  name: string;
  /** Extra HTTP routes (/api/alerts, /api/v1/..., /nodes/...), tried after the built-in ones. */
  routes?: Route[];
  /** Collectors registered on the metrics registry. */
  collectors?: RegistryExtension;
  /** Each probe result, after it was applied to the state (status history). */
  onProbeResult?: ProbeResultListener;
  /** Each accepted reload, with the one diff every component sees. */
  onReload?(diff: ConfigDiff): void;
  /** Each reload refused by validation (the running config stays), with its problems. */
  onReloadRejected?(problems: string[]): void;
  /** Called once the server listens (so nothing is sent by a daemon that failed to start). */
  start?(ctx: DaemonContext): void | Promise<void>;
  /** Called at shutdown, before the evidence store is flushed. */
  stop?(): void | Promise<void>;
}
