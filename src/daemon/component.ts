// How every feature joins the daemon: the evidence store, the agent platform, the re-exposed
// upstream families, the status pages, the built-in alerting, its heartbeat and the shard metrics
// are each one DaemonComponent (in their own folder's component.ts) handed to the pipeline, which
// knows none of them. A component uses only the hooks it needs; the pipeline calls them in order:
//   open (assembly, nothing sent yet) -> start (the server listens, polling runs) ->
//   onProbeResult / onReload / onReloadRejected while running ->
//   halt (shutdown begins) -> stop (probes in flight are done) -> close (last, also when start-up fails).
import type { ExporterSignals } from '../alerting/rules/types.js';
import type { Clock } from '../clock/clock.js';
import type { ConfigDiff } from '../config/diff.js';
import type { NodeTarget, ProbeResult } from '../domain.js';
import type { ExporterConfig } from '../config/exporterConfig.js';
import type { EvidenceApi, LimitedEvidenceReader } from '../evidence/api.js';
import type { EvidenceInput } from '../evidence/record.js';
import type { PreparedUpstream } from '../exposition/index.js';
import type { HttpClient } from '../http/client.js';
import type { Logger } from '../logger.js';
import type { RegistryExtension } from '../metrics/view.js';
import type { Secrets } from '../redact.js';
import type { Endpoint, Route } from '../web/route.js';
import type { FleetState, NodeState } from '../state/fleetState.js';
import type { FleetSnapshot } from '../state/snapshot.js';
import type { TextOut } from '../metrics/byteWriter.js';

/** Called with each probe result once it was applied to the node's state. */
export type ProbeResultListener = (target: NodeTarget, result: ProbeResult, node: NodeState) => void;

/** What a component may use while the daemon is assembled, before the server listens. */
export interface AssemblyContext {
  /** The config the daemon starts with. */
  readonly initial: ExporterConfig;
  /** The config in use (a reload replaces it). */
  config(): ExporterConfig;
  logger: Logger;
  secrets: Secrets;
  /** The one outbound HTTP client. */
  client: HttpClient;
  state: FleetState;
  /** Hands a record to every component that keeps evidence (probe results go there too). */
  recordEvidence(input: EvidenceInput): void;
  /** The names evidence is kept under: the config's nodes and those components add. */
  evidenceNodes(): string[];
}

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
  /** The daemon's clock pair: durations on `mono`, labels for people on `wall`. */
  clock: Clock;
  /** What the exporter knows about itself (poll overruns, evidence write errors, agent key verdict). */
  signals(): ExporterSignals;
  /**
   * The running evidence store's records, within /api/evidence's limits (shared with it); absent
   * when the store is off. Its directory is the one from start-up: a reload that changes
   * evidence.dir takes effect at the next restart.
   */
  evidence?: LimitedEvidenceReader;
}

/** Families written after the exporter's own at each scrape (a node's re-exposed /metrics). */
export interface Reexposition {
  /** Called as a result arrives, so a scrape only copies what is prepared. */
  prepare(node: NodeState): void;
  /** The prepared sources, taken once as a scrape starts. */
  sources(): Iterable<PreparedUpstream>;
  /** Writes the families into `out`; when it returns steps, the scrape runs them (it may pause between two). */
  write(sources: Iterable<PreparedUpstream>, openMetrics: boolean, out: TextOut): Iterable<unknown> | void;
}

export interface DaemonComponent {
  /** Names the component in logs. */
  name: string;
  /** Builds what it needs from the first config (a store, a runner); sends nothing yet. */
  open?(ctx: AssemblyContext): void | Promise<void>;
  /**
   * Extra HTTP routes (/api/alerts, /api/v1/..., /nodes/...), tried after the built-in ones: each
   * declared by method and path (web/route.ts); a bare Route function is a GET route for any path.
   */
  routes?: (Endpoint | Route)[];
  /** Collectors registered on the metrics registry (read after open). */
  collectors?: RegistryExtension;
  /** Families re-exposed after the exporter's own (at most one component has them). */
  reexposition?: Reexposition;
  /** Adds the component's part to each fresh snapshot (fan-out reads, the watch), before anyone reads it. */
  addToSnapshot?(snapshot: FleetSnapshot): void;
  /** Each probe result, after it was applied to the state (status history). */
  onProbeResult?: ProbeResultListener;
  /** Keeps a record of evidence (every component's and every probe result's records reach it). */
  recordEvidence?(input: EvidenceInput): void;
  /** /api/evidence and the reader other components get as `DaemonContext.evidence`. */
  evidenceApi?(): EvidenceApi | undefined;
  /** Names, besides the config's nodes, that this component keeps evidence under. */
  evidenceNodes?(config: ExporterConfig): string[];
  /** What this component adds to the exporter's signals (evidence write errors, key verdict). */
  signals?(): Partial<ExporterSignals>;
  /** Each accepted reload, with the one diff every component sees. */
  onReload?(diff: ConfigDiff): void;
  /** Each reload refused by validation (the running config stays), with its problems. */
  onReloadRejected?(problems: string[]): void;
  /** Called once the server listens (so nothing is sent by a daemon that failed to start). */
  start?(ctx: DaemonContext): void | Promise<void>;
  /** Problems a person must know of while the exporter still works (shown on /readyz). */
  problems?(): string[];
  /** Shutdown begins: start no new work (called before probes in flight are awaited). */
  halt?(): void;
  /** Called at shutdown once probes in flight are done, before any component closes. */
  stop?(): void | Promise<void>;
  /** Releases what open built (flushes the evidence store): last at shutdown, or when start-up fails. */
  close?(): void | Promise<void>;
}
