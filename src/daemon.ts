// Wires the pipeline: config -> schedule -> probe -> state -> (metrics view, evidence,
// components such as the alert engine and status history) -> HTTP. Wiring only: each stage
// lives in its own module; this file connects them and hands every reload's one diff around.
import type { Server } from 'node:http';
import { hostname } from 'node:os';
import { agentPlatformRunner, AGENT_EVIDENCE_NODE } from './agent/lifecycle.js';
import { agentPlatformCollectors } from './agent/platform.js';
import type { DaemonComponent, DaemonContext } from './components.js';
import { diffConfig } from './config/diff.js';
import { secretsOf } from './config/secrets.js';
import type { ExporterConfig, ListenAddress, NodeTarget } from './domain.js';
import { createEvidenceApi, evidenceCollectors, EvidenceStore } from './evidence/index.js';
import type { EvidenceInput } from './evidence/record.js';
import { FleetUpstream } from './exposition/index.js';
import { HttpClient } from './http/client.js';
import type { Logger } from './logger.js';
import { MetricsView, type ExporterCounters, type RegistryExtension } from './metrics/view.js';
import { ProberPool } from './probe/probers.js';
import { probeRunner } from './probe/results.js';
import { Secrets } from './redact.js';
import { openFilesWarning, readOpenFilesLimit } from './schedule/openFiles.js';
import { Scheduler } from './schedule/scheduler.js';
import { buildServer, createRequestHandler, listen as listenOn } from './server.js';
import { DEFAULT_BACKOFF, FleetState, type BackoffPolicy } from './state/fleetState.js';
import { buildSnapshot, type FleetSnapshot } from './state/snapshot.js';
import { VERSION } from './version.js';
import type { WebConfig } from './web/webConfig.js';

export { AGENT_EVIDENCE_NODE };
export type { DaemonComponent, DaemonContext };

export interface DaemonOptions {
  logger: Logger;
  /** The run's secrets, shared with the logger; each accepted config adds its own. Default: a new set. */
  secrets?: Secrets;
  /** Overrides config.listen (the --listen flag). */
  listen?: ListenAddress;
  /** How long an unsupported probe waits before it is tried again. Default max(10 intervals, 1 min). */
  unsupportedRecheckMs?: (target: NodeTarget) => number;
  backoff?: BackoffPolicy;
  /** Evidence store off (tests of other parts). Default on. */
  evidence?: boolean;
  /** Registers extra collectors (agent platform) on each metrics registry. */
  extensions?: RegistryExtension[];
  /** TLS, basic auth and headers from --web.config.file; plain HTTP without it (same limits). */
  web?: WebConfig;
  /** Parts that join the daemon: routes, collectors, probe-result and reload listeners. */
  components?: DaemonComponent[];
  /** process_* and nodejs_* metrics; default on. */
  defaultMetrics?: boolean;
}

export interface Daemon {
  readonly url: string;
  readonly state: FleetState;
  config(): ExporterConfig;
  snapshot(): FleetSnapshot;
  /** The /metrics view (render it without HTTP, e.g. to time it). */
  metricsView(): MetricsView;
  ready(): boolean;
  /** Applies a validated config: unchanged nodes keep their state, removed ones vanish. */
  applyConfig(config: ExporterConfig): void;
  /** Counts a reload that failed validation (the running config stays); components hear of it. */
  noteReloadFailure(problems?: string[]): void;
  readonly evidence?: EvidenceStore;
  /** Scheduling figures (in flight, queued, tick lateness), for the benchmark and diagnostics. */
  readonly scheduling: Pick<Scheduler, 'stats' | 'resetLateness'>;
  close(graceMs?: number): Promise<void>;
}

const defaultRecheck = (t: NodeTarget) => Math.max(10 * t.intervalMs, 60_000);

