// Dead-man's switch: pings over real loopback HTTP while the pipeline is healthy, none while a
// stage stalls or the event loop is blocked, and pings again afterwards.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Heartbeat, heartbeatCollectors, type HeartbeatSend } from '../../../src/alerting/heartbeat/heartbeat.js';
import { PipelineHealth, stallBound } from '../../../src/alerting/heartbeat/health.js';
import { HttpClient } from '../../../src/http/index.js';
import { Secrets } from '../../../src/redact.js';

interface Ping {
  method: string;
  path: string;
  body: string;
  contentType: string | undefined;
}

let server: Server;
let url: string;
let pings: Ping[];
let status: number;

beforeEach(async () => {
  pings = [];
  status = 200;
  server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      pings.push({ method: req.method ?? '', path: req.url ?? '', body, contentType: req.headers['content-type'] });
      res.writeHead(status).end('OK');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/ping/3f2a-secret`;
  const secrets = new Secrets();
  secrets.add(url);
  secrets.add('3f2a-secret');
  client = new HttpClient({ secrets });
});
afterEach(async () => {
  await client.close();
  server.close();
  server.closeAllConnections();
});

// The project's one HTTP client, as the daemon passes it.
let client: HttpClient;
const send: HeartbeatSend = (req) => client.send(req);

function recordingLog() {
  const lines: string[] = [];
  const objects: object[] = [];
  const push = (level: string) => (o: object, m: string) => {
    objects.push(o);
    lines.push(`${level} ${m}`);
  };
  return { lines, objects, log: { info: push('info'), warn: push('warn') } };
}

describe('heartbeat with an injected clock', () => {
  it('pings while both stages progress, stops while evaluation stalls, resumes after', async () => {
    let now = 1_000_000;
    const health = new PipelineHealth(
      [
        { name: 'polling', stallAfterMs: stallBound(15_000, 5_000) },
        { name: 'evaluation', stallAfterMs: stallBound(15_000) },
      ],
      now,
      60_000,
    );
    const { lines, log } = recordingLog();
    const hb = new Heartbeat({
      url,
      method: 'GET',
      intervalMs: 60_000,
      timeoutMs: 2_000,
      send,
      health,
      log,
      clock: { wall: () => now, mono: () => now },
    });
    const registry = new Registry();
    heartbeatCollectors(registry, () => hb);
    // Never succeeded: 0, so `time() - metric` is huge and an alert on its age fires.
    expect(await registry.getSingleMetricAsString('ledger_alert_heartbeat_last_success_timestamp_seconds')).toMatch(
      /seconds 0$/,
    );

    expect(await hb.beat()).toBe('sent');
    expect(pings).toEqual([{ method: 'GET', path: '/ping/3f2a-secret', body: '', contentType: undefined }]);
    expect(await registry.getSingleMetricAsString('ledger_alert_heartbeat_last_success_timestamp_seconds')).toContain(
      `ledger_alert_heartbeat_last_success_timestamp_seconds 1000`,
    );

    // Polling keeps going; evaluation stops reporting for longer than its bound (45 s).
    for (let i = 0; i < 4; i++) {
      now += 15_000;
      health.progress('polling', now);
    }
    expect(await hb.beat()).toBe('skipped');
    expect(await hb.beat()).toBe('skipped');
    expect(pings).toHaveLength(1);
    expect(lines).toEqual(['warn heartbeat paused: evaluation: no progress for 60s']); // once, with the reason

    now += 1_000;
    health.progress('evaluation', now);
    health.progress('polling', now);
    expect(await hb.beat()).toBe('sent');
    expect(pings).toHaveLength(2);
    expect(lines.at(-1)).toBe('info heartbeat resumed: polling and evaluation make progress');
    expect(hb.lastSuccessMs()).toBe(now);
  });

  it('stops when polling stalls too', async () => {
    let now = 0;
    const health = new PipelineHealth(
      [
        { name: 'polling', stallAfterMs: 1_000 },
        { name: 'evaluation', stallAfterMs: 1_000 },
      ],
      now,
      1_000,
    );
    const hb = new Heartbeat({
      url,
      method: 'GET',
      intervalMs: 500,
      timeoutMs: 2_000,
      send,
      health,
      log: recordingLog().log,
      clock: { wall: () => now, mono: () => now },
    });
    now = 900;
    health.progress('evaluation', now);
    expect(await hb.beat()).toBe('sent');
    now = 1_500;
    health.progress('evaluation', now);
    expect(await hb.beat()).toBe('skipped');
    expect(health.check(now).reasons).toEqual(['polling: no progress for 1.5s']);
  });

  it('POST sends a small JSON body; a rejected ping is a failure logged once, not a success', async () => {
    let now = Date.parse('2026-11-22T20:00:00Z');
    const health = new PipelineHealth([{ name: 'evaluation', stallAfterMs: 10_000 }], now, 1_000);
    const { lines, objects, log } = recordingLog();
    const hb = new Heartbeat({
      url,
      method: 'POST',
      intervalMs: 1_000,
      timeoutMs: 2_000,
      send,
      health,
      log,
      clock: { wall: () => now, mono: () => now },
    });
    expect(await hb.beat()).toBe('sent');
    expect(pings[0]?.method).toBe('POST');
    expect(pings[0]?.contentType).toBe('application/json');
    expect(JSON.parse(pings[0]?.body ?? '')).toEqual({
      service: 'ledger-fleet-exporter',
      status: 'ok',
      at: '2026-11-22T20:00:00.000Z',
    });

    status = 503;
    now += 1_000;
    health.progress('evaluation', now);
    expect(await hb.beat()).toBe('failed');
    expect(await hb.beat()).toBe('failed');
    expect(hb.lastSuccessMs()).toBe(now - 1_000);
    expect(lines).toEqual(['warn heartbeat ping failed']);
    expect(objects.at(-1)).toEqual({ error: 'POST heartbeat: HTTP 503' });
    expect(JSON.stringify(objects)).not.toContain('3f2a-secret');
  });
});

describe('heartbeat on real timers', () => {
  it('a blocked event loop pauses the pings; they resume once it runs freely', async () => {
    const health = new PipelineHealth(
      [
        { name: 'polling', stallAfterMs: 5_000 },
        { name: 'evaluation', stallAfterMs: 5_000 },
      ],
      Date.now(),
      800,
    );
    const progress = setInterval(() => {
      health.progress('polling', Date.now());
      health.progress('evaluation', Date.now());
    }, 20);
    const { lines, log } = recordingLog();
    const hb = new Heartbeat({
      url,
      method: 'GET',
      intervalMs: 100,
      timeoutMs: 2_000,
      send,
      health,
      log,
      lagSampleMs: 50,
      lagThresholdMs: 400,
    });
    hb.start();
    try {
      await waitUntil(() => pings.length >= 2);
      const end = Date.now() + 1_500;
      while (Date.now() < end) {
        // Busy loop: nothing else runs on the event loop meanwhile (the stuck-exporter case).
      }
      const before = pings.length;
      await waitUntil(() => lines.some((l) => l.startsWith('info heartbeat resumed')));
      expect(lines.find((l) => l.startsWith('warn'))).toMatch(
        /^warn heartbeat paused: event loop blocked for \d+\.\ds$/,
      );
      await waitUntil(() => pings.length > before);
      expect(lines.filter((l) => l.startsWith('warn heartbeat paused'))).toHaveLength(1);
    } finally {
      hb.stop();
      clearInterval(progress);
    }
  });
});

async function waitUntil(cond: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
