// Wires the pipeline: config -> schedule -> probe -> state -> (metrics view, evidence) -> HTTP.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { hostname } from 'node:os';
import type { AddressInfo } from 'node:net';
import type { ExporterConfig, ListenAddress, NodeTarget, ProbeName, ProbeResult } from './domain.js';
import { AgentPlatformChecker, agentPlatformCollectors } from './agent/platform.js';
import { evidenceApiResponse, evidenceCollectors, EvidenceStore } from './evidence/index.js';
import { FleetUpstream } from './exposition/index.js';
import type { Logger } from './logger.js';
import { MetricsView, type ExporterCounters, type RegistryExtension } from './metrics/view.js';
import { secretsOf } from './config/secrets.js';
import { HttpClient } from './http/client.js';
import { Secrets } from './redact.js';
import { NodeProber } from './probe/prober.js';
import { Scheduler } from './schedule/scheduler.js';
import { createRequestHandler } from './server.js';
import { DEFAULT_BACKOFF, FleetState, type BackoffPolicy, type NodeState } from './state/fleetState.js';
import { buildSnapshot, type FleetSnapshot } from './state/snapshot.js';
import { VERSION } from './version.js';

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
  /** Builds the HTTP server (TLS, basic auth and headers from --web.config.file). */
  createServer?: (handler: (req: IncomingMessage, res: ServerResponse) => void) => Server;
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
  /** Counts a reload that failed validation (the running config stays). */
  noteReloadFailure(): void;
  readonly evidence?: EvidenceStore;
  /** Scheduling figures (in flight, queued, tick lateness), for the benchmark and diagnostics. */
  readonly scheduling: Pick<Scheduler, 'stats' | 'resetLateness'>;
  close(graceMs?: number): Promise<void>;
}

/** The `node` of evidence records about the agent platform. */
export const AGENT_EVIDENCE_NODE = 'agent-platform';

const defaultRecheck = (t: NodeTarget) => Math.max(10 * t.intervalMs, 60_000);

export async function startDaemon(initial: ExporterConfig, opts: DaemonOptions): Promise<Daemon> {
  const log = opts.logger;
  let config = initial;
  const secrets = secretsOf(config, opts.secrets ?? new Secrets());
  const client = new HttpClient({ secrets });
  const state = new FleetState(config.nodes, opts.backoff ?? DEFAULT_BACKOFF);
  const probers = new Map<string, NodeProber>();
  const recheck = opts.unsupportedRecheckMs ?? defaultRecheck;
  const counters: ExporterCounters = { configReloads: { success: 0, failure: 0 }, pollOverruns: new Map() };

  const evidence =
    opts.evidence === false
      ? undefined
      : await EvidenceStore.open(config.evidence, { logger: log.child({ component: 'evidence' }), secrets, runner: { hostname: hostname(), version: VERSION } });

  const syncProbers = () => {
    const names = new Set(config.nodes.map((n) => n.name));
    for (const name of probers.keys()) if (!names.has(name)) probers.delete(name);
    for (const t of config.nodes) {
      const old = probers.get(t.name);
      if (!old || JSON.stringify(old.target) !== JSON.stringify(t)) {
        probers.set(t.name, new NodeProber(t, { client, maxResponseBytes: config.polling.maxResponseBytes, maxUpstreamSeries: config.polling.maxUpstreamSeries }));
      }
    }
  };
  syncProbers();

  const recordEvidence = (target: NodeTarget, result: ProbeResult & { kind: 'failed' }, node: NodeState) => {
    if (!evidence || !result.response || result.response.status < 500) return;
    const ps = node.probes.get(result.probe);
    void evidence.append({
      node: target.name,
      network: target.network,
      url: target.url,
      probe: result.probe,
      method: result.response.method,
      status: result.response.status,
      durationMs: result.durationMs,
      attempt: ps?.consecutiveFailures ?? 1,
      headers: result.response.headers,
      body: result.response.body,
      runnerStatus: { consecutiveFailures: ps?.consecutiveFailures ?? 1, lastSuccess: node.lastSuccessAt ?? null },
    });
  };

  const runProbe = async (target: NodeTarget, probe: ProbeName) => {
    const prober = probers.get(target.name);
    if (!prober) return;
    const result = await prober.run(probe);
    const node = state.get(target.name);
    if (!node) return; // removed by a reload while the probe ran
    const lastOk = node.probes.get(probe)?.lastRun?.ok;
    const outcome = state.apply(target.name, result, result.kind === 'failed' ? result.response?.headers['retry-after'] : undefined);
    if (outcome.restarted) {
      prober.resetNamespace();
      log.info({ node: target.name }, 'node restarted or changed build: re-detecting namespace and methods');
    }
    if (result.kind === 'failed') {
      recordEvidence(target, result, node);
      if (lastOk !== false) log.warn({ node: target.name, probe, reason: result.reason, status: result.httpStatus }, `probe failed: ${result.message}`);
    } else if (result.kind === 'ok' && lastOk === false) {
      log.info({ node: target.name, probe }, 'probe recovered');
    } else if (result.kind === 'unsupported') {
      log.debug({ node: target.name, probe }, result.message);
    }
  };

  const scheduler = new Scheduler({
    concurrency: config.polling.concurrency,
    runProbe,
    isDue: (t, p, now) => state.due(t.name, p, now, recheck(t)),
    onOverrun: (t, p) => {
      counters.pollOverruns.set(p, (counters.pollOverruns.get(p) ?? 0) + 1);
    },
  });

  const snapshot = () => buildSnapshot(state.nodes(), config.networks, Date.now());
  // Upstream families are prepared once per poll result; a node echoing our secrets loses those series.
  const upstream = new FleetUpstream(() => state.nodes(), { scrub: (text) => secrets.scrub(text) });

  const extensions: RegistryExtension[] = [...(opts.extensions ?? []), (registry) => upstream.collectors(registry)];
  if (evidence) {
    const evidenceNodes = () => [...config.nodes.map((n) => n.name), ...(config.agentPlatform ? [AGENT_EVIDENCE_NODE] : [])];
    extensions.push((registry) => evidenceCollectors(registry, evidence, evidenceNodes));
  }
  const agent = agentPlatform(config, opts, client, evidence);
  if (agent) extensions.push((registry) => agentPlatformCollectors(registry, agent.checker));
  const infoLabelKeys = () => [...new Set(config.nodes.flatMap((n) => Object.keys(n.labels)))].sort();
  // Built once: a reload only changes the info label keys (registries are never rebuilt).
  const view = new MetricsView(
    { version: VERSION, infoLabelKeys: infoLabelKeys(), extensions, defaultMetrics: opts.defaultMetrics },
    () => ({ snapshot: snapshot(), upstream: upstream.sources(), counters }),
    (sources, om, write) => upstream.write(sources, om, write),
  );

  const handler = createRequestHandler({
    logger: log,
    version: VERSION,
    metrics: () => view,
    ready: () => state.ready(),
    snapshot,
    evidence: { handle: (params) => evidenceApiResponse(evidence ?? null, params) },
  });
  const server = opts.createServer ? opts.createServer(handler) : createServer(handler);
  // Slow or idle clients cannot hold sockets for long.
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.keepAliveTimeout = 5_000;
  const listen = opts.listen ?? config.listen;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(listen.port, listen.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    // Nothing was started yet: release what was opened, then report (EADDRINUSE and the like).
    await evidence?.close();
    await client.close();
    throw err;
  }
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const scheme = opts.createServer && 'setSecureContext' in server ? 'https' : 'http';
  const url = `${scheme}://${host === '0.0.0.0' ? '127.0.0.1' : host === '[::]' ? '[::1]' : host}:${addr.port}`;
  scheduler.start(config.nodes);
  agent?.start();
  log.info({ url, nodes: config.nodes.length, version: VERSION }, 'exporter listening');

  let closing: Promise<void> | undefined;
  return {
    url,
    state,
    config: () => config,
    snapshot,
    metricsView: () => view,
    ready: () => state.ready(),
    evidence,
    scheduling: scheduler,
    applyConfig(next) {
      const restartOnly = restartOnlyChanges(config, next, opts.listen !== undefined);
      secretsOf(next, secrets);
      const diff = state.setTargets(next.nodes);
      config = next;
      syncProbers();
      scheduler.setTargets(next.nodes);
      view.setInfoLabelKeys(infoLabelKeys());
      counters.configReloads.success++;
      if (restartOnly.length > 0) log.warn({ settings: restartOnly }, 'changes of these settings take effect at the next restart');
      log.info(diff, 'configuration reloaded');
    },
    noteReloadFailure() {
      counters.configReloads.failure++;
    },
    close(graceMs = 5_000) {
      closing ??= (async () => {
        agent?.stop();
        const finished = await scheduler.stop(graceMs);
        if (!finished) log.warn({ graceMs }, 'probes still in flight at shutdown were abandoned');
        await evidence?.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections?.();
        });
        await client.close();
      })();
      return closing;
    },
  };
}

