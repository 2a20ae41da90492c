// The status page in a real browser: Debian's chromium driven by playwright-core against a running
// daemon over a simulated fleet. Skipped with one line when chromium is absent, unless
// REQUIRE_BROWSER=1 (CI), where a missing browser fails.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeTarget } from '../../src/domain.js';
import { startStatusFleet, STATUS_FLEET_INTERVAL_MS, type StatusFleet } from '../support/statusFleet.js';
import { openBrowser, skipWithoutBrowser } from '../support/browser.js';

const skip = skipWithoutBrowser('status browser tests');

let sf: StatusFleet;
let browser: { context: BrowserContext; close(): Promise<void> } | undefined;

beforeAll(async () => {
  if (skip) return;
  sf = await startStatusFleet();
  browser = await openBrowser({ viewport: { width: 1280, height: 900 } });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await sf?.close();
});

/**
 * A page that records console errors, failed requests, HTTP error answers and uncaught
 * exceptions. A request the browser itself cancelled (net::ERR_ABORTED: the next goto aborts
 * a favicon fetch still in flight) is not the page's fault; any other failure is.
 */
async function watchedPage(context: BrowserContext): Promise<{ page: Page; problems: string[] }> {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => {
    const why = r.failure()?.errorText ?? 'unknown';
    if (why !== 'net::ERR_ABORTED') problems.push(`request failed: ${r.url()} (${why})`);
  });
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
  });
  return { page, problems };
}

// Browser-side code: the project's types have no DOM library, so the page's globals are reached
// through an untyped globalThis (functions, not strings: the page's CSP forbids eval).
type Page$ = any;
const UPDATED_BY_SCRIPT = () =>
  /updated \d+ s ago/.test((globalThis as Page$).document.getElementById('updated').textContent);

const rowStatus = (page: Page, node: string) => page.locator(`#nodes tr[data-node="${node}"] .pill`).innerText();
/** A network's Answering, Degraded and Down cells in the Networks table. */
const networkCells = (page: Page, network: string) =>
  page
    .locator('#networks tbody tr')
    .filter({ has: page.locator(`th:text-is("${network}")`) })
    .locator('td')
    .evaluateAll((tds) => tds.slice(0, 3).map((td) => (td as Page$).textContent));

