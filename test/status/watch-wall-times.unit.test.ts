// A watched entry's last read is kept on the monotonic clock; the status page, /api/v1/nodes,
// /api/v1/watch and ledger_watch_last_success_timestamp_seconds show its wall time. The wall clock
// here runs an hour ahead of the monotonic one (a step forward since the exporter started).
import { describe, expect, it } from 'vitest';
import { ByteWriter } from '../../src/metrics/byteWriter.js';
import { writeFleet } from '../../src/metrics/fleetText.js';
import { StatusBoard } from '../../src/status/board.js';
import { statusRoute, type StatusRouteDeps } from '../../src/status/routes.js';
import type { WatchSnapshot, WatchedAccountView } from '../../src/watch/types.js';

const HOUR = 3_600_000;
const NOW = 1_800_000_000_000;
const READ_AT = NOW - 10_000;
const account: WatchedAccountView = {
  kind: 'account',
  name: 'hot-wallet',
  address: 'ef'.repeat(32),
  network: 'mainnet',
  consecutiveFailures: 0,
  failures: {},
  intervalMs: 30_000,
  lastSuccessSeconds: READ_AT / 1000,
  minBalance: 25,
  balanceTokens: 100,
};
const watch: WatchSnapshot = { entries: [account] };

function deps(): StatusRouteDeps {
  const board = new StatusBoard({ now: () => NOW });
  return {
    source: { board, now: () => NOW, toWall: (t) => t + HOUR, refreshMs: 1000, watch: () => watch },
    version: 'test',
    ready: () => true,
  };
}

async function get(d: StatusRouteDeps, path: string) {
  const url = new URL(path, 'http://x');
  return (await statusRoute(d, url.pathname, url.searchParams))!;
}

describe('watched entries: the last read shown and exported as a wall time', () => {
  it('the pages and JSON show the wall time of the last read', async () => {
    const d = deps();
    const nodes = JSON.parse((await get(d, '/api/v1/nodes')).body) as {
      generatedAt: number;
      watch: Array<{ lastRead: number }>;
    };
    expect(nodes.generatedAt).toBe(NOW + HOUR);
    expect(nodes.watch[0]!.lastRead).toBe(READ_AT + HOUR);
    const api = JSON.parse((await get(d, '/api/v1/watch')).body) as { accounts: Array<{ lastSuccessSeconds: number }> };
    expect(api.accounts[0]!.lastSuccessSeconds).toBe((READ_AT + HOUR) / 1000);
    const page = (await get(d, '/')).body;
    expect(page).toContain(`<time datetime="${new Date(READ_AT + HOUR).toISOString()}"`);
    expect(page).toContain('10 s ago');
  });

  it('ledger_watch_last_success_timestamp_seconds is the wall time of the last read', () => {
    const out = new ByteWriter(1 << 16);
    writeFleet(out, { nodes: [], networks: [], watch, wallOffsetMs: HOUR }, { openMetrics: false, infoLabelKeys: [] });
    const line = out
      .bytes()
      .toString()
      .split('\n')
      .find((l) => l.startsWith('ledger_watch_last_success_timestamp_seconds{'));
    expect(Number(line!.split(' ').at(-1))).toBe((READ_AT + HOUR) / 1000);
  });
});
