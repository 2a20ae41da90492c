// Clients that ask too much of /api/evidence, over real loopback HTTP (issue 15, finding 2): a
// query reads the newest file backwards and stops at `limit` or at its byte bound, and only a few
// queries run at once (429 beyond), however large the evidence directory is. Node pages, which
// list a node's newest evidence, read within the same limits.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../../src/daemon/index.js';
import type { ExporterConfig } from '../../src/config/exporterConfig.js';
import { DEFAULT_EVIDENCE_API_LIMITS } from '../../src/evidence/index.js';
import { evidenceFileName } from '../../src/evidence/files.js';
import { buildEvidenceRecord, serializeRecord } from '../../src/evidence/record.js';
import { createLogger } from '../../src/logger.js';
import { statusComponent } from '../../src/status/component.js';
import { DEFAULT_HTTP_LIMITS } from '../../src/web/webConfig.js';
import { target } from '../support/targets.js';

const FILES = 48;
const FILE_BYTES = 1 << 20;
let dir: string;
let daemon: Daemon;

function line(node: string, attempt: number, at: Date): Buffer {
  const input = {
    node,
    network: 'main',
    url: 'http://127.0.0.1:1',
    probe: 'health',
    method: 'GET /health',
    status: 503,
    durationMs: 1,
    attempt,
    headers: {},
    body: Buffer.from('x'.repeat(3000)),
    runnerStatus: { consecutiveFailures: 1, lastSuccess: null },
  };
  return serializeRecord(buildEvidenceRecord(input, { hostname: 'h', version: 'v' }, at));
}

async function get(path: string): Promise<{
  status: number;
  retryAfter?: string;
  body: { records?: Array<{ node: string; attempt: number }>; partial?: boolean; error?: string };
}> {
  const res = await request(daemon.url + path);
  return {
    status: res.statusCode,
    retryAfter: res.headers['retry-after'] as string | undefined,
    body: (await res.body.json()) as never,
  };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lfe-hostile-clients-'));
  const evDir = join(dir, 'evidence');
  mkdirSync(evDir);
  // 48 MiB of evidence about "bulk", then the newest file ends with ten records about "recent";
  // the oldest file starts with three about "old", beyond the byte bound of a query.
  const start = Date.now() - 3_600_000;
  let attempt = 0;
  for (let f = 0; f < FILES; f++) {
    const lines: Buffer[] = f === 0 ? [0, 1, 2].map((i) => line('old', i, new Date(start - 1000 + i))) : [];
    let size = 0;
    while (size < FILE_BYTES) {
      const l = line('bulk', attempt++, new Date(start + attempt));
      lines.push(l);
      size += l.length;
    }
    if (f === FILES - 1) for (let i = 0; i < 10; i++) lines.push(line('recent', i, new Date(start + attempt + 1 + i)));
    writeFileSync(join(evDir, evidenceFileName(new Date(start + f * 1000), f)), Buffer.concat(lines));
  }
  const config: ExporterConfig = {
    listen: { host: '127.0.0.1', port: 0 },
    polling: { concurrency: 4, maxResponseBytes: 1 << 20, maxUpstreamSeries: 100 },
    // Configured so that it has a node page; nothing answers there, and refused connections leave no evidence.
    nodes: [target('old', { probes: ['health'], intervalMs: 60_000 })],
    networks: {},
    evidence: { dir: evDir, maxBytes: 256 << 20, maxAgeDays: 30 },
  };
  const sink = new Writable({ write: (_c, _e, cb) => cb() });
  const logger = createLogger({ level: 'silent', destination: sink });
  daemon = await startDaemon(config, {
    logger,
    defaultMetrics: false,
    components: [statusComponent({ logger, version: 'test', file: false })],
  });
}, 60_000);

afterAll(async () => {
  await daemon?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('/api/evidence under hostile queries', () => {
  it('answers the newest records from the tail of the newest file, newest first', async () => {
    const r = await get('/api/evidence?node=recent&limit=3');
    expect(r.status).toBe(200);
    expect(r.body.records?.map((x) => x.attempt)).toEqual([9, 8, 7]);
    expect(r.body.partial).toBeUndefined();
  });

  it('stops a query for an absent node at its byte bound and says the answer is partial', async () => {
    expect(FILES * FILE_BYTES).toBeGreaterThan(DEFAULT_EVIDENCE_API_LIMITS.maxScanBytes);
    const r = await get('/api/evidence?node=absent&limit=1000');
    expect(r.status).toBe(200);
    expect(r.body.records).toEqual([]);
    expect(r.body.partial).toBe(true);
  });

  it('serves only a few queries at once and answers 429 with Retry-After beyond them', async () => {
    const answers = await Promise.all(Array.from({ length: 10 }, () => get('/api/evidence?node=absent&limit=1000')));
    const statuses = answers.map((a) => a.status);
    expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(refused.every((a) => a.retryAfter === '1' && /too many evidence queries/.test(a.body.error ?? ''))).toBe(
      true,
    );
    // Once they are done, queries are served again.
    expect((await get('/api/evidence?node=recent&limit=1')).status).toBe(200);
  });

  it("reads a node page's evidence within the same byte bound, and says older records may exist", async () => {
    const res = await request(daemon.url + '/nodes/old');
    const page = await res.body.text();
    expect(res.statusCode).toBe(200);
    expect(page).not.toContain('<li class="evidence">');
    expect(page).toContain('id="evidence-partial"');
  });

  it('gives node pages the same few query places: beyond them a page says "evidence busy" and is served', async () => {
    const pages = async () => {
      const res = await request(daemon.url + '/nodes/old');
      return { status: res.statusCode, text: await res.body.text() };
    };
    const query = () => get('/api/evidence?node=absent&limit=1000');
    const [queries, views] = await Promise.all([
      Promise.all([query(), query()]),
      Promise.all([pages(), pages(), pages(), pages()]),
    ]);
    expect(queries.every((q) => q.status === 200 || q.status === 429)).toBe(true);
    expect(views.map((v) => v.status)).toEqual([200, 200, 200, 200]);
    expect(views.filter((v) => v.text.includes('Evidence busy')).length).toBeGreaterThanOrEqual(1);
    expect(views.every((v) => v.text.includes('<table id="probes">'))).toBe(true);
  });
});

describe('connections that never send a byte (finding 5)', () => {
  it('are closed within the header timeout, long before the idle timeout', async () => {
    expect(DEFAULT_HTTP_LIMITS.headersTimeoutMs * 2).toBeLessThan(DEFAULT_HTTP_LIMITS.socketIdleTimeoutMs);
    const { port } = new URL(daemon.url);
    const sockets = Array.from({ length: 5 }, () => connect(Number(port), '127.0.0.1'));
    const closed = sockets.map((s) => new Promise<number>((resolve) => s.once('close', () => resolve(Date.now()))));
    const opened = Date.now();
    // Bounded: each socket either closes or the wait ends at twice the header timeout.
    const deadline = new Promise<'open'>((resolve) =>
      setTimeout(() => resolve('open'), 2 * DEFAULT_HTTP_LIMITS.headersTimeoutMs).unref(),
    );
    const results = await Promise.all(closed.map((c) => Promise.race([c, deadline])));
    for (const s of sockets) s.destroy();
    expect(results.every((r) => r !== 'open')).toBe(true);
    expect(results.every((r) => (r as number) - opened >= DEFAULT_HTTP_LIMITS.headersTimeoutMs - 1000)).toBe(true);
    // The server still answers a client that does speak.
    expect((await get('/api/evidence?node=recent&limit=1')).status).toBe(200);
  }, 40_000);
});
