// The browser tests' rig: Debian's chromium through scripts/browser.mjs (one launcher, shared with
// the screenshot script), the skip rule (skipped with one line when chromium is absent, unless
// REQUIRE_BROWSER=1, as in CI, where a missing browser fails), the two widths the page is tried
// at, and the status routes served over loopback for tests that build the board themselves.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromiumAvailable, CHROMIUM_PATH, openBrowser } from '../../scripts/browser.mjs';
import type { ProbeResult } from '../../src/domain.js';
import type { FleetState } from '../../src/state/fleetState.js';
import type { StatusBoard } from '../../src/status/board.js';
import { statusRoute, type StatusRouteDeps } from '../../src/status/routes.js';

export { openBrowser };

/** True when this file's browser tests are to be skipped (chromium absent and not required); says so once. */
export function skipWithoutBrowser(what: string): boolean {
  const skip = !chromiumAvailable() && process.env.REQUIRE_BROWSER !== '1';
  if (skip)
    console.warn(
      `${what} SKIPPED: chromium not found at ${CHROMIUM_PATH} (apt-get install chromium; REQUIRE_BROWSER=1 makes ` +
        `this a failure)`,
    );
  return skip;
}

/** Desktop and phone, as the issues ask the page to be tried: [width, height, isMobile]. */
export const WIDTHS = [
  [1280, 900, false],
  [390, 844, true],
] as const;

/** Each node's probe answered `blockNumber` = 100 (or the given result), and the board updated. */
export function pollAll(
  state: FleetState,
  board: StatusBoard,
  names: readonly string[],
  results: ReadonlyMap<string, ProbeResult> = new Map(),
): void {
  for (const n of names) {
    const r: ProbeResult = results.get(n) ?? {
      kind: 'ok',
      probe: 'blockNumber',
      startedAt: Date.now(),
      durationMs: 5,
      data: { probe: 'blockNumber', value: 100 },
      namespace: 'claw',
    };
    state.apply(n, r);
    board.noteResult(n, r);
  }
  board.update(state);
}

/** The status routes (pages, JSON, static files) on a loopback port; close() stops it. */
export async function serveStatus(deps: StatusRouteDeps): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    void statusRoute(deps, u.pathname, u.searchParams).then((r) => {
      res.writeHead(r?.status ?? 404, { 'content-type': r?.contentType ?? 'text/plain', ...(r?.headers ?? {}) });
      res.end(r?.body ?? 'not found');
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}
