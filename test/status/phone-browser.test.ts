// The fleet page as an on-call person first reads it, in Debian's chromium at 1280 and 390 px:
// why a node fails in words (never UND_ERR_SOCKET or ECONNREFUSED), long hostnames and URLs
// wrapped at their dots and slashes rather than mid-word and never wider than the phone, and on
// the phone the cards of one alert collapsed behind one line ("6 alerts: LedgerNodeDown ×6") so
// the node list is near the top; open on the desktop; the commission alert's card says "commission
// 2.5%, expected 5%" (never "changed"). As served and after the script's refresh.
// The status routes over loopback with a real FleetState and StatusBoard.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALERT_DEFINITIONS } from '../../src/alerting/rules/definitions/index.js';
import { renderTemplate } from '../../src/alerting/rules/template.js';
import type { AlertParams, EvalContext } from '../../src/alerting/rules/types.js';
import type { ProbeResult } from '../../src/domain.js';
import { FleetState } from '../../src/state/fleetState.js';
import { StatusBoard } from '../../src/status/board.js';
import type { StatusRouteDeps } from '../../src/status/routes.js';
import type { AlertView } from '../../src/status/types.js';
import { openBrowser, pollAll, serveStatus, skipWithoutBrowser, WIDTHS } from '../support/browser.js';
import { target } from '../support/targets.js';

const skip = skipWithoutBrowser('status page phone browser test');

const LONG = 'validator-eu-west-1.prod.ledger-operations.example.com';
const DOWN = ['down-a', 'down-b', 'down-c', 'down-d', 'down-e', 'down-f'];
const names = [LONG, 'closed-1', ...DOWN];
const failed = (message: string): ProbeResult => ({
  kind: 'failed',
  probe: 'blockNumber',
  startedAt: Date.now(),
  durationMs: 3,
  reason: 'connect',
  message,
});
const RESULTS = new Map<string, ProbeResult>([
  [LONG, failed(`POST claw_blockNumber: request to https://${LONG}:9710/rpc/v1/ failed: EAI_FAIL_SOMETHING`)],
  ['closed-1', failed('POST claw_blockNumber: cannot reach http://10.0.0.2:9710/: UND_ERR_SOCKET')],
  ...DOWN.map((n): [string, ProbeResult] => [
    n,
    failed(`POST claw_blockNumber: cannot reach http://${n}/: ECONNREFUSED`),
  ]),
]);
const now = Date.now();

/** The commission alert's summary as the built-in engine writes it, for a validator charging 2.5% of an expected 5%. */
function commissionSummary(): { labels: Record<string, string>; summary: string } {
  const def = ALERT_DEFINITIONS.find((d) => d.name === 'LedgerValidatorCommissionChanged')!;
  const validator = { kind: 'validator', name: 'val-fee', network: 'mainnet', address: 'ee'.repeat(20) };
  const ctx = {
    snapshot: { watch: { entries: [{ ...validator, commissionBps: 500, commissionRatio: 0.025 }] } },
    range: () => [],
    rangeAge: () => 3_600_000,
  } as unknown as EvalContext;
  const [sample] = def.evaluate!(ctx);
  const labels = { ...sample!.labels, severity: 'warning' };
  return { labels, summary: renderTemplate(def.summary({} as AlertParams), labels, sample!.value, sample!.refs) };
}
const COMMISSION = commissionSummary();

const ACTIVE: AlertView[] = [
  ...DOWN.map((node, i): AlertView => ({
    name: 'LedgerNodeDown',
    state: 'firing',
    severity: 'critical',
    labels: { node, network: 'mainnet', severity: 'critical' },
    summary: `Node ${node} (mainnet) is down`,
    since: now - 60_000 - i,
  })),
  {
    name: 'LedgerNodeUnreachable',
    state: 'firing',
    severity: 'warning',
    labels: { node: LONG, network: 'mainnet', severity: 'warning' },
    summary: `Node ${LONG} cannot be reached at https://${LONG}:9710/rpc/v1/`,
    since: now - 30_000,
  },
  {
    name: 'LedgerValidatorCommissionChanged',
    state: 'pending',
    severity: 'warning',
    labels: COMMISSION.labels,
    summary: COMMISSION.summary,
    since: now - 10_000,
  },
];

const state = new FleetState(
  names.map((n) => target(n, { probes: ['blockNumber'], intervalMs: 5000, timeoutMs: 2000 })),
  { after: 1000, maxFactor: 1, jitter: 0, random: () => 0 },
);
const board = new StatusBoard({ now: () => Date.now() });
const deps: StatusRouteDeps = {
  source: { board, now: () => Date.now(), refreshMs: 1000, activeAlerts: () => ACTIVE },
  version: 'test',
  ready: () => true,
};
let served: Awaited<ReturnType<typeof serveStatus>>;

beforeAll(async () => {
  pollAll(state, board, names, RESULTS);
  served = await serveStatus(deps);
});

afterAll(async () => {
  await served?.close();
});