describe.skipIf(skip)('status page in chromium', () => {
  it('loads with no console errors, under a CSP without inline scripts, and updates itself', async () => {
    const { page, problems } = await watchedPage(browser!.context);
    const res = await page.goto(sf.daemon.url + '/');
    expect(res!.status()).toBe(200);
    expect(res!.headers()['content-security-policy']).toContain("script-src 'self'");
    expect(await page.locator('script:not([src])').count()).toBe(0);
    expect(await page.locator('meta[name="viewport"]').count()).toBe(1);
    // The script replaces the server's "updated HH:MM:SS UTC" with a running "updated N s ago" after its first refresh.
    await page.waitForFunction(UPDATED_BY_SCRIPT, undefined, { timeout: 15_000 });
    expect(await rowStatus(page, 'test-proxy')).toContain('DOWN');
    expect(await page.locator('#nodes tr[data-node="test-proxy"] .why').innerText()).toContain('HTTP 502 from proxy');
    expect(await rowStatus(page, 'rpc-legacy')).toContain('up');
    // The node page and its badges load cleanly too.
    await page.goto(sf.daemon.url + '/nodes/rpc-legacy');
    await page.waitForFunction(UPDATED_BY_SCRIPT, undefined, { timeout: 15_000 });
    expect(await page.evaluate('[...document.images].map((i) => i.naturalWidth)')).not.toContain(0);
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it('shows a node down with the reason within one interval of a fault, and up when it clears', async () => {
    const { page, problems } = await watchedPage(browser!.context);
    await page.goto(sf.daemon.url + '/');
    expect(await rowStatus(page, 'val-eu-1')).toContain('up');
    expect(await networkCells(page, 'mainnet')).toEqual(['2/2', '0', '0']);
    await page.evaluate("window.marker = 'same document'");
    const refreshMs = Number(await page.locator('body').getAttribute('data-refresh'));
    const node = sf.fleet.node('val-eu-1');
    node.setFault('proxy_502');
    const t0 = Date.now();
    // One interval until the next poll, plus one page refresh; a little slack for a loaded machine.
    await page.waitForFunction(
      () => {
        const row = (globalThis as Page$).document.querySelector('#nodes tr[data-node="val-eu-1"]');
        return (
          !!row &&
          row.querySelector('.pill').textContent.includes('DOWN') &&
          row.querySelector('.why').textContent.includes('HTTP 502 from proxy')
        );
      },
      undefined,
      { timeout: STATUS_FLEET_INTERVAL_MS + refreshMs + 3000 },
    );
    const seenAfter = Date.now() - t0;
    expect(await page.evaluate('window.marker')).toBe('same document');
    // The Networks table follows too (it counts the whole fleet, from the same refresh).
    expect(await networkCells(page, 'mainnet')).toEqual(['1/2', '0', '1']);
    console.log(
      `status browser: down shown ${seenAfter} ms after the fault (interval ${STATUS_FLEET_INTERVAL_MS} ms, page ` +
        `refresh ${refreshMs} ms)`,
    );
    node.setFault('none');
    await page.waitForFunction(
      () =>
        (globalThis as Page$).document
          .querySelector('#nodes tr[data-node="val-eu-1"] .pill')
          .textContent.includes('up'),
      undefined,
      { timeout: 30_000 + refreshMs + 3000 },
    );
    expect(await networkCells(page, 'mainnet')).toEqual(['2/2', '0', '0']);
    const events = await page.locator('#events').innerText();
    expect(events).toContain('val-eu-1 down: HTTP 502 from proxy');
    expect(events).toMatch(/val-eu-1 up after \d/);
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it("keeps a node page's facts current after a fault: status, checks, height, peers, events, chart", async () => {
    const { page, problems } = await watchedPage(browser!.context);
    await page.goto(sf.daemon.url + '/nodes/val-eu-1');
    await page.waitForFunction(UPDATED_BY_SCRIPT, undefined, { timeout: 15_000 });
    await page.evaluate("window.marker = 'same document'");
    const facts = () =>
      page.evaluate(() => {
        const doc = (globalThis as Page$).document;
        const when = (id: string) => doc.querySelector(`#${id} time`)?.getAttribute('datetime') ?? null;
        const text = (id: string) => doc.getElementById(id).textContent as string;
        return {
          since: when('node-since'),
          last: when('node-last'),
          next: doc.querySelector('#node-next [data-next-of]')?.getAttribute('data-next-of') ?? null,
          height: text('node-height'),
          peers: text('node-peers'),
          newestEvent: doc.querySelector('#events li')?.textContent ?? null,
          chart: doc.querySelector('#node-spark svg')?.getAttribute('aria-label') ?? null,
          title: doc.title as string,
        };
      });
    const before = await facts();
    expect(before.height).toMatch(/^\d+/);
    expect(before.peers).toMatch(/^\d+$/);
    expect(before.newestEvent ?? '').not.toMatch(/down: HTTP 502 from proxy/);
    const refreshMs = Number(await page.locator('body').getAttribute('data-refresh'));
    const node = sf.fleet.node('val-eu-1');
    node.setFault('proxy_502');
    try {
      await page.waitForFunction(
        () => (globalThis as Page$).document.getElementById('node-status').textContent.includes('DOWN'),
        undefined,
        { timeout: STATUS_FLEET_INTERVAL_MS + refreshMs + 3000 },
      );
      const after = await facts();
      const api = (await (await fetch(sf.daemon.url + '/api/v1/nodes/val-eu-1')).json()) as { node: { since: number } };
      expect(await page.evaluate('window.marker')).toBe('same document');
      // Filled from the same refresh as the status pill: the page agrees with the API, not with the page load.
      expect(after.since).toBe(new Date(api.node.since).toISOString());
      expect(after.since).not.toBe(before.since);
      expect(after.last).not.toBe(before.last);
      expect(after.next).not.toBe(before.next);
      expect(after.height).toBe('—');
      expect(after.peers).toBe('—');
      // A change soon after others is told as "flapping: N changes in T, now down".
      expect(after.newestEvent).toMatch(/val-eu-1 .*down: HTTP 502 from proxy/);
      expect(after.chart).not.toBe(before.chart);
      expect(after.title).toBe('val-eu-1: down – Ledger fleet status');
    } finally {
      node.setFault('none');
    }
    await page.waitForFunction(
      () => (globalThis as Page$).document.getElementById('node-status').textContent.includes('up'),
      undefined,
      { timeout: 30_000 + refreshMs + 3000 },
    );
    expect(await page.locator('#node-height').innerText()).toMatch(/^\d+/);
    expect(await page.locator('#events li').first().innerText()).toMatch(/val-eu-1 .*up/);
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it('keeps each probe row under its own name when a reload changes the probe list', async () => {
    const { page, problems } = await watchedPage(browser!.context);
    await page.goto(sf.daemon.url + '/nodes/rpc-legacy');
    const rows = () =>
      page.evaluate(() =>
        [...(globalThis as Page$).document.querySelectorAll('#probes tbody tr')].map((tr: Page$) => ({
          probe: tr.cells[0].textContent,
          result: tr.cells[1].textContent,
          supported: tr.cells[7].textContent,
          labels: [...tr.cells]
            .slice(1)
            .map((c: Page$) => c.getAttribute('data-label'))
            .join(','),
        })),
      );
    const loaded = await rows();
    expect(loaded.map((r) => r.probe)).toEqual(['health', 'metrics', 'blockNumber', 'miningStats', 'validators']);
    expect(loaded.at(-1)).toMatchObject({
      probe: 'validators',
      result: '○ unsupported',
      supported: 'no (earlier node build)',
    });
    const refreshMs = Number(await page.locator('body').getAttribute('data-refresh'));
    const started = sf.daemon.config();
    const withProbes = (probes: NodeTarget['probes']) => ({
      ...started,
      nodes: started.nodes.map((n) => (n.name === 'rpc-legacy' ? { ...n, probes } : n)),
    });
    const rowsShown = (names: string[]) =>
      page.waitForFunction(
        (want: string[]) => {
          const trs = [...(globalThis as Page$).document.querySelectorAll('#probes tbody tr')];
          return (
            trs.map((tr: Page$) => tr.cells[0].textContent).join() === want.join() &&
            !trs.some((tr: Page$) => tr.cells[1].textContent.includes('pending'))
          );
        },
        names,
        { timeout: 2 * STATUS_FLEET_INTERVAL_MS + refreshMs + 5000 },
      );
    try {
      sf.daemon.applyConfig(withProbes(['health', 'validators']));
      await rowsShown(['health', 'validators']);
      const labels = loaded[0]!.labels;
      expect(await rows()).toEqual([
        { probe: 'health', result: '● ok', supported: 'yes', labels },
        { probe: 'validators', result: '○ unsupported', supported: 'no (earlier node build)', labels },
      ]);
    } finally {
      sf.daemon.applyConfig(started);
    }
    await rowsShown(['health', 'metrics', 'blockNumber', 'miningStats', 'validators']);
    expect((await rows()).at(-1)).toMatchObject({ probe: 'validators', result: '○ unsupported' });
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it('shows a node page with its probes, unsupported ones as such, and its evidence', async () => {
    const { page, problems } = await watchedPage(browser!.context);
    await page.goto(sf.daemon.url + '/nodes/test-proxy');
    const evidence = page.locator('li.evidence');
    expect(await evidence.count()).toBeGreaterThan(0);
    const first = await evidence.first().innerText();
    expect(first).toMatch(/HTTP 502/);
    expect(first).toMatch(/GET \/health|GET \/metrics|POST claw_blockNumber/);
    expect(first).toContain('502 Bad Gateway');
    await page.goto(sf.daemon.url + '/nodes/rpc-legacy');
    expect(await page.locator('#node-status').innerText()).toContain('up');
    const validators = page.locator('#probes tr', { hasText: 'validators' });
    expect(await validators.innerText()).toContain('unsupported');
    expect(await page.locator('#probes tr', { hasText: 'health' }).innerText()).toContain('ok');
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it('serves valid SVG badges', async () => {
    const page = await browser!.context.newPage();
    for (const path of ['/api/v1/nodes/test-proxy/badge.svg', '/api/v1/nodes/val-eu-1/uptime/24h/badge.svg']) {
      const res = await page.goto(sf.daemon.url + path);
      expect(res!.headers()['content-type']).toMatch(/^image\/svg\+xml/);
      // Parsed as XML by the browser: a malformed document would be a <parsererror>.
      const root = await page.evaluate<{ ns: string; errors: number; text: string }>(
        '({ ns: document.documentElement.namespaceURI, errors: ' +
          "document.getElementsByTagName('parsererror').length, text: document.documentElement.textContent })",
      );
      expect(root).toMatchObject({ ns: 'http://www.w3.org/2000/svg', errors: 0 });
      // The fleet is minutes old: the uptime badge names the time polled, not 24h.
      expect(root.text).toMatch(path.includes('uptime') ? /uptime (\d+ s|\d+m\d\ds)/ : /test-proxy.*DOWN/);
    }
    await page.close();
  }, 60_000);

  it('has no horizontal scroll at phone width', async () => {
    const phone = await openBrowser({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      deviceScaleFactor: 2,
    });
    try {
      const { page, problems } = await watchedPage(phone.context);
      for (const path of ['/', '/nodes/test-proxy', '/nodes/rpc-legacy']) {
        await page.goto(sf.daemon.url + path);
        const { scroll, client } = await page.evaluate<{ scroll: number; client: number }>(
          '({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })',
        );
        expect(scroll, path).toBeLessThanOrEqual(client);
        // Column headers wrap between words, never inside one ("Answeri/ng").
        const headers = await page.evaluate<
          Array<{ text: string; lines: number }>
        >(`[...document.querySelectorAll('#networks thead th')].map((th) => {
          const r = document.createRange(); r.selectNodeContents(th);
          const tops = new Set([...r.getClientRects()].map((x) => Math.round(x.top)));
          return { text: th.textContent, lines: tops.size };
        })`);
        for (const h of headers)
          expect(h.lines, `${path} header ${h.text}`).toBeLessThanOrEqual(h.text.split(' ').length);
        if (path === '/') expect(headers.map((h) => h.text)).toContain('Answering');
      }
      expect(problems).toEqual([]);
    } finally {
      await phone.close();
    }
  }, 90_000);

  it('still shows the table with JavaScript disabled', async () => {
    const nojs = await openBrowser({ viewport: { width: 1280, height: 900 }, javaScriptEnabled: false });
    try {
      const page = await nojs.context.newPage();
      await page.goto(sf.daemon.url + '/');
      expect(await page.locator('#nodes tbody tr').count()).toBe(3);
      expect(await page.locator('#nodes tr[data-node="test-proxy"]').innerText()).toMatch(
        /DOWN[\s\S]*HTTP 502 from proxy/,
      );
      expect(await page.locator('#updated').innerText()).toMatch(/updated \d\d:\d\d:\d\d UTC/);
      expect(await page.locator('noscript').count()).toBe(1);
    } finally {
      await nojs.close();
    }
  }, 90_000);
  it("keeps the node page's small print true: time axes, uptime with its time, no past next check", async () => {
    const { page, problems } = await watchedPage(browser!.context);
    await page.goto(sf.daemon.url + '/nodes/test-proxy');
    await page.waitForFunction(UPDATED_BY_SCRIPT, undefined, { timeout: 15_000 });
    const refreshMs = Number(await page.locator('body').getAttribute('data-refresh'));
    const seen = () =>
      page.evaluate(() => {
        const doc = (globalThis as Page$).document;
        const texts = (sel: string) => [...doc.querySelectorAll(sel)].map((t: Page$) => t.textContent as string);
        return {
          historyAxis: texts('.hist-big svg text'),
          chartAxis: texts('#node-spark svg text'),
          uptime: doc.getElementById('node-uptime').textContent as string,
          nextChecks: texts('[data-next-of]'),
          evidence: doc.querySelectorAll('li.evidence').length as number,
          repeats: texts('li.evidence .repeats'),
        };
      });
    // Two refreshes by the script, a second apart at least: what it draws is what the server drew.
    for (let i = 0; i < 2; i++) {
      await page.waitForTimeout(refreshMs + 200);
      const s = await seen();
      expect(s.historyAxis.at(-1)).toMatch(/^\d\d:\d\d:\d\d UTC$/);
      expect(s.chartAxis).toEqual(
        expect.arrayContaining([
          '0 ms',
          expect.stringMatching(/^\d+ ms$/),
          expect.stringMatching(/^\d\d:\d\d:\d\d UTC$/),
        ]),
      );
      // The fleet has run for less than an hour: the figure says how much time it covers.
      expect(s.uptime).toMatch(/^\d+(\.\d\d)?% over the (\d+ s|\d+m\d\ds) polled so far$/);
      for (const next of s.nextChecks)
        expect(next).toMatch(/^(due now|\d\d:\d\d:\d\d UTC \(in [^)]+\)|\d\d:\d\d:\d\d UTC \(now\))$/);
    }
    // Every probe of the node behind the dead proxy got the same 502 page: one entry with its count.
    const s = await seen();
    expect(s.evidence).toBeGreaterThanOrEqual(1);
    expect(s.repeats.some((r) => /^same answer \d+ times$/.test(r))).toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);
});
