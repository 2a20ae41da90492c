// Nodes behind an authenticating proxy: per-node headers (from ${VAR}, from a file, from
// defaults) and URL credentials reach the node, over real loopback HTTP; a `{ file }` header is
// re-read when the file changes (rotation without restart); and none of these secrets appears in
// ProbeResult messages, logs, /metrics, the landing page or evidence, even when the node echoes
// them back in a 5xx, a 401 or a redirect.
import type { IncomingHttpHeaders } from 'node:http';
import { mkdtemp, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig, secretsOf } from '../../src/config/index.js';
import { startDaemon, type Daemon } from '../../src/daemon/index.js';
import { PROBE_NAMES, type ProbeResult } from '../../src/domain.js';
import type { ExporterConfig } from '../../src/config/exporterConfig.js';
import { buildEvidenceRecord } from '../../src/evidence/record.js';
import { createLogger } from '../../src/logger.js';
import { createDispatcher } from '../../src/http/dispatcher.js';
import { HttpClient } from '../../src/http/client.js';
import { Secrets } from '../../src/redact.js';
import { NodeProber } from '../../src/probe/prober.js';
import { findCanaries, makeCanary, type Canary } from '../support/canaries.js';
import { waitFor } from '../support/processes.js';
import {
  defaultModel,
  hang,
  ledgerNode,
  startRawServer,
  type RawHandler,
  type RawServer,
} from '../support/rawServers.js';

const USER = 'monitor';
const C = {
  password: makeCanary('url-password'),
  envHeader: makeCanary('env-header'),
  fileHeader: makeCanary('file-header'),
  rotated: makeCanary('file-header-rotated'),
  defaultsHeader: makeCanary('defaults-header'),
  fileCredential: makeCanary('file-header-credential'),
};
const SECRETS: Canary[] = Object.values(C);
const BASIC = `Basic ${Buffer.from(`${USER}:${C.password.value}`).toString('base64')}`;

let dir: string;
let node: RawServer;
let foreign: RawServer;
/** Full request headers as the node received them, in order. */
const seen: IncomingHttpHeaders[] = [];
let behaviour: RawHandler;
let config: ExporterConfig;
let dispatcher: Dispatcher;
/** The run's secrets, as the daemon builds them: the config's, plus header files read since. */
let secrets: Secrets;

/** A careless node (or its proxy) that echoes every credential it received. */
function echoing(status: number, extra: Record<string, string> = {}): RawHandler {
  return (req, res) => {
    const echo = ['authorization', 'x-api-key', 'x-proxy-token', 'x-tenant-token']
      .map((h) => `${h}: ${String(req.headers[h] ?? '')}`)
      .join('\n');
    res.writeHead(status, {
      'content-type': 'text/plain',
      'x-request-id': String(req.headers['x-api-key'] ?? ''),
      via: String(req.headers.authorization ?? ''),
      ...extra,
    });
    res.end(`upstream said no; you sent:\n${echo}\n`);
  };
}

function lastHeaders(): IncomingHttpHeaders {
  expect(seen.length).toBeGreaterThan(0);
  return seen[seen.length - 1]!;
}

function prober(): NodeProber {
  return new NodeProber(config.nodes[0]!, {
    client: new HttpClient({ dispatcher, secrets }),
    maxResponseBytes: 1 << 20,
    maxUpstreamSeries: 100,
  });
}

/** What of a ProbeResult may be shown: everything but the node's raw answer (kept for evidence, scrubbed there). */
function shown(r: ProbeResult): string {
  const { response: _raw, ...rest } = r as ProbeResult & { response?: unknown };
  return JSON.stringify(rest, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lfe-node-headers-'));
  behaviour = ledgerNode(defaultModel());
  node = await startRawServer((req, res, body, ctx) => {
    seen.push({ ...req.headers });
    behaviour(req, res, body, ctx);
  });
  foreign = await startRawServer(ledgerNode(defaultModel()));
  await writeFile(join(dir, 'token.txt'), `${C.fileHeader.value}\n`);
  const text = `
listen: 127.0.0.1:0
defaults:
  interval: 1s
  timeout: 1s
  headers:
    x-tenant-token: ${C.defaultsHeader.value}
nodes:
  - name: behind-proxy
    url: http://${USER}:${encodeURIComponent(C.password.value)}@127.0.0.1:${node.port}
    network: main
    headers:
      X-Api-Key: \${NODE_TOKEN}
      x-proxy-token: { file: ./token.txt }
evidence:
  dir: ./evidence
  maxBytes: 1MiB
  maxAgeDays: 1
`;
  config = parseConfig(text, { file: join(dir, 'config.yaml'), env: { NODE_TOKEN: C.envHeader.value } });
  dispatcher = createDispatcher();
  secrets = secretsOf(config);
});

