// Acting on a page in Debian's chromium, at 1280 and 390 px, against the real exporter
// (dist/cli.js) with basic auth, alerting and one dead simulated node: the writer's "Silence 1h"
// makes the alert suppressed in /api/v2/alerts and the card says by whom and until when; "Expire"
// in the silences list makes it active again; "Acknowledge" lists an ack silence ("ack: ...").
// A signed-in non-writer sees no buttons but sees who silenced what, until when and why. Hostile
// text (the silence's comment) is shown as text. Skipped with one line when chromium is absent,
// unless REQUIRE_BROWSER=1.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import bcrypt from 'bcryptjs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { SimFleet } from '../../src/sim/index.js';
import { onlyRules } from '../support/alertingDaemon.js';
import { startExporter, type ExporterChild } from '../support/exporterChild.js';
import { waitFor } from '../support/processes.js';
import { openBrowser, skipWithoutBrowser, WIDTHS } from '../support/browser.js';

const skip = skipWithoutBrowser('status actions browser test');

const WRITER = { username: 'alice', password: 'alice-pw' };
const READER = { username: 'bob', password: 'bob-pw' };
const DEAD = 'act-2';
const WAIT = 20_000;

interface V2Alert {
  fingerprint: string;
  labels: Record<string, string>;
  status: { state: string; silencedBy: string[] };
}
interface V2Silence {
  id: string;
  status: { state: string };
  createdBy: string;
  comment: string;
}

let dir = '';
let fleet: SimFleet | undefined;
let hook: Server | undefined;
let exporter: ExporterChild | undefined;
const clickToSuppressedMs: number[] = [];

const basic = (u: { username: string; password: string }) => ({
  authorization: `Basic ${Buffer.from(`${u.username}:${u.password}`).toString('base64')}`,
});
async function get<T>(p: string): Promise<T> {
  const res = await fetch(`${exporter!.url}${p}`, { headers: basic(WRITER) });
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}
const deadAlert = async () =>
  (await get<V2Alert[]>('/api/v2/alerts')).find(
    (a) => a.labels.node === DEAD && a.labels.alertname === 'LedgerNodeDown',
  );
const untilState = (state: string, timeoutMs = WAIT) =>
  waitFor(
    `alert ${state}`,
    async () => {
      const a = await deadAlert();
      return a?.status.state === state ? a : undefined;
    },
    { timeoutMs, intervalMs: 10 },
  );

