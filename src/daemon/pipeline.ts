// The pipeline: config -> schedule -> probe -> state -> metrics view -> HTTP. Every feature
// (evidence, agent platform, upstream, status, alerting, heartbeat, shard) joins it as a
// DaemonComponent (component.ts); this file connects them and hands every reload's one diff around.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SYSTEM_CLOCK, wallOffset, type Clock } from '../clock/clock.js';
import { ClockStepWatch } from '../clock/steps.js';
import { diffConfig } from '../config/diff.js';
import { secretsOf } from '../config/secrets.js';
import { loadSectionsFor } from '../config/sections/index.js';
import type { ListenAddress, NodeTarget } from '../domain.js';
import type { ExporterConfig } from '../config/exporterConfig.js';
import type { EvidenceInput } from '../evidence/record.js';
import { certExpiryListener } from '../http/certExpiry.js';
import { HttpClient } from '../http/client.js';
import type { Logger } from '../logger.js';
import { MetricsView, type ExporterCounters, type RegistryExtension } from '../metrics/view.js';
import { ProberPool } from '../probe/probers.js';
import { probeRunner } from '../probe/results.js';
import { Secrets } from '../redact.js';
import { openFilesWarning, readOpenFilesLimit } from '../schedule/openFiles.js';
import { Scheduler } from '../schedule/scheduler.js';
import { buildServer, createRequestHandler, listen as listenOn } from '../server.js';
import { DEFAULT_BACKOFF, FleetState, type BackoffPolicy } from '../state/fleetState.js';
import { buildSnapshot, type FleetSnapshot } from '../state/snapshot.js';
import { VERSION } from '../version.js';
import type { WebConfig } from '../web/webConfig.js';
import { unknownWriters, WriteTokens, type WritePolicy } from '../web/writeAccess.js';
import type { AssemblyContext, DaemonComponent, DaemonContext } from './component.js';
import { closeAll, shutdown, startAll } from './componentLifecycle.js';
import type { ExporterSignals } from '../alerting/rules/types.js';

export interface PipelineOptions {
  logger: Logger;
  /** The run's secrets, shared with the logger; each accepted config adds its own. Default: a new set. */
  secrets?: Secrets;
  /** Overrides config.listen (the --listen flag). */
  listen?: ListenAddress;
  /** How long an unsupported probe waits before it is tried again. Default max(10 intervals, 1 min). */
  unsupportedRecheckMs?: (target: NodeTarget) => number;
  backoff?: BackoffPolicy;
  /** Registers extra collectors on each metrics registry. */
  extensions?: RegistryExtension[];
  /** TLS, basic auth and headers from --web.config.file; plain HTTP without it (same limits). */
  web?: WebConfig;
  /** process_* and nodejs_* metrics; default on. */
  defaultMetrics?: boolean;
  /** The clock pair every part measures and labels with (tests); default the system's. */
  clock?: Clock;
}

export interface Pipeline {
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
  /** Scheduling figures (in flight, queued, tick lateness), for the benchmark and diagnostics. */
  readonly scheduling: Pick<Scheduler, 'stats' | 'resetLateness'>;
  close(graceMs?: number): Promise<void>;
}

/** Who may write: the web config's users, the running config's writers (warned about when unknown). */
function writePolicy(web: WebConfig | undefined, config: () => ExporterConfig, log: Logger): WritePolicy {
  const strangers = unknownWriters(web?.basicAuthUsers, config().alerting?.api?.writers);
  if (strangers.length > 0)
    log.warn({ writers: strangers }, 'alerting.api.writers names users not in basic_auth_users');
  return { users: web?.basicAuthUsers, writers: () => config().alerting?.api?.writers, tokens: new WriteTokens() };
}

const defaultRecheck = (t: NodeTarget) => Math.max(10 * t.intervalMs, 60_000);

