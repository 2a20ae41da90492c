// The fleet page's pager in Debian's chromium: the page script keeps "nodes X-Y of N" and the page
// links current as the fleet changes, and says so when the fleet shrank below the page shown.
// The status routes over real HTTP on loopback, with a real FleetState and StatusBoard of 7 nodes
// and 3 rows per page. Skipped with one line when chromium is absent, unless REQUIRE_BROWSER=1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FleetState } from '../../src/state/fleetState.js';
import { StatusBoard } from '../../src/status/board.js';
import type { StatusRouteDeps } from '../../src/status/routes.js';
import { target } from '../support/targets.js';
import { openBrowser, pollAll, serveStatus, skipWithoutBrowser } from '../support/browser.js';

const skip = skipWithoutBrowser('status pager browser test');

const REFRESH_MS = 1000;
const names = ['n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'n7'];
const targets = (count: number) =>
  names.slice(0, count).map((n) => target(n, { probes: ['blockNumber'], intervalMs: 5000, timeoutMs: 2000 }));
const state = new FleetState(targets(7), { after: 1000, maxFactor: 1, jitter: 0, random: () => 0 });
const board = new StatusBoard({ now: () => Date.now() });
const deps: StatusRouteDeps = {
  source: { board, now: () => Date.now(), refreshMs: REFRESH_MS, pageRows: 3 },
  version: 'test',
  ready: () => true,
};
let served: Awaited<ReturnType<typeof serveStatus>>;
let url: string;

beforeAll(async () => {
  pollAll(state, board, names);
  served = await serveStatus(deps);
  url = served.url;
});

afterAll(async () => {
  await served?.close();
});

describe.skipIf(skip)('fleet page pager in chromium', () => {
  it('keeps the pager current as the fleet shrinks, and says when the page shown is past the end', async () => {
    const browser = await openBrowser({ viewport: { width: 390, height: 844 }, isMobile: true });
    try {
      const page = await browser.context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(url + '?page=2');
      const pager = page.locator('nav.pager').first();
      expect(await pager.innerText()).toContain('nodes 4–6 of 7, worst first (page 2 of 3)');
      // Two nodes removed: 5 nodes make 2 pages; page 2 now holds 4-5.
      board.update((state.setTargets(targets(5)), state));
      await page.waitForFunction(
        () => (globalThis as any).document.querySelector('nav.pager span').textContent.includes('of 5'),
        undefined,
        { timeout: 3 * REFRESH_MS + 5000 },
      );
      expect(await pager.innerText()).toMatch(/nodes 4–5 of 5, worst first \(page 2 of 2\)\s*« first\s*‹ previous$/);
      expect(await page.locator('#nodes tbody tr').count()).toBe(2);
      // Down to 3 nodes: page 2 is past the end; the refresh says so instead of an unexplained empty table.
      board.update((state.setTargets(targets(3)), state));
      await page.waitForFunction(
        () => (globalThis as any).document.querySelector('nav.pager span').textContent.includes('no nodes'),
        undefined,
        { timeout: 3 * REFRESH_MS + 5000 },
      );
      expect(await pager.innerText()).toMatch(
        /^no nodes on this page: the fleet has 3 \(1 page\)\s*« first\s*‹ previous$/,
      );
      expect(await page.locator('#nodes tbody tr').count()).toBe(0);
      await pager.locator('a', { hasText: 'previous' }).click();
      await page.waitForURL(url);
      expect(await page.locator('#nodes tbody tr').count()).toBe(3);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