/**
 * Sections read once at start-up (server socket, evidence store, probe limits, platform checker)
 * that differ between two configs. A listen overridden by --listen is never the config's.
 */
function restartOnlyChanges(prev: ExporterConfig, next: ExporterConfig, listenOverridden: boolean): string[] {
  const sections = ['listen', 'evidence', 'polling', 'agentPlatform'] as const;
  return sections.filter((k) => !(k === 'listen' && listenOverridden) && JSON.stringify(prev[k]) !== JSON.stringify(next[k]));
}

/**
 * The agent platform key check on its own interval; 5xx answers become evidence like a node's.
 * Created with the daemon (its metrics need it), started only once the server listens, so a
 * daemon that fails to start never calls the platform.
 */
function agentPlatform(config: ExporterConfig, opts: DaemonOptions, client: HttpClient, evidence: EvidenceStore | undefined) {
  const settings = config.agentPlatform;
  if (!settings) return undefined;
  let failures = 0;
  let lastSuccess: number | null = null;
  const checker = new AgentPlatformChecker(settings, {
    client,
    logger: opts.logger.child({ component: 'agent-platform' }),
    onServerError: (info) => {
      void evidence?.append({
        node: AGENT_EVIDENCE_NODE,
        network: AGENT_EVIDENCE_NODE,
        url: info.url,
        probe: 'agentPlatform',
        method: 'GET /api/agents/me',
        status: info.status,
        durationMs: info.durationMs,
        attempt: failures + 1,
        headers: info.headers,
        body: info.body,
        runnerStatus: { consecutiveFailures: failures + 1, lastSuccess },
      });
    },
  });
  const run = () =>
    void checker.check().then((c) => {
      if (c.up && c.status !== undefined && c.status < 300) {
        failures = 0;
        lastSuccess = c.at;
      } else failures++;
    });
  let timer: NodeJS.Timeout | undefined;
  return {
    checker,
    start() {
      run();
      timer = setInterval(run, settings.intervalMs);
      timer.unref();
    },
    stop: () => clearInterval(timer),
  };
}
