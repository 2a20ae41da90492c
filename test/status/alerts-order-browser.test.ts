// The top of the fleet page in Debian's chromium, at 1280 and 390 px: active alerts worst first
// (firing critical first, pending info last), the Watchdog never a card but "alerting pipeline
// alive" in the small print, and a headline counting what is wrong (firing alerts and nodes), as
// served and after the page script's refresh. The status routes over real HTTP on loopback with a
// real FleetState and StatusBoard. Skipped with one line when chromium is absent, unless REQUIRE_BROWSER=1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FleetState } from '../../src/state/fleetState.js';
import { StatusBoard } from '../../src/status/board.js';
import type { StatusRouteDeps } from '../../src/status/routes.js';
import type { AlertView } from '../../src/status/types.js';
import { target } from '../support/targets.js';
import { openBrowser, pollAll, serveStatus, skipWithoutBrowser, WIDTHS } from '../support/browser.js';

const skip = skipWithoutBrowser('status alerts browser test');

const now = Date.now();
const alert = (name: string, state: AlertView['state'], severity: string, node: string, ago: number): AlertView => ({
  name,
  state,
  severity,
  labels: { node, severity },
  summary: `${name} on ${node}`,
  since: now - ago,
});
// Given in the engine's order (by name), not by how bad they are.
const ACTIVE: AlertView[] = [
  alert('LedgerExporterWatchdog', 'firing', 'info', '', 600_000),
  alert('LedgerNodeBehind', 'pending', 'info', 'n3', 10_000),
  alert('LedgerNodeDown', 'firing', 'critical', 'n1', 60_000),
  alert('LedgerNodeLowPeers', 'firing', 'warning', 'n2', 120_000),
  alert('LedgerNodeServerErrors', 'pending', 'critical', 'n2', 5_000),
];
const WORST_FIRST = ['LedgerNodeDown', 'LedgerNodeLowPeers', 'LedgerNodeServerErrors', 'LedgerNodeBehind'];

const names = ['n1', 'n2', 'n3'];
const state = new FleetState(
  names.map((n) => target(n, { probes: ['blockNumber'], intervalMs: 5000, timeoutMs: 2000 })),
  { after: 1000, maxFactor: 1, jitter: 0, random: () => 0 },
);
const board = new StatusBoard({ now: () => Date.now() });
const deps: StatusRouteDeps = {
  source: { board, now: () => Date.now(), refreshMs: 500, activeAlerts: () => ACTIVE },
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

describe.skipIf(skip)('the alerts at the top of the fleet page, in chromium', () => {
  for (const [width, height, isMobile] of WIDTHS) {
    it(`${width} px: worst first, no Watchdog card, pipeline alive in small print, headline`, async () => {
      const browser = await openBrowser({ viewport: { width, height }, isMobile });
      try {
        const page = await browser.context.newPage();
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(e.message));
        await page.goto(url);
        const read = async () => ({
          cards: await page.locator('#alerts li.alert strong').allInnerTexts(),
          red: await page.locator('#alerts li.alert.firing strong').allInnerTexts(),
          meta: await page.locator('header .meta').innerText(),
          headline: await page.locator('#summary').innerText(),
        });
        const served = await read();
        expect(served.cards).toEqual(WORST_FIRST);
        expect(served.red).toEqual(['LedgerNodeDown', 'LedgerNodeLowPeers']);
        expect(served.meta).toContain('alerting pipeline alive');
        expect(served.headline).toBe('2 alerts firing · 0 down · 0 degraded · 3 up');
        // After the page script has redrawn from /api/v1/nodes: the same.
        await page.waitForFunction(
          () => (globalThis as any).document.getElementById('updated').textContent !== '',
          undefined,
          { timeout: 10_000 },
        );
        await page.waitForTimeout(1_200);
        const redrawn = await read();
        // The meta line's "updated" time moves on; the rest is the same.
        expect({ ...redrawn, meta: undefined }).toEqual({ ...served, meta: undefined });
        expect(redrawn.meta).toContain('alerting pipeline alive');
        const box = await page.locator('#alerts li.alert').first().boundingBox();
        expect(box!.width).toBeLessThanOrEqual(width);
        expect(errors).toEqual([]);
      } finally {
        await browser.close();
      }
    }, 30_000);
  }
});
