// Start-up dry check over real loopback HTTP: credentials refused, unreachable, reachable; it
// never sends a notification and never names a secret.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dryCheckReceivers } from '../../../src/alerting/receivers/dryCheck.js';
import { HttpClient } from '../../../src/http/index.js';
import { Secrets } from '../../../src/redact.js';

const TOKEN = 'am-token-canary-7731';
const SLACK_PATH = '/services/T000/B000/slack-secret-canary';
let server: Server;
let base: string;
let closedPort: number;
const seen: string[] = [];
let client: HttpClient;

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    if (req.url === '/api/v2/status')
      res.writeHead(req.headers.authorization === `Bearer ${TOKEN}` ? 200 : 401).end('{}');
    else res.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // A port nobody listens on: bind, note it, close.
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise((r) => probe.close(r));
  const secrets = new Secrets();
  secrets.add(TOKEN);
  secrets.add(SLACK_PATH);
  client = new HttpClient({ secrets });
});
afterAll(async () => {
  await client.close();
  server.close();
});

describe('receiver dry check', () => {
  it('tells accepted, refused and unreachable apart, and sends no notification', async () => {
    const results = await dryCheckReceivers(
      [
        { name: 'am-ok', kind: 'alertmanager', urls: [base], bearerToken: TOKEN },
        { name: 'am-bad-token', kind: 'alertmanager', urls: [`${base}/`], bearerToken: 'wrong-token-canary' },
        { name: 'am-down', kind: 'alertmanager', urls: [base, `http://127.0.0.1:${closedPort}`], bearerToken: TOKEN },
        { name: 'slack', kind: 'slack', webhookUrl: `${base}${SLACK_PATH}` },
        { name: 'hook-down', kind: 'webhook', url: `http://127.0.0.1:${closedPort}/hook` },
      ],
      (req) => client.send(req),
    );
    expect(results.map((r) => [r.receiver, r.ok])).toEqual([
      ['am-ok', true],
      ['am-bad-token', false],
      ['am-down', false],
      ['slack', true],
      ['hook-down', false],
    ]);
    expect(results[1]?.detail).toBe('alertmanager am-bad-token url #1: rejects the credentials (HTTP 401)');
    expect(results[2]?.detail).toMatch(/^alertmanager am-down url #2: unreachable \(.+\)$/);
    expect(results[3]?.detail).toContain('credentials not checked');
    expect(results[4]?.detail).toMatch(/^webhook hook-down \(reachability\): unreachable/);
    // Only status reads and HEADs of the origin: nothing was posted, no secret path was requested.
    expect(seen.every((s) => s === 'GET /api/v2/status' || s === 'HEAD /')).toBe(true);
    expect(seen).toContain('HEAD /');
    const text = JSON.stringify(results);
    for (const secret of [TOKEN, 'wrong-token-canary', 'slack-secret-canary']) expect(text).not.toContain(secret);
  });
});