export async function startDaemon(initial: ExporterConfig, opts: DaemonOptions): Promise<Daemon> {
  const log = opts.logger;
  const components = opts.components ?? [];
  const parts = await assemble(initial, opts, components);
  const { state, scheduler, evidence, client, agent, view, snapshot, current } = parts;
  // One set of evidence limits for /api/evidence and the node pages.
  const evidenceApi = createEvidenceApi(evidence ?? null);
  const handler = createRequestHandler({
    logger: log,
    version: VERSION,
    metrics: () => view,
    ready: () => state.ready(),
    snapshot,
    evidence: evidenceApi,
    routes: components.flatMap((c) => c.routes ?? []),
  });
  const server = buildServer(opts.web, handler);
  const url = await listenOrRelease(server, opts, initial.listen, async () => {
    await evidence?.close();
    await client.close();
  });
  checkOpenFiles(log, initial.nodes.length);
  scheduler.start(initial.nodes);
  agent?.start();
  const signals = () => ({
    pollOverruns: parts.counters.pollOverruns,
    evidenceWriteErrors: evidence?.stats().writeErrors ?? 0,
    agentKeyValid: agent?.checker.lastKeyVerdict()?.keyValid ?? undefined,
  });
  const ctx: DaemonContext = { config: () => current.config, snapshot, state, client, secrets: parts.secrets, logger: log, url, signals, evidence: evidence && evidenceApi };
  for (const c of components) await c.start?.(ctx);
  log.info({ url, nodes: initial.nodes.length, version: VERSION }, 'exporter listening');

  let closing: Promise<void> | undefined;
  return {
    url,
    state,
    config: () => current.config,
    snapshot,
    metricsView: () => view,
    ready: () => state.ready(),
    evidence,
    scheduling: scheduler,
    applyConfig: (next) => applyConfig(parts, next, opts, components),
    noteReloadFailure(problems = []) {
      parts.counters.configReloads.failure++;
      for (const c of components) c.onReloadRejected?.(problems);
    },
    close(graceMs = 5_000) {
      closing ??= shutdown({ agent, scheduler, components, evidence, server, client, log }, graceMs);
      return closing;
    },
  };
}

/** The pipeline's parts, built from the first config and not started yet. */
interface Parts {
  /** The config in use; a reload replaces it. */
  current: { config: ExporterConfig };
  secrets: Secrets;
  client: HttpClient;
  state: FleetState;
  probers: ProberPool;
  counters: ExporterCounters;
  evidence: EvidenceStore | undefined;
  scheduler: Scheduler;
  snapshot: () => FleetSnapshot;
  agent: ReturnType<typeof agentPlatformRunner> | undefined;
  view: MetricsView;
}

async function assemble(initial: ExporterConfig, opts: DaemonOptions, components: DaemonComponent[]): Promise<Parts> {
  const log = opts.logger;
  const current = { config: initial };
  const secrets = secretsOf(initial, opts.secrets ?? new Secrets());
  const client = new HttpClient({ secrets });
  client.fitNodes(initial.nodes);
  const state = new FleetState(initial.nodes, opts.backoff ?? DEFAULT_BACKOFF);
  const probers = new ProberPool(client, initial.polling, initial.nodes);
  const recheck = opts.unsupportedRecheckMs ?? defaultRecheck;
  const counters: ExporterCounters = { configReloads: { success: 0, failure: 0 }, pollOverruns: new Map() };
  const evidence =
    opts.evidence === false
      ? undefined
      : await EvidenceStore.open(initial.evidence, { logger: log.child({ component: 'evidence' }), secrets, runner: { hostname: hostname(), version: VERSION } });
  const recordEvidence = evidence && ((input: EvidenceInput) => void evidence.append(input));

  const scheduler = new Scheduler({
    concurrency: initial.polling.concurrency,
    // The view first: it prepares the node's lines for the next scrape as the result arrives.
    runProbe: probeRunner({ state, probers, logger: log, recordEvidence, listeners: [(_t, _r, node) => view.noteResult(node), ...components.flatMap((c) => c.onProbeResult ?? [])] }),
    isDue: (t, p, now) => state.due(t.name, p, now, recheck(t)),
    onOverrun: (_t, p) => void counters.pollOverruns.set(p, (counters.pollOverruns.get(p) ?? 0) + 1),
  });
  const snapshot = () => buildSnapshot(state.nodes(), current.config.networks, Date.now());
  const agent = initial.agentPlatform && agentPlatformRunner(initial.agentPlatform, { client, logger: log.child({ component: 'agent-platform' }), recordEvidence });
  const view = metricsView(opts, components, { snapshot, state, secrets, counters, evidence, agent, config: () => current.config });
  return { current, secrets, client, state, probers, counters, evidence, scheduler, snapshot, agent, view };
}

