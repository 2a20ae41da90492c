// Retries and backoff of the daemon (in process) against raw loopback nodes that answer 5xx,
// Retry-After or nothing at all. Request counts are taken at the node; timing bounds are generous
// and only ever upper bounds on waits, never assertions of exact timing.
import { mkdtempSync, rmSync } from 'node:fs';
import type http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../../src/daemon/index.js';
import type { NodeTarget } from '../../src/domain.js';
import type { ExporterConfig } from '../../src/config/exporterConfig.js';
import { readEvidence } from '../../src/evidence/index.js';
import { createLogger } from '../../src/logger.js';
import { DEFAULT_BACKOFF } from '../../src/state/fleetState.js';
import { sampleValue, scrapeText, waitForMetrics } from '../support/exporterChild.js';
import {
  defaultModel,
  fixed,
  hang,
  ledgerNode,
  startRawServer,
  type RawHandler,
  type RawServer,
} from '../support/rawServers.js';
import { waitFor } from '../support/processes.js';

const INTERVAL_MS = 300;
/** The longest pause backoff may take, jitter included. */
const MAX_PAUSE_MS = INTERVAL_MS * DEFAULT_BACKOFF.maxFactor * (1 + DEFAULT_BACKOFF.jitter);

let root: string;
let dirSeq = 0;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'lfe-retry-'));
});

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

/** A raw node whose /health behaviour can be swapped; counts what it received and answered. */
interface CountingNode {
  server: RawServer;
  /** Requests for /health, by arrival time. */
  healthArrivals: number[];
  /** 5xx answers to /health fully sent. */
  health5xx: number;
  /** Most /health requests open at once. */
  maxOpen: number;
  set(handler: RawHandler): void;
}

async function countingNode(initial: RawHandler): Promise<CountingNode> {
  let inner = initial;
  let open = 0;
  const node: CountingNode = {
    server: undefined as unknown as RawServer,
    healthArrivals: [],
    health5xx: 0,
    maxOpen: 0,
    set: (h) => {
      inner = h;
    },
  };
  node.server = await startRawServer((req: http.IncomingMessage, res: http.ServerResponse, body, ctx) => {
    if (req.url === '/health') {
      node.healthArrivals.push(Date.now());
      open++;
      node.maxOpen = Math.max(node.maxOpen, open);
      res.once('close', () => open--);
      res.once('finish', () => {
        if (res.statusCode >= 500) node.health5xx++;
      });
    }
    inner(req, res, body, ctx);
  });
  cleanups.push(() => node.server.close());
  return node;
}

function target(name: string, url: string, over: Partial<NodeTarget> = {}): NodeTarget {
  return {
    name,
    url,
    network: 'main',
    labels: {},
    intervalMs: INTERVAL_MS,
    timeoutMs: INTERVAL_MS - 50,
    rpcNamespace: 'claw',
    probes: ['health'],
    headers: {},
    ...over,
  };
}

async function daemonFor(
  nodes: NodeTarget[],
): Promise<{ daemon: Daemon; evidenceDir: string; close: () => Promise<void> }> {
  const evidenceDir = join(root, `evidence-${++dirSeq}`);
  const config: ExporterConfig = {
    listen: { host: '127.0.0.1', port: 0 },
    polling: { concurrency: 8, maxResponseBytes: 1 << 20, maxUpstreamSeries: 100 },
    nodes,
    networks: {},
    evidence: { dir: evidenceDir, maxBytes: 8 << 20, maxAgeDays: 1 },
  };
  const sink = new Writable({ write: (_c, _e, cb) => cb() });
  const daemon = await startDaemon(config, {
    logger: createLogger({ level: 'warn', destination: sink }),
    defaultMetrics: false,
  });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await daemon.close();
  };
  cleanups.push(close);
  return { daemon, evidenceDir, close };
}

const health = (node: string) => ({ node, probe: 'health' });

