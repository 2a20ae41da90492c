// Set-up shared by the tests that run the built-in alerting inside a daemon in this process: a
// config over simulated nodes with only the alerts under test enabled, the daemon with its log
// captured, a loopback webhook receiver, a whole rig of the three, and closing it.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { alertingComponent, type AlertingComponent } from '../../src/alerting/component.js';
import { ALERT_DEFINITIONS } from '../../src/alerting/rules/definitions/index.js';
import type { RuleOverride } from '../../src/alerting/rules/params.js';
import type { AlertingSettings } from '../../src/alerting/settings.js';
import { startDaemon, type Daemon } from '../../src/daemon/index.js';
import type { ExporterConfig } from '../../src/config/exporterConfig.js';
import { createLogger } from '../../src/logger.js';
import { Secrets } from '../../src/redact.js';
import { SimFleet } from '../../src/sim/index.js';
import { jsonLines } from './cliProcess.js';

/** Every contract alert disabled except the ones given, with their overrides. */
export function onlyRules(enabled: Record<string, RuleOverride>): Record<string, RuleOverride> {
  return { ...Object.fromEntries(ALERT_DEFINITIONS.map((d) => [d.name, { enabled: false }])), ...enabled };
}

/**
 * Alerting with only LedgerNodeDown (firing after 500 ms, evaluated every 250 ms), grouped by alert
 * name and sent to one webhook receiver named `hook`; state under `dir`.
 */
export function nodeDownToWebhook(dir: string, url: string): AlertingSettings {
  return {
    stateDir: path.join(dir, 'state'),
    evaluationIntervalMs: 250,
    runbookBase: 'https://git.example.org/lfe/alerts/RUNBOOKS.md',
    rules: onlyRules({ LedgerNodeDown: { enabled: true, forMs: 500, keepFiringForMs: 0 } }),
    routing: {
      groupBy: ['alertname'],
      groupWaitMs: 200,
      groupIntervalMs: 1000,
      repeatIntervalMs: 3_600_000,
      sendResolved: true,
      routes: [],
      receivers: ['hook'],
    },
    receivers: [{ name: 'hook', kind: 'webhook', url, headers: {}, timeoutMs: 5000 }],
    maintenance: [],
  };
}

export interface AlertingFleetOptions {
  dir: string;
  network: string;
  intervalMs: number;
  timeoutMs: number;
  concurrency: number;
  maxUpstreamSeries: number;
  alerting: AlertingSettings;
}

/** The nodes polled for health and blockNumber only (what node alerts need), evidence under `dir`. */
export function alertingFleetConfig(
  nodes: ReadonlyArray<{ name: string; url: string }>,
  o: AlertingFleetOptions,
): ExporterConfig {
  return {
    listen: { host: '127.0.0.1', port: 0 },
    polling: { concurrency: o.concurrency, maxResponseBytes: 1024 * 1024, maxUpstreamSeries: o.maxUpstreamSeries },
    nodes: nodes.map((n) => ({
      name: n.name,
      url: n.url,
      network: o.network,
      labels: {},
      intervalMs: o.intervalMs,
      timeoutMs: o.timeoutMs,
      rpcNamespace: 'auto',
      probes: ['health', 'blockNumber'],
      headers: {},
    })),
    networks: {},
    evidence: { dir: path.join(o.dir, 'evidence'), maxBytes: 1024 * 1024, maxAgeDays: 1 },
    alerting: o.alerting,
  };
}

/** A daemon running only the built-in alerting, its log (info and up, secrets scrubbed) kept as text. */
export async function startAlertingDaemon(
  config: ExporterConfig,
  alerting: AlertingComponent = alertingComponent(),
): Promise<{ daemon: Daemon; log: () => string }> {
  let text = '';
  const secrets = new Secrets();
  const destination = new Writable({ write: (chunk: Buffer, _e, cb) => ((text += chunk.toString()), cb()) });
  const daemon = await startDaemon(config, {
    logger: createLogger({ level: 'info', destination, secrets }),
    secrets,
    defaultMetrics: false,
    components: [alerting],
  });
  return { daemon, log: () => text };
}

/**
 * Deliveries a daemon's log (startAlertingDaemon) records to `receiver` (all, when undefined): a
 * delivery is counted, timed and logged once the answer is back, which can be after the receiver
 * saw the notification.
 */