/** Applies a validated config: one diff, handed to every part. */
function applyConfig(parts: Parts, next: ExporterConfig, opts: DaemonOptions, components: DaemonComponent[]): void {
  const log = opts.logger;
  const prev = parts.current.config;
  const diff = diffConfig(prev, next, { listenOverridden: opts.listen !== undefined });
  secretsOf(next, parts.secrets);
  parts.state.setTargets(next.nodes);
  parts.probers.apply(diff);
  const { added, removed, changed } = diff.nodes;
  if (added.length + removed.length + changed.length > 0) parts.client.fitNodes(next.nodes);
  parts.current.config = next;
  parts.scheduler.setTargets(next.nodes);
  if (next.nodes.length > prev.nodes.length) checkOpenFiles(log, next.nodes.length);
  parts.view.setInfoLabelKeys(infoLabelKeys(next));
  for (const c of components) c.onReload?.(diff);
  parts.counters.configReloads.success++;
  if (diff.restartOnly.length > 0) log.warn({ settings: diff.restartOnly }, 'changes of these settings take effect at the next restart');
  log.info(diff.nodes, 'configuration reloaded');
}

function checkOpenFiles(log: Logger, nodes: number): void {
  const warning = openFilesWarning(nodes, readOpenFilesLimit());
  if (warning) log.warn({ nodes }, warning);
}

/** Listens; when that fails (EADDRINUSE and the like) nothing was started yet: release, then report. */
async function listenOrRelease(server: Server, opts: DaemonOptions, configured: ListenAddress, release: () => Promise<void>): Promise<string> {
  try {
    return await listenOn(server, opts.listen ?? configured, Boolean(opts.web?.tls));
  } catch (err) {
    await release();
    throw err;
  }
}

/** Stops in order: no new probes, probes in flight get graceMs, components, evidence flushed, sockets. */
async function shutdown(
  parts: { agent?: { stop(): void }; scheduler: Scheduler; components: DaemonComponent[]; evidence?: EvidenceStore; server: Server; client: HttpClient; log: Logger },
  graceMs: number,
): Promise<void> {
  parts.agent?.stop();
  const finished = await parts.scheduler.stop(graceMs);
  if (!finished) parts.log.warn({ graceMs }, 'probes still in flight at shutdown were abandoned');
  for (const c of parts.components) await c.stop?.();
  await parts.evidence?.close();
  await new Promise<void>((resolve) => {
    parts.server.close(() => resolve());
    parts.server.closeAllConnections?.();
  });
  await parts.client.close();
}

const infoLabelKeys = (c: ExporterConfig) => [...new Set(c.nodes.flatMap((n) => Object.keys(n.labels)))].sort();

/** The /metrics view, built once: a reload only changes the info label keys (registries are never rebuilt). */
function metricsView(
  opts: DaemonOptions,
  components: DaemonComponent[],
  parts: {
    snapshot: () => FleetSnapshot;
    state: FleetState;
    secrets: Secrets;
    counters: ExporterCounters;
    evidence: EvidenceStore | undefined;
    agent: ReturnType<typeof agentPlatformRunner> | undefined;
    config: () => ExporterConfig;
  },
): MetricsView {
  // Upstream families are prepared as each poll result arrives; a node echoing our secrets loses those series.
  // A Secrets set only grows: its size changes whenever scrub may answer otherwise.
  const upstream = new FleetUpstream(() => parts.state.nodes(), { scrub: (text) => parts.secrets.scrub(text), scrubVersion: () => parts.secrets.size });
  const extensions: RegistryExtension[] = [...(opts.extensions ?? []), (registry) => upstream.collectors(registry), ...components.flatMap((c) => c.collectors ?? [])];
  const { evidence, agent } = parts;
  if (evidence) {
    const evidenceNodes = () => [...parts.config().nodes.map((n) => n.name), ...(parts.config().agentPlatform ? [AGENT_EVIDENCE_NODE] : [])];
    extensions.push((registry) => evidenceCollectors(registry, evidence, evidenceNodes));
  }
  if (agent) extensions.push((registry) => agentPlatformCollectors(registry, agent.checker));
  return new MetricsView(
    { version: VERSION, infoLabelKeys: infoLabelKeys(parts.config()), extensions, defaultMetrics: opts.defaultMetrics },
    () => ({ snapshot: parts.snapshot(), upstream: upstream.sources(), counters: parts.counters }),
    (sources, om, out) => upstream.write(sources, om, out),
    (node) => upstream.prepare(node),
  );
}