describe('backoff after 5xx', () => {
  it('backs off after consecutive failures, never polls more often, and records every 5xx', async () => {
    const node = await countingNode(
      fixed(503, 'text/html', '<html><body><h1>503 Service Unavailable</h1></body></html>', { server: 'nginx' }),
    );
    const { daemon, evidenceDir, close } = await daemonFor([target('n5xx', node.server.url)]);

    const backingOff = await waitForMetrics(
      daemon.url,
      'backoff gauge 1',
      (t) => (sampleValue(t, 'ledger_probe_backoff', health('n5xx')) === 1 ? t : undefined),
      15_000,
    );
    expect(sampleValue(backingOff, 'ledger_probe_success', health('n5xx'))).toBe(0);
    // Let it run long enough that the schedule alone would have made many requests.
    await waitForMetrics(
      daemon.url,
      'five consecutive failures',
      () => (daemon.state.get('n5xx')!.probes.get('health')!.consecutiveFailures >= 5 ? true : undefined),
      20_000,
    );
    const text = await scrapeText(daemon.url);
    await close();

    const arrivals = node.healthArrivals;
    const elapsed = arrivals.at(-1)! - arrivals[0]!;
    const onSchedule = Math.floor(elapsed / INTERVAL_MS) + 1;
    expect(arrivals.length).toBeGreaterThanOrEqual(5);
    // Never more often than the schedule, and well under it once backing off.
    expect(arrivals.length).toBeLessThanOrEqual(onSchedule);
    expect(arrivals.length).toBeLessThanOrEqual(Math.ceil(onSchedule / 2));
    expect(node.maxOpen).toBe(1);

    // Every 5xx answer the node sent became exactly one evidence record (timeouts, if the machine
    // stalled, are failures of another kind and have no answer to record).
    const read = await readEvidence(evidenceDir, { node: 'n5xx', limit: Number.POSITIVE_INFINITY });
    const timeouts = daemon.state.get('n5xx')!.probes.get('health')!.failures.timeout;
    expect(read.records.length).toBe(node.health5xx - timeouts);
    expect(read.records.length).toBe(daemon.state.get('n5xx')!.probes.get('health')!.failures.http_5xx);
    expect(read.records.every((r) => r.probe === 'health' && r.status === 503 && r.headers.server === 'nginx')).toBe(
      true,
    );
    // Attempt numbers count up through the burst (a stray timeout would be an attempt without a record).
    const attempts = read.records.map((r) => r.attempt).sort((a, b) => a - b);
    if (timeouts === 0) expect(attempts).toEqual(read.records.map((_, i) => i + 1));
    else expect(new Set(attempts).size).toBe(attempts.length);
    expect(daemon.evidence!.stats().dropped).toBe(0);
    expect(sampleValue(text, 'ledger_evidence_records_total', { node: 'n5xx' })).toBeLessThanOrEqual(
      read.records.length,
    );
  }, 60_000);

  it('shows the backoff gauge while backing off and recovers with the next request once the fault clears', async () => {
    const node = await countingNode(fixed(502, 'text/html', 'bad gateway'));
    const { daemon } = await daemonFor([target('flaky', node.server.url)]);

    await waitForMetrics(
      daemon.url,
      'backing off at the longest pause',
      (t) =>
        sampleValue(t, 'ledger_probe_backoff', health('flaky')) === 1 &&
        daemon.state.get('flaky')!.probes.get('health')!.consecutiveFailures >= 4
          ? true
          : undefined,
      20_000,
    );
    node.set(ledgerNode(defaultModel()));
    const requestsAtClear = node.healthArrivals.length;

    // Within about one backoff period (bounded generously), and with a single request: the first one after the fault
    // cleared. The requests are counted as the success lands (in this process, before the next poll is due): a
    // scrape seen later could already count the next one.
    const arrivedByRecovery = await waitFor(
      'recovered',
      () => (daemon.state.get('flaky')!.probes.get('health')!.lastRun?.ok ? node.healthArrivals.length : undefined),
      { timeoutMs: 2 * MAX_PAUSE_MS + 5_000, intervalMs: 5 },
    );
    expect(arrivedByRecovery - requestsAtClear).toBe(1);
    const t = await scrapeText(daemon.url);
    expect(sampleValue(t, 'ledger_probe_success', health('flaky'))).toBe(1);
    expect(sampleValue(t, 'ledger_probe_backoff', health('flaky'))).toBe(0);
    expect(sampleValue(t, 'ledger_node_up', { node: 'flaky' })).toBe(1);
    // Back on the normal schedule: the next requests come on the interval again.
    await waitForMetrics(
      daemon.url,
      'polled on schedule again',
      () => (node.healthArrivals.length - requestsAtClear >= 4 ? true : undefined),
      4 * INTERVAL_MS + 5_000,
    );
    expect(daemon.state.get('flaky')!.probes.get('health')!.consecutiveFailures).toBe(0);
  }, 60_000);
});

describe('Retry-After', () => {
  it('pushes the next attempt out past the schedule and the backoff', async () => {
    const told = await countingNode(fixed(503, 'text/plain', 'maintenance', { 'retry-after': '30' }));
    // The same failure without Retry-After: the pace the exporter would otherwise keep.
    const control = await countingNode(fixed(503, 'text/plain', 'maintenance'));
    const { daemon, evidenceDir, close } = await daemonFor([
      target('told', told.server.url),
      target('control', control.server.url),
    ]);

    await waitForMetrics(
      daemon.url,
      'control node retried several times',
      () => (control.healthArrivals.length >= 4 ? true : undefined),
      20_000,
    );
    const text = await scrapeText(daemon.url);
    expect(told.healthArrivals.length).toBe(1);
    expect(sampleValue(text, 'ledger_probe_backoff', health('told'))).toBe(1);
    const ps = daemon.state.get('told')!.probes.get('health')!;
    expect(ps.notBefore! - (ps.lastRun!.at + ps.lastRun!.durationMs)).toBeGreaterThanOrEqual(30_000);
    await close();

    const read = await readEvidence(evidenceDir, { node: 'told', limit: 10 });
    expect(read.records).toHaveLength(1);
    expect(read.records[0]!.headers['retry-after']).toBe('30');
  }, 60_000);
});

describe('timeouts', () => {
  it('back off too, never pile up requests, and leave no evidence (no answer was made)', async () => {
    const node = await countingNode(hang());
    const { daemon, evidenceDir, close } = await daemonFor([target('silent', node.server.url)]);
    await waitForMetrics(
      daemon.url,
      'backing off after timeouts',
      (t) =>
        sampleValue(t, 'ledger_probe_backoff', health('silent')) === 1 &&
        (sampleValue(t, 'ledger_probe_failures_total', { ...health('silent'), reason: 'timeout' }) ?? 0) >= 3
          ? true
          : undefined,
      20_000,
    );
    await close();
    expect(node.maxOpen).toBe(1);
    expect((await readEvidence(evidenceDir, { limit: 10 })).records).toEqual([]);
  }, 60_000);
});