beforeAll(async () => {
  if (skip) return;
  dir = mkdtempSync(path.join(tmpdir(), 'lfe-actions-'));
  fleet = await SimFleet.start(
    ['act-1', DEAD].map((name) => ({ name, network: 'act', build: 'current' as const, peers: 5 })),
    { host: '127.0.0.1', layout: 'port-per-node', blockTimeMs: 500 },
  );
  hook = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200).end());
  });
  await new Promise<void>((r) => hook!.listen(0, '127.0.0.1', r));
  const configPath = path.join(dir, 'fleet.yaml');
  writeFileSync(
    configPath,
    stringify({
      listen: '127.0.0.1:0',
      defaults: { interval: '500ms', timeout: '400ms', probes: ['health', 'blockNumber'] },
      nodes: fleet.nodes.map((n) => ({ name: n.name, url: n.url, network: 'act' })),
      alerting: {
        stateDir: path.join(dir, 'state'),
        evaluationInterval: '250ms',
        rules: { ...onlyRules({}), LedgerNodeDown: { for: '1s', keepFiringFor: '0s' } },
        groupWait: '0s',
        groupInterval: '1s',
        repeatInterval: '1h',
        api: { writers: [WRITER.username] },
        receivers: [{ name: 'hook', webhook: { url: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/` } }],
      },
    }),
  );
  const webPath = path.join(dir, 'web.yml');
  writeFileSync(
    webPath,
    stringify({
      basic_auth_users: Object.fromEntries([WRITER, READER].map((u) => [u.username, bcrypt.hashSync(u.password, 4)])),
    }),
  );
  exporter = await startExporter(configPath, ['--web.config.file', webPath]);
  await fleet.node(DEAD).kill();
  await untilState('active', 30_000);
}, 90_000);

afterAll(async () => {
  await exporter?.kill();
  await fleet?.close();
  hook?.closeAllConnections();
  await new Promise((r) => (hook ? hook.close(r) : r(undefined)));
  if (dir) rmSync(dir, { recursive: true, force: true });
  if (clickToSuppressedMs.length)
    console.info(
      `status page "Silence 1h" click -> suppressed in /api/v2/alerts: ${clickToSuppressedMs.join(', ')} ms`,
    );
});

const card = (page: Page) => page.locator(`#alerts li.alert.firing[data-labels*='"node":"${DEAD}"']`);

describe.skipIf(skip)('acting on an alert from the fleet page, in chromium', () => {
  for (const [width, height, isMobile] of WIDTHS) {
    it(`${width} px: silence, expire and acknowledge as a writer; a reader sees who silenced what`, async () => {
      const writer = await openBrowser({ viewport: { width, height }, isMobile, httpCredentials: WRITER });
      const reader = await openBrowser({ viewport: { width, height }, isMobile, httpCredentials: READER });
      try {
        // Each width starts with no silence, whatever the other left.
        for (const s of await get<V2Silence[]>('/api/v2/silences'))
          if (s.status.state !== 'expired')
            await fetch(`${exporter!.url}/api/v2/silence/${s.id}`, { method: 'DELETE', headers: basic(WRITER) });
        await untilState('active');
        const page = await writer.context.newPage();
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(e.message));
        // The page's first session answer carries a stale token: its first write gets a 403, fetches
        // a new token once and retries.
        const writes: number[] = [];
        page.on('response', (r) => {
          if (r.request().method() !== 'GET') writes.push(r.status());
        });
        await page.route(
          '**/api/v1/session',
          async (route) => {
            const real = (await (await route.fetch()).json()) as Record<string, unknown>;
            await route.fulfill({ json: { ...real, writeToken: 'stale' } });
          },
          { times: 1 },
        );
        await page.goto(exporter!.url + '/');
        const silence1h = card(page).getByRole('button', { name: 'Silence 1h' });
        await silence1h.waitFor({ timeout: WAIT });
        await expect(card(page).getByRole('button', { name: 'Silence 4h' }).count()).resolves.toBe(1);
        await expect(card(page).getByRole('button', { name: 'Acknowledge' }).count()).resolves.toBe(1);
        const box = await card(page).boundingBox();
        expect(box!.x + box!.width).toBeLessThanOrEqual(width);

        // Silence 1h: suppressed in the API; the card says by whom and until when.
        const clicked = Date.now();
        await silence1h.click();
        const suppressed = await untilState('suppressed');
        clickToSuppressedMs.push(Date.now() - clicked);
        expect(suppressed.status.silencedBy).toHaveLength(1);
        await expect.poll(() => writes, { timeout: WAIT }).toEqual([403, 200]);
        const note = card(page).locator('.silenced-by');
        await note.waitFor({ timeout: WAIT });
        const text = await note.innerText();
        expect(text).toMatch(/by alice until (\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d UTC \(in (59m|1h00m)\d*s?\)/);
        expect(text).toContain('silenced 1h from the status page');
        await expect(card(page).locator('button').count()).resolves.toBe(0);
        const [silence] = (await get<V2Silence[]>('/api/v2/silences')).filter((s) => s.status.state === 'active');
        expect(silence).toMatchObject({ createdBy: 'alice', id: suppressed.status.silencedBy[0] });

        // Hostile text in another silence (on the node that answers) is shown as text.
        const hostile = '<img src=x onerror="document.title=1"><b>x</b>';
        const posted = await fetch(`${exporter!.url}/api/v2/silences`, {
          method: 'POST',
          headers: { ...basic(WRITER), 'content-type': 'application/json' },
          body: JSON.stringify({
            matchers: [{ name: 'node', value: 'act-1', isRegex: false, isEqual: true }],
            startsAt: new Date().toISOString(),
            endsAt: new Date(Date.now() + 600_000).toISOString(),
            createdBy: hostile,
            comment: hostile,
          }),
        });
        const hostileId = ((await posted.json()) as { silenceID: string }).silenceID;

        // The reader: no buttons, but who silenced it, until when and why.
        const other = await reader.context.newPage();
        await other.goto(exporter!.url + '/');
        await card(other).locator('.silenced-by').waitFor({ timeout: WAIT });
        expect(await card(other).locator('.silenced-by').innerText()).toMatch(/by alice until .*from the status page/);
        await other.locator('#silences li.silence').first().waitFor({ timeout: WAIT });
        await expect(other.locator('#alerts button, #silences button').count()).resolves.toBe(0);
        const shown = other.locator(`#silences li.silence[data-silence="${hostileId}"]`);
        await shown.waitFor({ timeout: WAIT });
        expect(await shown.innerText()).toContain(hostile);
        await expect(other.locator('#silences img, #silences b').count()).resolves.toBe(0);
        await page
          .locator(`#silences li.silence[data-silence="${hostileId}"]`)
          .getByRole('button', { name: 'Expire' })
          .click();
        await page
          .locator(`#silences li.silence[data-silence="${hostileId}"]`)
          .waitFor({ state: 'detached', timeout: WAIT });

        // Expire from the silences list: active again, and the buttons are back.
        await page
          .locator(`#silences li.silence[data-silence="${silence!.id}"]`)
          .getByRole('button', { name: 'Expire' })
          .click();
        await untilState('active');
        await silence1h.waitFor({ timeout: WAIT });

        // Acknowledge: an ack silence, listed with its "ack:" comment; expired again for the next width.
        await card(page).getByRole('button', { name: 'Acknowledge' }).click();
        const acked = await untilState('suppressed');
        const ack = (await get<V2Silence[]>('/api/v2/silences')).find((s) => s.id === acked.status.silencedBy[0]);
        expect(ack!.comment.startsWith('ack:')).toBe(true);
        const listed = page.locator(`#silences li.silence[data-silence="${ack!.id}"]`);
        await listed.waitFor({ timeout: WAIT });
        expect(await listed.innerText()).toContain('ack:');
        const listBox = await listed.boundingBox();
        expect(listBox!.x + listBox!.width).toBeLessThanOrEqual(width);
        await listed.getByRole('button', { name: 'Expire' }).click();
        await untilState('active');
        await page.locator('#silences p.muted').waitFor({ timeout: WAIT });
        expect(errors).toEqual([]);
      } finally {
        await writer.close();
        await reader.close();
      }
    }, 90_000);
  }
});
