import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile, rename, unlink } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { Agent, interceptors } from 'undici';
import { Registry } from 'prom-client';
import { createLogger } from '../../src/logger.js';
import {
  AgentPlatformChecker,
  agentPlatformCollectors,
  type AgentPlatformCheck,
  type AgentServerErrorInfo,
} from '../../src/agent/platform.js';
import type { AgentPlatformSettings } from '../../src/domain.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';

// A recognisable key: every output of these tests is searched for it.
const KEY = `canary-${randomUUID()}`;
const ROTATED = `rotated-${randomUUID()}`;

let platform: FakePlatform;
let dispatcher: Agent;
let tmp: string;
const logChunks: string[] = [];
const logger = createLogger({
  level: 'debug',
  destination: new Writable({
    write(chunk, _enc, cb) {
      logChunks.push(String(chunk));
      cb();
    },
  }),
});
const allResults: AgentPlatformCheck[] = [];
const allEvidence: AgentServerErrorInfo[] = [];
const allMetrics: string[] = [];

beforeAll(async () => {
  platform = await startFakePlatform({ validKeys: [KEY] });
  dispatcher = new Agent();
  tmp = await mkdtemp(path.join(os.tmpdir(), 'agent-platform-'));
});

afterAll(async () => {
  await dispatcher.close();
  await platform.close();
  await rm(tmp, { recursive: true, force: true });
});

afterEach(() => {
  platform.mode = 'auth';
  platform.validKeys.clear();
  platform.validKeys.add(KEY);
  platform.requests.length = 0;
  platform.foreign.requests.length = 0;
});

function settings(over: Partial<AgentPlatformSettings> = {}): AgentPlatformSettings {
  return { baseUrl: platform.url, apiKeyEnv: 'TEST_AGENT_KEY', intervalMs: 60_000, timeoutMs: 2_000, ...over };
}

function checker(
  over: Partial<AgentPlatformSettings> = {},
  env: NodeJS.ProcessEnv = { TEST_AGENT_KEY: KEY },
  d = dispatcher,
) {
  return new AgentPlatformChecker(settings(over), {
    dispatcher: d,
    env,
    logger,
    onServerError: (info) => allEvidence.push(info),
  });
}

async function run(c: AgentPlatformChecker): Promise<AgentPlatformCheck> {
  const r = await c.check();
  allResults.push(r);
  return r;
}

async function metricsOf(c: AgentPlatformChecker): Promise<string> {
  const registry = new Registry();
  agentPlatformCollectors(registry, c);
  const text = await registry.metrics();
  allMetrics.push(text);
  return text;
}