/** Assembles the pipeline with `components`, listens, starts polling, then starts the components. */
export async function startPipeline(
  initial: ExporterConfig,
  opts: PipelineOptions,
  components: DaemonComponent[],
): Promise<Pipeline> {
  const log = opts.logger;
  // A config built in the process (not read by readConfig) may have a section whose module is not loaded yet.
  await loadSectionsFor(initial);
  const parts = await assemble(initial, opts, components);
  const { state, scheduler, client, view, snapshot, current } = parts;
  const evidence = components.map((c) => c.evidenceApi?.()).find((api) => api !== undefined);
  const handler = createRequestHandler({
    logger: log,
    version: VERSION,
    metrics: () => view,
    ready: () => state.ready(),
    snapshot,
    evidence,
    routes: components.flatMap((c) => c.routes ?? []),
    problems: () => components.flatMap((c) => c.problems?.() ?? []),
    writePolicy: writePolicy(opts.web, () => current.config, log),
  });
  const server = buildServer(opts.web, handler);
  const url = await listenOrRelease(server, opts, initial.listen, async () => {
    await closeAll(components);
    await client.close();
  });
  checkOpenFiles(log, initial.nodes.length);
  const steps = watchClockSteps(parts.clock, log, parts.counters);
  scheduler.start(initial.nodes);
  const signals = (): ExporterSignals => {
    const base: ExporterSignals = {
      pollOverruns: parts.counters.pollOverruns,
      evidenceWriteErrors: 0,
      agentKeyValid: undefined,
    };
    for (const c of components) Object.assign(base, c.signals?.());
    return base;
  };
  const ctx: DaemonContext = {
    config: () => current.config,
    snapshot,
    state,
    client,
    secrets: parts.secrets,
    logger: log,
    url,
    clock: parts.clock,
    signals,
    evidence,
  };
  await startAll(components, ctx, async (started) => {
    steps.stop();
    await shutdown({ scheduler, components, started, server, client, log }, 0);
  });
  // The address bound (0.0.0.0 when listening on all interfaces) beside the URL to open.
  log.info({ url, listen: boundAddress(server), nodes: initial.nodes.length, version: VERSION }, 'exporter listening');

  let closing: Promise<void> | undefined;
  return {
    url,
    state,
    config: () => current.config,
    snapshot,
    metricsView: () => view,
    ready: () => state.ready(),
    scheduling: scheduler,
    applyConfig: (next) => applyConfig(parts, next, opts, components),
    noteReloadFailure(problems = []) {
      parts.counters.configReloads.failure++;
      for (const c of components) c.onReloadRejected?.(problems);
    },
    close(graceMs = 5_000) {
      steps.stop();
      closing ??= shutdown({ scheduler, components, server, client, log }, graceMs);
      return closing;
    },
  };
}

/** The pipeline's parts, built from the first config and not started yet. */
interface Parts {
  /** The config in use; a reload replaces it. */
  current: { config: ExporterConfig };
  clock: Clock;
  secrets: Secrets;
  client: HttpClient;
  state: FleetState;
  probers: ProberPool;
  counters: ExporterCounters;
  scheduler: Scheduler;
  snapshot: () => FleetSnapshot;
  view: MetricsView;
}

