// Browser writes in a real browser (Debian's chromium via playwright-core): a page of the exporter,
// signed in as a writer, gets the token from /api/v1/session and writes with it; the same write
// without the token is refused; a page of another site that makes the signed-in browser POST to
// the exporter reaches it (marked cross-site) but acts on nothing. (The gate's answer to a
// cross-site request that does carry credentials is in write-access.test.ts.) Skipped with one
// line when chromium is absent, unless REQUIRE_BROWSER=1 (CI), where a missing browser fails.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import bcrypt from 'bcryptjs';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import type { MetricsView } from '../../src/metrics/view.js';
import { buildServer, createRequestHandler } from '../../src/server.js';
import type { FleetSnapshot } from '../../src/state/snapshot.js';
import { jsonReply, write } from '../../src/web/route.js';
import { WriteTokens } from '../../src/web/writeAccess.js';
import { openBrowser, skipWithoutBrowser } from '../support/browser.js';

const skip = skipWithoutBrowser('write browser tests');

let exporter: Server;
let other: Server;
let exporterUrl: string;
let otherUrl: string;
let browser: { context: BrowserContext; close(): Promise<void> } | undefined;
const acted: string[] = [];
const seenSites: string[] = [];

async function listen(server: Server, host: string): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://${host}:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  if (skip) return;
  const users = new Map([['alice', bcrypt.hashSync('alice-pw', 4)]]);
  const handler = createRequestHandler({
    logger: createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, cb) => cb() }) }),
    version: 'test',
    metrics: () => ({}) as MetricsView,
    ready: () => true,
    snapshot: () => ({ nodes: [] }) as unknown as FleetSnapshot,
    routes: [
      write('POST', '/api/v1/alerts/ack', (req) => {
        acted.push(req.user);
        return jsonReply(200, { by: req.user });
      }),
    ],
    writePolicy: { users, writers: () => undefined, tokens: new WriteTokens() },
  });
  exporter = buildServer({ basicAuthUsers: users }, handler);
  // Every POST that reaches the server, before its basic auth.
  exporter.prependListener('request', (req: IncomingMessage) => {
    if (req.method === 'POST') seenSites.push(String(req.headers['sec-fetch-site']));
  });
  exporterUrl = await listen(exporter, '127.0.0.1');
  // Another site: "localhost" is not "127.0.0.1" to the browser.
  other = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<p>other site</p>'));
  otherUrl = await listen(other, 'localhost');
  browser = await openBrowser({ httpCredentials: { username: 'alice', password: 'alice-pw' } });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  for (const s of [exporter, other]) {
    s?.closeAllConnections();
    await new Promise((r) => (s ? s.close(r) : r(undefined)));
  }
});

describe.skipIf(skip)('browser writes in chromium', () => {
  it('the signed-in page writes with the session token; without it or from another site nothing is done', async () => {
    const page = await browser!.context.newPage();
    await page.goto(`${exporterUrl}/`);
    const result = await page.evaluate(async () => {
      const session = (await (await fetch('/api/v1/session')).json()) as {
        writeToken: string;
        tokenHeader: string;
      };
      const post = (headers: Record<string, string>) =>
        fetch('/api/v1/alerts/ack', { method: 'POST', headers, body: '{}' }).then((r) => r.status);
      return {
        withToken: await post({ [session.tokenHeader]: session.writeToken }),
        without: await post({}),
      };
    });
    expect(result).toEqual({ withToken: 200, without: 403 });
    expect(acted).toEqual(['alice']);

    // Another site makes the browser send a simple (no-preflight) POST with its credentials.
    const evil = await browser!.context.newPage();
    await evil.goto(`${otherUrl}/`);
    const before = seenSites.length;
    const outcome = await evil.evaluate(async (target) => {
      try {
        await fetch(target, { method: 'POST', mode: 'no-cors', credentials: 'include', body: '{}' });
        return 'sent';
      } catch (err) {
        return String(err);
      }
    }, `${exporterUrl}/api/v1/alerts/ack`);
    expect(outcome).toBe('sent');
    expect(seenSites.slice(before)).toContain('cross-site');
    expect(acted).toEqual(['alice']);
  }, 60_000);
});