/** Text pieces between break points (<wbr>) of an element that a line break split: none where a piece fits a line. */
const SPLIT_PIECES = (selector: string) => `(() => {
  const out = [];
  for (const e of document.querySelectorAll(${JSON.stringify(selector)})) {
    const walker = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      if (t.textContent.trim().length < 2) continue;
      const range = document.createRange();
      range.selectNodeContents(t);
      const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
      const width = range.getBoundingClientRect().width;
      if (lines.size > 1 && !t.textContent.includes(' ') && width < e.clientWidth) out.push(t.textContent);
    }
  }
  return out;
})()`;

describe.skipIf(skip)('the fleet page read first, in chromium', () => {
  for (const [width, height, isMobile] of WIDTHS) {
    it(`${width} px: reasons in words, long words wrapped at break points, one alert's cards grouped`, async () => {
      const browser = await openBrowser({ viewport: { width, height }, isMobile });
      try {
        const page = await browser.context.newPage();
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(e.message));
        await page.goto(served.url);
        const read = async () => ({
          why: Object.fromEntries(
            await page
              .locator('#nodes tbody tr')
              .evaluateAll((rows: any[]) =>
                rows.map((r) => [r.getAttribute('data-node'), r.querySelector('.why').innerText]),
              ),
          ),
          group: await page.locator('#alerts details[data-group]').evaluateAll((ds: any[]) =>
            ds.map((d) => ({
              open: d.open,
              summary: d.querySelector('summary').innerText,
              cards: d.querySelectorAll('li.alert').length,
            })),
          ),
          visibleCards: await page.locator('#alerts li.alert:visible').count(),
          // The cards' words without their relative times, which move on.
          cardText: await page
            .locator('#alerts li.alert')
            .evaluateAll((cards: any[]) => cards.map((c) => c.textContent.replace(/\((?:now|[^()]* ago)\)/g, ''))),
          commission: await page
            .locator('#alerts li.alert[data-alertname="LedgerValidatorCommissionChanged"]')
            .innerText(),
          overflow: await page.evaluate(() => {
            const w = globalThis as any;
            return w.document.scrollingElement.scrollWidth - w.innerWidth;
          }),
          split: await page.evaluate<string[]>(SPLIT_PIECES('#nodes th, #nodes td.why, #alerts li.alert')),
        });
        const check = async () => {
          const r = await read();
          expect(r.why['closed-1']).toBe('connection closed by the node before it answered');
          expect(r.why['down-a']).toBe("connection refused: nothing listens on the node's port");
          expect(r.why[LONG]).toBe('cannot connect (EAI_FAIL_SOMETHING)');
          expect(Object.values(r.why).join(' ')).not.toMatch(/UND_ERR|ECONNREFUSED/);
          expect(r.overflow).toBeLessThanOrEqual(0);
          expect(r.split).toEqual([]);
          expect(r.group).toEqual([{ open: width > 760, summary: '6 alerts: LedgerNodeDown ×6, firing', cards: 6 }]);
          // The phone shows the group's line and the lone card; the desktop every card.
          expect(r.visibleCards).toBe(width > 760 ? 8 : 2);
          // It never changed: the card says what it charges and what it should.
          expect(r.commission).toContain('Validator val-fee (mainnet): commission 2.5%, expected 5%');
          expect(r.commission).not.toContain('changed');
          return r;
        };
        const first = await check();
        expect(first.cardText.filter((t) => /since \d\d:\d\d:\d\d UTC/.test(t))).toHaveLength(8);
        const nodesTop = () => page.locator('#nodes').evaluate((t) => t.getBoundingClientRect().top);
        const collapsedTop = await nodesTop();
        if (width <= 760) {
          // The node list starts within the first screen and a half; a tap opens the group.
          expect(collapsedTop).toBeLessThan(1.5 * height);
          await page.locator('#alerts details[data-group] summary').click();
          expect(await page.locator('#alerts li.alert:visible').count()).toBe(8);
          expect(await nodesTop()).toBeGreaterThan(collapsedTop);
        }
        // After the page script's refresh (it draws a new list): the same words, and the group as the reader left it.
        await page.evaluate(() => {
          (globalThis as any).document.querySelector('#alerts > ul').setAttribute('data-served', '');
        });
        await page.waitForFunction(() =>
          /updated \d+ s ago/.test((globalThis as any).document.getElementById('updated').textContent),
        );
        await page.waitForTimeout(1_500);
        const after = await read();
        expect(after.group.map((g) => g.open)).toEqual([true]);
        expect(after.cardText).toEqual(first.cardText);
        expect(await page.locator('#alerts > ul[data-served]').count()).toBe(0);
        expect(after.why['closed-1']).toBe('connection closed by the node before it answered');
        expect(after.overflow).toBeLessThanOrEqual(0);
        expect(after.split).toEqual([]);
        expect(errors).toEqual([]);
      } finally {
        await browser.close();
      }
    }, 40_000);
  }
});
