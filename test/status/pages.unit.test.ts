// The fleet page and /api/v1/nodes in windows of the worst-first list: a large fleet's page shows
// one page of rows with links to the others, while the summary and the networks count every node.
// Real FleetState and StatusBoard with an injected clock; the routes are called directly.
import { describe, expect, it } from 'vitest';
import type { ProbeResult } from '../../src/domain.js';
import { FleetState } from '../../src/state/fleetState.js';
import { StatusBoard } from '../../src/status/board.js';
import { statusRoute, type StatusRouteDeps } from '../../src/status/routes.js';
import { target } from '../support/targets.js';

const NOW = 1_800_000_000_000;
const ok = (height: number): ProbeResult => ({
  kind: 'ok',
  probe: 'blockNumber',
  startedAt: NOW - 100,
  durationMs: 5,
  data: { probe: 'blockNumber', value: height },
  namespace: 'claw',
});
const timeout: ProbeResult = {
  kind: 'failed',
  probe: 'blockNumber',
  startedAt: NOW - 100,
  durationMs: 2000,
  reason: 'timeout',
  message: 'timed out',
};

/** Seven nodes on two networks; b-2 and a-5 are down. */
function deps(pageRows?: number): StatusRouteDeps {
  const names = ['a-1', 'b-2', 'a-3', 'b-4', 'a-5', 'b-6', 'a-7'];
  const state = new FleetState(
    names.map((n) =>
      target(n, {
        probes: ['blockNumber'],
        network: n.startsWith('a') ? 'alpha' : 'beta',
        intervalMs: 5000,
        timeoutMs: 2000,
      }),
    ),
    { after: 1000, maxFactor: 1, jitter: 0, random: () => 0 },
  );
  const board = new StatusBoard({ now: () => NOW });
  for (const n of names) {
    const r = n === 'b-2' || n === 'a-5' ? timeout : ok(100);
    state.apply(n, r);
    board.noteResult(n, r);
  }
  board.update(state);
  return {
    source: { board, now: () => NOW, refreshMs: 1000, ...(pageRows ? { pageRows } : {}) },
    version: 'test',
    ready: () => true,
  };
}

const rowsOf = (html: string) =>
  [...html.matchAll(/<tr class="row-(\w+)" data-node="([^"]+)"/g)].map((m) => `${m[2]} ${m[1]}`);

async function get(d: StatusRouteDeps, path: string) {
  const url = new URL(path, 'http://x');
  const reply = await statusRoute(d, url.pathname, url.searchParams);
  return reply!;
}

describe('status pages in windows of the worst-first list', () => {
  it('shows one page of rows, worst first, linking the others; summary and networks count all', async () => {
    const d = deps(3);
    const all = JSON.parse((await get(d, '/api/v1/nodes')).body) as { nodes: Array<{ name: string }>; total: number };
    expect(all.total).toBe(7);
    const order = all.nodes.map((n) => n.name);
    expect(order.slice(0, 2)).toEqual(['a-5', 'b-2']);

    const first = await get(d, '/');
    expect(first.status).toBe(200);
    expect(rowsOf(first.body)).toEqual(['a-5 down', 'b-2 down', order[2] + ' up']);
    expect(first.body).toContain('nodes 1–3 of 7, worst first (page 1 of 3)');
    expect(first.body).toContain('<a href="?page=2">next ›</a> <a href="?page=3">last »</a>');
    expect(first.body).not.toContain('previous');
    expect(first.body).toContain('2 down · 0 degraded · 5 up');
    // Networks: every node counted, not only this page's.
    expect(first.body).toContain(
      '<tr><th scope="row">alpha</th><td class="n">3/4</td><td class="n">0</td><td class="n">1</td>',
    );
    expect(first.body).toContain(
      '<tr><th scope="row">beta</th><td class="n">2/3</td><td class="n">0</td><td class="n">1</td>',
    );
    // The page script refreshes this window only.
    expect(first.body).toContain('data-api="api/v1/nodes?recent=30&#38;offset=0&#38;limit=3"');

    const last = await get(d, '/?page=3');
    expect(rowsOf(last.body)).toEqual([`${order[6]} up`]);
    expect(last.body).toContain('nodes 7–7 of 7, worst first (page 3 of 3)');
    expect(last.body).toContain('<a href="./">« first</a> <a href="?page=2">‹ previous</a>');
    expect(last.body).not.toContain('next ›');
    expect(last.body).toContain('data-api="api/v1/nodes?recent=30&#38;offset=6&#38;limit=3"');
  });

  it('has no page links when every node fits on one page', async () => {
    const page = await get(deps(), '/');
    expect(rowsOf(page.body)).toHaveLength(7);
    expect(page.body).not.toContain('class="pager"');
  });

  it('gives the API windows of the same list, with the total and the whole summary', async () => {
    const d = deps();
    const all = JSON.parse((await get(d, '/api/v1/nodes?recent=2')).body) as {
      nodes: Array<{ name: string; recent: unknown[] }>;
    };
    const window = JSON.parse((await get(d, '/api/v1/nodes?recent=2&offset=2&limit=3')).body) as {
      nodes: Array<{ name: string; recent: unknown[] }>;
      total: number;
      offset: number;
      summary: Record<string, number>;
    };
    expect(window.nodes).toEqual(all.nodes.slice(2, 5));
    expect(window).toMatchObject({ total: 7, offset: 2, summary: { down: 2, up: 5 } });
    // The networks count every node whatever the window: the page script rebuilds its Networks table from them.
    expect((window as unknown as { networks: unknown }).networks).toEqual([
      { network: 'alpha', answering: 3, degraded: 0, down: 1, total: 4, highestBlock: 100 },
      { network: 'beta', answering: 2, degraded: 0, down: 1, total: 3, highestBlock: 100 },
    ]);
    const tail = JSON.parse((await get(d, '/api/v1/nodes?offset=5')).body) as { nodes: Array<{ name: string }> };
    expect(tail.nodes.map((n) => n.name)).toEqual(all.nodes.slice(5).map((n) => n.name));
    expect(JSON.parse((await get(d, '/api/v1/nodes?offset=99')).body)).toMatchObject({ nodes: [], total: 7 });
  });

  it('refuses bad windows and pages clearly', async () => {
    const d = deps(3);
    expect(await get(d, '/api/v1/nodes?limit=0')).toMatchObject({
      status: 400,
      body: '{"error":"limit must be an integer of at least 1"}',
    });
    expect(await get(d, '/api/v1/nodes?offset=-1')).toMatchObject({
      status: 400,
      body: '{"error":"offset must be an integer of at least 0"}',
    });
    expect(await get(d, '/api/v1/nodes?recent=1.5')).toMatchObject({
      status: 400,
      body: '{"error":"recent must be an integer from 0 to 100"}',
    });
    const bad = await get(d, '/?page=abc');
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('page must be an integer of at least 1');
    expect((await get(d, '/?page=0')).status).toBe(400);
    const beyond = await get(d, '/?page=4');
    expect(beyond.status).toBe(404);
    expect(beyond.body).toContain('There is no page 4 of nodes.');
  });
});