describe('AgentPlatformChecker', () => {
  it('accepts a valid key from the environment and exposes the non-secret profile', async () => {
    const c = checker();
    const r = await run(c);
    expect(r).toMatchObject({ up: true, keyValid: true, reason: 'ok', status: 200 });
    expect(r.profile).toEqual({ id: 'agent-42', name: 'Test Agent' });
    expect(platform.requests).toEqual([{ method: 'GET', path: '/api/agents/me', authorization: `Bearer ${KEY}` }]);
    expect(c.last()).toBe(r);
    expect(c.counts().get('2xx')).toBe(1);

    const text = await metricsOf(c);
    expect(text).toMatch(/^ledger_agent_platform_up 1$/m);
    expect(text).toMatch(/^ledger_agent_platform_key_valid\{reason="ok"\} 1$/m);
    expect(text).toMatch(/^ledger_agent_platform_info\{id="agent-42",name="Test Agent"\} 1$/m);
    expect(text).toMatch(/^ledger_agent_platform_requests_total\{class="2xx"\} 1$/m);
    expect(text).toMatch(/^ledger_agent_platform_requests_total\{class="5xx"\} 0$/m);
    expect(text).toMatch(new RegExp(`^ledger_agent_platform_last_check_timestamp_seconds ${r.at / 1000}$`, 'm'));
    expect(text).not.toContain('private@example.org');
  });

  it('keeps the base path and reports 401 as unauthorized', async () => {
    platform.validKeys.clear();
    const c = checker();
    const r = await run(c);
    expect(r).toMatchObject({ up: true, keyValid: false, reason: 'unauthorized', status: 401 });
    expect(r.profile).toBeUndefined();
    const text = await metricsOf(c);
    expect(text).toMatch(/^ledger_agent_platform_key_valid\{reason="unauthorized"\} 0$/m);
    expect(text).not.toMatch(/^ledger_agent_platform_info\{/m);
  });

  it('reports 403 as forbidden, told apart from 401', async () => {
    platform.mode = 'forbidden';
    const c = checker();
    const r = await run(c);
    expect(r).toMatchObject({ up: true, keyValid: false, reason: 'forbidden', status: 403 });
    expect(await metricsOf(c)).toMatch(/^ledger_agent_platform_key_valid\{reason="forbidden"\} 0$/m);
  });

  it('hands a 5xx to the evidence hook without the key, and keeps the last key verdict', async () => {
    const c = checker();
    expect((await run(c)).reason).toBe('ok');
    platform.mode = 'server_error';
    const seen: AgentServerErrorInfo[] = [];
    const c2 = new AgentPlatformChecker(settings(), {
      dispatcher,
      env: { TEST_AGENT_KEY: KEY },
      logger,
      onServerError: (i) => seen.push(i),
    });
    const r = await run(c2);
    expect(r).toMatchObject({ up: false, keyValid: null, reason: 'server_error', status: 500 });
    expect(seen).toHaveLength(1);
    const info = seen[0]!;
    allEvidence.push(info);
    expect(info.status).toBe(500);
    expect(info.url).toBe(`${platform.url}/api/agents/me`);
    const body = Buffer.from(info.body).toString('utf8');
    // The fake server echoed the Authorization header: the body must arrive scrubbed.
    expect(body).toContain('internal error while handling Bearer [REDACTED]');
    expect(body).not.toContain(KEY);
    expect(info.headers['x-request-id']).toBe('req-1');
    expect(info.headers['set-cookie']).toBeUndefined();

    // Same checker: an outage after a verdict keeps key_valid, while up drops.
    const r2 = await run(c);
    expect(r2.reason).toBe('server_error');
    expect(c.lastKeyVerdict()?.reason).toBe('ok');
    const text = await metricsOf(c);
    expect(text).toMatch(/^ledger_agent_platform_up 0$/m);
    expect(text).toMatch(/^ledger_agent_platform_key_valid\{reason="ok"\} 1$/m);
    expect(text).toMatch(/^ledger_agent_platform_requests_total\{class="5xx"\} 1$/m);
  });

  it('gives up on a slow platform after the configured timeout', async () => {
    platform.mode = 'slow';
    const c = checker({ timeoutMs: 300 });
    const r = await run(c);
    expect(r).toMatchObject({ up: false, keyValid: null, reason: 'timeout' });
    expect(r.status).toBeUndefined();
    expect(c.counts().get('error')).toBe(1);
    expect(await metricsOf(c)).toMatch(/^ledger_agent_platform_requests_total\{class="error"\} 1$/m);
  });

  it('reports a refused connection as connect', async () => {
    // A port that was just free: listen, note it, close.
    const srv = http.createServer();
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
    const port = (srv.address() as AddressInfo).port;
    await new Promise<void>((resolve) => srv.close(() => resolve()));
    const c = checker({ baseUrl: `http://127.0.0.1:${port}` });
    const r = await run(c);
    expect(r).toMatchObject({ up: false, keyValid: null, reason: 'connect' });
  });

  it('never follows a redirect, so the other origin never sees the key', async () => {
    platform.mode = 'redirect';
    const r = await run(checker());
    expect(r).toMatchObject({ up: true, keyValid: null, reason: 'redirect', status: 302 });
    expect(platform.requests).toHaveLength(1);
    expect(platform.foreign.requests).toEqual([]);
  });

  it('does not follow redirects even through a dispatcher that has a redirect interceptor', async () => {
    platform.mode = 'redirect';
    const following = new Agent().compose(interceptors.redirect({ maxRedirections: 3 }));
    try {
      // Sanity: this dispatcher does follow redirects for ordinary requests.
      const probe = await following.request({ origin: platform.url, path: '/api/agents/me', method: 'GET' });
      await probe.body.dump();
      expect(probe.statusCode).toBe(200);
      expect(platform.foreign.requests).toHaveLength(1);
      expect(platform.foreign.requests[0]!.authorization).toBeUndefined();
      platform.foreign.requests.length = 0;

      const r = await run(checker({}, { TEST_AGENT_KEY: KEY }, following as unknown as Agent));
      expect(r.reason).toBe('redirect');
      expect(platform.foreign.requests).toEqual([]);
    } finally {
      await following.close();
    }
  });

  it('treats a 2xx that is not JSON as invalid_response and a 404 as client_error', async () => {
    platform.mode = 'not_json';
    const r = await run(checker());
    expect(r).toMatchObject({ up: true, keyValid: true, reason: 'invalid_response', status: 200 });
    platform.mode = 'not_found';
    const r2 = await run(checker());
    expect(r2).toMatchObject({ up: true, keyValid: null, reason: 'client_error', status: 404 });
  });

  it('reads at most maxBodyBytes of an answer', async () => {
    platform.mode = 'huge';
    const c = new AgentPlatformChecker(settings(), {
      dispatcher,
      env: { TEST_AGENT_KEY: KEY },
      logger,
      maxBodyBytes: 1024,
    });
    const r = await run(c);
    // The 1 MiB JSON is cut at 1 KiB, so it no longer parses.
    expect(r).toMatchObject({ reason: 'invalid_response', status: 200 });
    // The connection was not left half-read: a following check on the same dispatcher works.
    platform.mode = 'auth';
    expect((await run(c)).reason).toBe('ok');
  });

  it('sends nothing when there is no key', async () => {
    const c = checker({}, {});
    const r = await run(c);
    expect(r).toMatchObject({ up: false, keyValid: false, reason: 'no_key' });
    expect(platform.requests).toEqual([]);
    expect([...c.counts().values()].reduce((a, b) => a + b, 0)).toBe(0);
    expect(await metricsOf(c)).toMatch(/^ledger_agent_platform_key_valid\{reason="no_key"\} 0$/m);
    // A blank value counts as no key.
    expect((await run(checker({}, { TEST_AGENT_KEY: '  \n' }))).reason).toBe('no_key');
    // A value that cannot be a Bearer token is refused rather than sent.
    expect((await run(checker({}, { TEST_AGENT_KEY: `${KEY} ${ROTATED}` }))).reason).toBe('no_key');
    expect(platform.requests).toEqual([]);
  });

  it('uses a rotated key file from the next check, without restart', async () => {
    const file = path.join(tmp, 'agent-key');
    await writeFile(file, `${KEY}\n`);
    const c = checker({ apiKeyFile: file }, {});
    expect((await run(c)).reason).toBe('ok');
    expect(platform.requests.at(-1)!.authorization).toBe(`Bearer ${KEY}`);

    // The platform revokes the old key; the file still holds it.
    platform.validKeys.clear();
    platform.validKeys.add(ROTATED);
    expect((await run(c)).reason).toBe('unauthorized');

    // Rotation as a secret mount does it: a new file swapped in atomically.
    await writeFile(`${file}.new`, `${ROTATED}\n`);
    await rename(`${file}.new`, file);
    expect((await run(c)).reason).toBe('ok');
    expect(platform.requests.at(-1)!.authorization).toBe(`Bearer ${ROTATED}`);

    // Rewritten in place as well.
    platform.validKeys.add(KEY);
    platform.validKeys.delete(ROTATED);
    await writeFile(file, KEY);
    expect((await run(c)).reason).toBe('ok');
    expect(platform.requests.at(-1)!.authorization).toBe(`Bearer ${KEY}`);

    // The file disappears: no key, nothing sent.
    await unlink(file);
    const before = platform.requests.length;
    expect((await run(c)).reason).toBe('no_key');
    expect(platform.requests.length).toBe(before);
  });

  it('prefers apiKeyFile over the environment variable', async () => {
    const file = path.join(tmp, 'pref-key');
    await writeFile(file, KEY);
    const c = checker({ apiKeyFile: file }, { TEST_AGENT_KEY: 'env-key-not-used' });
    expect((await run(c)).reason).toBe('ok');
    expect(platform.requests.at(-1)!.authorization).toBe(`Bearer ${KEY}`);
  });

  it('shares one request between concurrent checks', async () => {
    const c = checker();
    const [a, b] = await Promise.all([c.check(), c.check()]);
    expect(a).toBe(b);
    expect(platform.requests).toHaveLength(1);
  });

  it('refuses a plain-http baseUrl off loopback at construction', () => {
    expect(() => checker({ baseUrl: 'http://platform.example.org' })).toThrow(
      /agentPlatform\.baseUrl: plain http .*loopback.*use https/,
    );
    expect(() => checker({ baseUrl: 'https://user:pw@platform.example.org' })).toThrow(/credentials/);
  });

  it('never lets the key reach logs, results, evidence or metrics', () => {
    // Runs last: it searches what every test above produced.
    const logs = logChunks.join('');
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).toContain('"reason":"unauthorized"');
    for (const secret of [KEY, ROTATED]) {
      expect(logs).not.toContain(secret);
      expect(JSON.stringify(allResults)).not.toContain(secret);
      expect(allMetrics.join('\n')).not.toContain(secret);
      for (const e of allEvidence) {
        expect(Buffer.from(e.body).toString('latin1')).not.toContain(secret);
        expect(JSON.stringify(e.headers)).not.toContain(secret);
        expect(e.url).not.toContain(secret);
      }
    }
    expect(allEvidence.length).toBeGreaterThan(0);
    expect(allResults.map((r) => r.reason)).toEqual(
      expect.arrayContaining([
        'ok',
        'unauthorized',
        'forbidden',
        'server_error',
        'timeout',
        'connect',
        'redirect',
        'invalid_response',
        'client_error',
        'no_key',
      ]),
    );
  });
});
