// The node page reads its evidence within /api/evidence's limits, over real loopback HTTP: a page
// view takes one of the few places for evidence queries (so the API's 429 counts it), and when
// they are all taken the page is still served, with a short "evidence busy" note. The store's
// reads are held open by a gate, so "in flight" is a state the test waits for, not a race.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DaemonContext } from '../../src/daemon/component.js';
import type { ExporterConfig } from '../../src/config/exporterConfig.js';
import { createEvidenceApi, type EvidenceApi } from '../../src/evidence/api.js';
import { evidenceFileName, readEvidence, type EvidenceQuery, type ReadOptions } from '../../src/evidence/files.js';
import { buildEvidenceRecord, serializeRecord } from '../../src/evidence/record.js';
import { createLogger } from '../../src/logger.js';
import type { MetricsView } from '../../src/metrics/view.js';
import { buildServer, createRequestHandler } from '../../src/server.js';
import { FleetState } from '../../src/state/fleetState.js';
import type { FleetSnapshot } from '../../src/state/snapshot.js';
import { statusComponent, type StatusComponent } from '../../src/status/component.js';
import { waitFor } from '../support/processes.js';
import { target } from '../support/targets.js';

let dir: string;
let server: Server;
let url: string;
let status: StatusComponent;

/** The store's reads wait here while the gate is closed. */
const gate = { closed: false, waiting: 0, open: () => {}, opened: Promise.resolve() };
function closeGate(): void {
  gate.closed = true;
  gate.opened = new Promise((resolve) => (gate.open = () => ((gate.closed = false), resolve())));
}

const store = {
  async read(q: EvidenceQuery, opts: ReadOptions) {
    if (gate.closed) {
      gate.waiting++;
      await gate.opened;
      gate.waiting--;
    }
    return readEvidence(join(dir, 'evidence'), q, opts);
  },
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lfe-status-evidence-'));
  const evDir = join(dir, 'evidence');
  const lines = [1, 2, 3].map((attempt) =>
    serializeRecord(
      buildEvidenceRecord(
        {
          node: 'n1',
          network: 'mainnet',
          url: 'http://127.0.0.1:1',
          probe: 'health',
          method: 'GET /health',
          status: 503,
          durationMs: 7,
          attempt,
          headers: {},
          body: Buffer.from('busy upstream'),
          runnerStatus: { consecutiveFailures: attempt, lastSuccess: null },
        },
        { hostname: 'h', version: 'v' },
      ),
    ),
  );
  mkdirSync(evDir);
  writeFileSync(join(evDir, evidenceFileName(new Date(), 0)), Buffer.concat(lines));

  const logger = createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, cb) => cb() }) });
  const config: ExporterConfig = {
    listen: { host: '127.0.0.1', port: 0 },
    polling: { concurrency: 1, maxResponseBytes: 1 << 20, maxUpstreamSeries: 100 },
    nodes: [target('n1', { probes: ['health'], intervalMs: 60_000 })],
    networks: {},
    evidence: { dir: evDir, maxBytes: 1 << 20, maxAgeDays: 1 },
  };
  const state = new FleetState(config.nodes);
  const api: EvidenceApi = createEvidenceApi(store);
  status = statusComponent({ logger, version: 'test', file: false });
  const handler = createRequestHandler({
    logger,
    version: 'test',
    metrics: () => ({}) as MetricsView,
    ready: () => true,
    snapshot: () => ({}) as FleetSnapshot,
    evidence: api,
    routes: status.routes,
  });
  server = buildServer(undefined, handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // What the daemon hands its components; the rest of the context is not used by the status pages.
  await status.start!({ config: () => config, state, logger, url, evidence: api } as unknown as DaemonContext);
});

afterAll(async () => {
  gate.open();
  await status?.stop?.();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

const get = async (path: string) => {
  const res = await fetch(url + path);
  return { status: res.status, text: await res.text() };
};

/** The three records carry the same answer: shown once, with their count. */
const showsTheThreeRecords = (text: string) => {
  expect(text.match(/<li class="evidence">/g)).toHaveLength(1);
  expect(text).toContain('same answer 3 times');
};

const inFlight = (n: number) =>
  waitFor(`${n} evidence reads held`, () => gate.waiting === n, { timeoutMs: 10_000, intervalMs: 10 });

describe('node page evidence within the API limits', () => {
  it('lists the newest records when a place is free', async () => {
    const page = await get('/nodes/n1');
    expect(page.status).toBe(200);
    showsTheThreeRecords(page.text);
    expect(page.text).not.toContain('evidence-busy');
  });

  it('serves the page with an "evidence busy" note while the API queries take every place', async () => {
    closeGate();
    const held = [get('/api/evidence?node=n1'), get('/api/evidence?node=n1')];
    await inFlight(2);
    const page = await get('/nodes/n1');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Evidence busy (other queries are reading it), try again in a moment.');
    expect(page.text).not.toContain('<li class="evidence">');
    expect(page.text).toContain('<table id="probes">');
    gate.open();
    expect((await Promise.all(held)).map((r) => r.status)).toEqual([200, 200]);
    showsTheThreeRecords((await get('/nodes/n1')).text);
  });

  it("counts a page's read against the API's limit", async () => {
    closeGate();
    const pageView = get('/nodes/n1');
    const query = get('/api/evidence?node=n1');
    await inFlight(2);
    const refused = await get('/api/evidence?node=n1');
    expect(refused.status).toBe(429);
    expect(refused.text).toContain('too many evidence queries at once');
    gate.open();
    showsTheThreeRecords((await pageView).text);
    expect((await query).status).toBe(200);
  });
});