async function assemble(initial: ExporterConfig, opts: PipelineOptions, components: DaemonComponent[]): Promise<Parts> {
  const log = opts.logger;
  const current = { config: initial };
  const clock = opts.clock ?? SYSTEM_CLOCK;
  const secrets = secretsOf(initial, opts.secrets ?? new Secrets());
  const client = new HttpClient({ secrets });
  client.fitNodes(initial.nodes);
  const state = new FleetState(initial.nodes, opts.backoff ?? DEFAULT_BACKOFF);
  const probers = new ProberPool(client, initial.polling, initial.nodes);
  const recheck = opts.unsupportedRecheckMs ?? defaultRecheck;
  const counters: ExporterCounters = {
    configReloads: { success: 0, failure: 0 },
    pollOverruns: new Map(),
    clockSteps: 0,
  };
  const keepers = components.filter((c) => c.recordEvidence);
  const recordEvidence = (input: EvidenceInput) => keepers.forEach((c) => c.recordEvidence!(input));
  const evidenceNodes = () => [
    ...current.config.nodes.map((n) => n.name),
    ...components.flatMap((c) => c.evidenceNodes?.(current.config) ?? []),
  ];
  const assembly: AssemblyContext = {
    initial,
    config: () => current.config,
    logger: log,
    secrets,
    client,
    state,
    recordEvidence,
    evidenceNodes,
  };
  const opened: DaemonComponent[] = [];
  try {
    for (const c of components) {
      opened.push(c);
      await c.open?.(assembly);
    }
  } catch (err) {
    await closeAll(opened);
    throw err;
  }
  const reexposition = components.find((c) => c.reexposition)?.reexposition;
  const scheduler = new Scheduler({
    concurrency: initial.polling.concurrency,
    clock,
    // The view first: it prepares the node's lines for the next scrape as the result arrives.
    runProbe: probeRunner({
      state,
      probers,
      clock,
      logger: log,
      recordEvidence: keepers.length > 0 ? recordEvidence : undefined,
      listeners: [
        certExpiryListener(client),
        (_t, _r, node) => view.noteResult(node),
        ...components.flatMap((c) => c.onProbeResult ?? []),
      ],
    }),
    isDue: (t, p, now) => state.due(t.name, p, now, recheck(t)),
    onOverrun: (_t, p) => void counters.pollOverruns.set(p, (counters.pollOverruns.get(p) ?? 0) + 1),
  });
  const snapshot = () => {
    const snap = buildSnapshot(state.nodes(), current.config.networks, clock.mono(), wallOffset(clock));
    for (const c of components) c.addToSnapshot?.(snap);
    return snap;
  };
  const extensions: RegistryExtension[] = [
    ...(opts.extensions ?? []),
    ...components.flatMap((c) => c.collectors ?? []),
  ];
  // The view is built once: a reload only changes the info label keys (registries are never rebuilt).
  const view = new MetricsView(
    { version: VERSION, infoLabelKeys: infoLabelKeys(initial), extensions, defaultMetrics: opts.defaultMetrics },
    () => ({ snapshot: snapshot(), upstream: reexposition?.sources() ?? [], counters }),
    (sources, om, out) => reexposition?.write(sources, om, out),
    reexposition && ((node) => reexposition.prepare(node)),
  );
  return { current, clock, secrets, client, state, probers, counters, scheduler, snapshot, view };
}

/** Applies a validated config: one diff, handed to every part. */
function applyConfig(parts: Parts, next: ExporterConfig, opts: PipelineOptions, components: DaemonComponent[]): void {
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
  if (diff.restartOnly.length > 0)
    log.warn({ settings: diff.restartOnly }, 'changes of these settings take effect at the next restart');
  log.info(diff.nodes, 'configuration reloaded');
}

/** Logs each step of the wall clock once and counts it; nothing measured depends on it. */
function watchClockSteps(clock: Clock, log: Logger, counters: ExporterCounters): ClockStepWatch {
  const watch = new ClockStepWatch(clock, ({ stepMs, wallAfter }) => {
    counters.clockSteps = (counters.clockSteps ?? 0) + 1;
    const by = `${stepMs > 0 ? '+' : '-'}${(Math.abs(stepMs) / 1000).toFixed(1)} s`;
    const what =
      'polling and alert timers run on the monotonic clock and are unaffected; times shown from now on follow ' +
      'the new wall clock';
    log.warn(
      { stepMs: Math.round(stepMs), wallNow: new Date(wallAfter).toISOString() },
      `wall clock stepped ${by}: ${what}`,
    );
  });
  watch.start();
  return watch;
}

function checkOpenFiles(log: Logger, nodes: number): void {
  const warning = openFilesWarning(nodes, readOpenFilesLimit());
  if (warning) log.warn({ nodes }, warning);
}

/** Listens; when that fails (EADDRINUSE and the like) nothing was started yet: release, then report. */
async function listenOrRelease(
  server: Server,
  opts: PipelineOptions,
  configured: ListenAddress,
  release: () => Promise<void>,
): Promise<string> {
  try {
    return await listenOn(server, opts.listen ?? configured, Boolean(opts.web?.tls));
  } catch (err) {
    await release();
    throw err;
  }
}

function boundAddress(server: Server): string {
  const addr = server.address() as AddressInfo;
  return addr.family === 'IPv6' ? `[${addr.address}]:${addr.port}` : `${addr.address}:${addr.port}`;
}

const infoLabelKeys = (c: ExporterConfig) => [...new Set(c.nodes.flatMap((n) => Object.keys(n.labels)))].sort();