afterAll(async () => {
  await dispatcher?.destroy();
  await node?.close();
  await foreign?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('per-node headers and URL credentials', () => {
  it('reach the node on every request: URL credentials as Basic auth, env, file and default headers', async () => {
    const p = prober();
    // The URL the prober uses carries no credentials.
    expect(p.endpoint.base).toBe(`http://127.0.0.1:${node.port}`);
    for (const probe of PROBE_NAMES) {
      const before = seen.length;
      const r = await p.run(probe);
      expect(r.kind, `${probe}: ${shown(r)}`).toBe('ok');
      expect(seen.length).toBeGreaterThan(before);
      for (const h of seen.slice(before)) {
        expect(h.authorization).toBe(BASIC);
        expect(h['x-api-key']).toBe(C.envHeader.value);
        expect(h['x-proxy-token']).toBe(C.fileHeader.value);
        expect(h['x-tenant-token']).toBe(C.defaultsHeader.value);
      }
    }
  });

  it('re-reads a { file } header after the file changes, with the same prober (no restart)', async () => {
    const p = prober();
    expect((await p.run('health')).kind).toBe('ok');
    expect(lastHeaders()['x-proxy-token']).toBe(C.fileHeader.value);
    // Rotation as a secret mount does it: a new file renamed over the old one.
    await writeFile(join(dir, 'token.txt.new'), `${C.rotated.value}\n`);
    await rename(join(dir, 'token.txt.new'), join(dir, 'token.txt'));
    const before = seen.length;
    expect((await p.run('health')).kind).toBe('ok');
    expect((await p.run('blockNumber')).kind).toBe('ok');
    for (const h of seen.slice(before)) expect(h['x-proxy-token']).toBe(C.rotated.value);
    // And back, so later tests start from the first value.
    await writeFile(join(dir, 'token.txt'), `${C.fileHeader.value}\n`);
    expect((await p.run('health')).kind).toBe('ok');
    expect(lastHeaders()['x-proxy-token']).toBe(C.fileHeader.value);
  });

  it('keeps every secret out of ProbeResult messages, whatever the node answers', async () => {
    const p = prober();
    const cases: Array<[string, RawHandler]> = [
      ['502 echoing the credentials', echoing(502)],
      ['401 echoing the credentials', echoing(401, { 'www-authenticate': 'Basic realm="proxy"' })],
      ['redirect to another origin', echoing(302, { location: `${foreign.url}/health` })],
      ['200 with the credentials instead of JSON', echoing(200)],
      ['connection reset', (req) => req.socket.destroy()],
      ['no answer (timeout)', hang()],
    ];
    const messages: string[] = [];
    for (const [what, handler] of cases) {
      behaviour = handler;
      const before = seen.length;
      for (const probe of PROBE_NAMES) {
        const r = await p.run(probe);
        expect(r.kind, `${what} / ${probe}`).not.toBe('ok');
        if (r.kind !== 'ok') messages.push(r.message);
        const hits = findCanaries(`${what} / ${probe}`, shown(r), SECRETS);
        expect(hits).toEqual([]);
      }
      // The node did get the credentials it echoed (the messages had a chance to leak them).
      expect(seen.length).toBeGreaterThan(before);
      expect(seen[seen.length - 1]!.authorization).toBe(BASIC);
    }
    // The header file gone: the failure names the node, never a value.
    behaviour = ledgerNode(defaultModel());
    await unlink(join(dir, 'token.txt'));
    try {
      const r = await p.run('health');
      expect(r.kind === 'failed' && r.reason).toBe('connect');
      expect(r.kind === 'failed' && r.message).toMatch(/cannot read a header file/);
      messages.push(shown(r));
    } finally {
      await writeFile(join(dir, 'token.txt'), `${C.fileHeader.value}\n`);
    }
    expect(messages.length).toBeGreaterThan(20);
    expect(findCanaries('messages', messages.join('\n'), SECRETS)).toEqual([]);
    // Redirects are not followed: the other origin never saw a request, let alone a credential.
    expect(foreign.requests).toEqual([]);
  });

  it('a "<scheme> <credential>" file header echoed by the node without its scheme stays out of evidence', async () => {
    const p = prober();
    await writeFile(join(dir, 'token.txt'), `Token ${C.fileCredential.value}\n`);
    try {
      // The proxy echoes only what follows the scheme, as "invalid token <value>" messages do.
      behaviour = (req, res) => {
        const token = String(req.headers['x-proxy-token'] ?? '').replace(/^Token /, '');
        res.writeHead(502, { 'content-type': 'text/plain', 'x-request-id': token }).end(`invalid token ${token}\n`);
      };
      const r = await p.run('health');
      expect(lastHeaders()['x-proxy-token']).toBe(`Token ${C.fileCredential.value}`);
      expect(r.kind === 'failed' && r.response?.status).toBe(502);
      if (r.kind !== 'failed' || !r.response) throw new Error('expected a failed probe with a response');
      // The raw answer did carry the credential (so the check below can fail)...
      expect(Buffer.from(r.response.body).toString('utf8')).toContain(C.fileCredential.value);
      const record = buildEvidenceRecord(
        {
          node: 'behind-proxy',
          network: 'main',
          url: config.nodes[0]!.url,
          probe: 'health',
          method: r.response.method,
          status: 502,
          durationMs: r.durationMs,
          attempt: 1,
          headers: r.response.headers,
          body: r.response.body,
          runnerStatus: { consecutiveFailures: 1, lastSuccess: null },
        },
        { hostname: 'test', version: 'test' },
        new Date(),
        undefined,
        secrets,
      );
      // ...and the evidence record does not.
      expect(record.body).toContain('invalid token [REDACTED]');
      expect(findCanaries('evidence record', JSON.stringify(record), SECRETS)).toEqual([]);
      expect(findCanaries('message', shown(r), SECRETS)).toEqual([]);
    } finally {
      behaviour = ledgerNode(defaultModel());
      await writeFile(join(dir, 'token.txt'), `${C.fileHeader.value}\n`);
    }
  });

  it('a file header value with a line break cannot smuggle a header to the node', async () => {
    const p = prober();
    await writeFile(join(dir, 'token.txt'), `${C.fileHeader.value}\r\nX-Injected: yes\n`);
    try {
      const before = seen.length;
      const r = await p.run('health');
      // Refused before sending: nothing arrived with the injected header.
      expect(r.kind).toBe('failed');
      expect(seen.slice(before).some((h) => 'x-injected' in h)).toBe(false);
      expect(findCanaries('message', shown(r), SECRETS)).toEqual([]);
    } finally {
      await writeFile(join(dir, 'token.txt'), `${C.fileHeader.value}\n`);
    }
    expect((await p.run('health')).kind).toBe('ok');
  });

  it('keeps every secret out of logs, /metrics, the landing page and evidence of a running daemon', async () => {
    const logs: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        logs.push(String(chunk));
        cb();
      },
    });
    behaviour = echoing(502);
    let daemon: Daemon | undefined;
    try {
      // As the CLI does: one secrets object for the logger and the daemon, filled by the daemon.
      const runSecrets = new Secrets();
      daemon = await startDaemon(config, {
        secrets: runSecrets,
        logger: createLogger({ level: 'trace', destination: sink, secrets: runSecrets }),
        backoff: { after: 100, maxFactor: 1, jitter: 0, random: () => 0 },
      });
      const d = daemon;
      const get = async (path: string) => {
        const res = await fetch(d.url + path, { signal: AbortSignal.timeout(5_000) });
        return { status: res.status, text: await res.text() };
      };
      await waitFor(
        'evidence of the 502',
        async () => ((await d.evidence!.query({ node: 'behind-proxy', limit: 10 })).length >= 2 ? true : undefined),
        {
          timeoutMs: 10_000,
          intervalMs: 50,
        },
      );
      const failing = await get('/metrics');
      // Then the node recovers; the recovery is logged.
      behaviour = ledgerNode(defaultModel());
      await waitFor(
        'node up',
        async () =>
          (await get('/metrics')).text.includes('ledger_node_up{node="behind-proxy",network="main"} 1')
            ? true
            : undefined,
        {
          timeoutMs: 10_000,
          intervalMs: 50,
        },
      );
      const outputs: Array<[string, string]> = [
        ['/metrics while failing', failing.text],
        ['/metrics', (await get('/metrics')).text],
        ['/', (await get('/')).text],
        ['/api/evidence', (await get('/api/evidence?limit=1000')).text],
      ];
      await d.close();
      daemon = undefined;
      outputs.push(['logs', logs.join('')]);

      // The echo did reach evidence, scrubbed: the leak path was exercised.
      const evidence = JSON.parse(outputs[3]![1]) as {
        records: Array<{ status: number; body: string; headers: Record<string, string> }>;
      };
      expect(evidence.records[0]!.status).toBe(502);
      expect(evidence.records[0]!.body).toContain('authorization: Basic [REDACTED]');
      expect(evidence.records[0]!.body).toContain('x-proxy-token: [REDACTED]');
      expect(evidence.records[0]!.headers['x-request-id']).toBe('[REDACTED]');
      expect(logs.join('')).toContain('probe failed');
      expect(logs.join('')).toContain('probe recovered');
      expect(outputs[0]![1]).toContain(
        'ledger_probe_failures_total{node="behind-proxy",network="main",probe="health",reason="http_5xx"}',
      );
      // The daemon sent the credentials all along.
      expect(lastHeaders().authorization).toBe(BASIC);
      expect(lastHeaders()['x-api-key']).toBe(C.envHeader.value);

      const hits = outputs.flatMap(([name, text]) => findCanaries(name, text, SECRETS));
      expect(hits).toEqual([]);
    } finally {
      await daemon?.close();
    }
  }, 30_000);
});