export function deliveriesLogged(log: string, receiver?: string): number {
  return jsonLines(log).filter(
    (l) => l.msg === 'notification sent' && (receiver === undefined || l.receiver === receiver),
  ).length;
}

/** Closes a loopback receiver and the connections the exporter keeps open to it. */
export async function closeServer(server: Server | undefined): Promise<void> {
  if (!server) return;
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
}

/**
 * Tears down what an alerting test started, any part of which may be missing (set-up failed half
 * way): the daemon first, so it stops sending, then the fleet, the receiver and the directory.
 */
export async function closeAlertingRig(rig: {
  daemon?: { close(): Promise<unknown> };
  fleet?: { close(): Promise<unknown> };
  receiver?: Server;
  dir?: string;
}): Promise<void> {
  await rig.daemon?.close();
  await rig.fleet?.close();
  await closeServer(rig.receiver);
  if (rig.dir) rmSync(rig.dir, { recursive: true, force: true });
}

/** What a webhook notification carries that the tests read. */
export interface WebhookBody {
  status?: string;
  alerts?: Array<{ status: string; labels: Record<string, string> }>;
}

/** A notification as a test records it: when, its status, the nodes it names. */
export interface Notified {
  at: number;
  status: string;
  nodes: string[];
}

/**
 * A webhook receiver on loopback: each POST's JSON body goes to `onBody`, which may return how
 * long to hold the answer (ms); the answer is 200. Other methods get 200 at once.
 */
export async function startWebhook(
  onBody: (body: WebhookBody) => number | void,
): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    if (req.method !== 'POST') return res.writeHead(200).end();
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (text += c));
    req.on('end', () => {
      const holdMs = onBody(JSON.parse(text || '{}') as WebhookBody) ?? 0;
      setTimeout(() => res.writeHead(200).end('{}'), holdMs);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` };
}

/** One simulated node under a daemon that pages its going down to a webhook whose first answer is held. */
export interface HeldAnswerRig {
  dir: string;
  fleet: SimFleet;
  daemon: Daemon;
  hook: Server;
  config: ExporterConfig;
  /** Resolves when the first notification arrives; its answer is then held `holdMs`. */
  firstPost: Promise<void>;
  close(): Promise<void>;
}

/**
 * Node `name` (network `network`) polled every 300 ms by a daemon (log silent) running only
 * LedgerNodeDown to a loopback webhook; each notification's body goes to `onBody`. The first
 * answer is held `holdMs`, so a reload can land while that send is in flight.
 */
export async function startHeldAnswerRig(o: {
  name: string;
  network: string;
  holdMs: number;
  onBody?: (body: WebhookBody) => void;
}): Promise<HeldAnswerRig> {
  const rig: Partial<HeldAnswerRig> = { dir: mkdtempSync(path.join(tmpdir(), `lfe-alerting-${o.network}-`)) };
  try {
    const fleet = await SimFleet.start([{ name: o.name, network: o.network, build: 'current', peers: 5 }], {
      host: '127.0.0.1',
      layout: 'port-per-node',
      blockTimeMs: 500,
    });
    rig.fleet = fleet;
    let answered = 0;
    let onFirstPost: () => void = () => {};
    rig.firstPost = new Promise<void>((r) => (onFirstPost = r));
    const { server, url } = await startWebhook((body) => {
      o.onBody?.(body);
      const first = ++answered === 1;
      if (first) onFirstPost();
      return first ? o.holdMs : 0;
    });
    rig.hook = server;
    const alerting = nodeDownToWebhook(rig.dir!, url);
    const options = { dir: rig.dir!, network: o.network, intervalMs: 300, timeoutMs: 250, concurrency: 4 };
    rig.config = alertingFleetConfig(fleet.nodes, { ...options, maxUpstreamSeries: 500, alerting });
    rig.daemon = await startDaemon(rig.config, {
      logger: createLogger({ level: 'silent' }),
      defaultMetrics: false,
      components: [alertingComponent()],
    });
  } catch (err) {
    await closeAlertingRig({ ...rig, receiver: rig.hook });
    throw err;
  }
  const done = rig as Omit<HeldAnswerRig, 'close'>;
  return { ...done, close: () => closeAlertingRig({ ...done, receiver: done.hook }) };
}
