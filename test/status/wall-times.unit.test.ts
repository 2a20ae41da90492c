// The status page, its JSON API and the history file label times with the wall clock, while the
// board measures on the monotonic one: after the wall clock is stepped (forward, then back), an
// event shows the wall time it happened at, one from before the step keeps its distance to it,
// and the history file holds wall times that load back to the same monotonic ones.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock/clock.js';
import type { ProbeResult } from '../../src/domain.js';
import { FleetState } from '../../src/state/fleetState.js';
import { parseStatus } from '../../src/status/persist.js';
import { statusRoute } from '../../src/status/routes.js';
import { StatusService } from '../../src/status/service.js';
import { target } from '../support/targets.js';

const HOUR = 3_600_000;
const POLL_MS = 5;
const quiet = { warn: () => undefined, info: () => undefined, error: () => undefined } as never;
const iso = (ms: number) => new Date(ms).toISOString();

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

interface Shown {
  generatedAt: number;
  nodes: Array<{ since: number; lastCheck: number; recent: Array<{ at: number; outcome: string }> }>;
  events: Array<{ at: number; kind: string }>;
}

/** One node polled by hand on a manual clock pair, its board kept by a status service with a history file. */
async function rig(clock: ManualClock, file: string) {
  const state = new FleetState(
    [target('a', { probes: ['blockNumber'], intervalMs: 1000, timeoutMs: 500 })],
    { after: 1000, maxFactor: 1, jitter: 0, random: () => 0 },
    clock,
  );
  const service = new StatusService({
    logger: quiet,
    fleet: () => state,
    minIntervalMs: () => 1000,
    clockPair: () => clock,
  });
  await service.open(file);
  /** A poll now (it takes POLL_MS); returns the wall time it ended at. */
  const poll = (ok: boolean): number => {
    const r: ProbeResult = ok
      ? {
          kind: 'ok',
          probe: 'blockNumber',
          startedAt: clock.mono(),
          durationMs: POLL_MS,
          data: { probe: 'blockNumber', value: 7 },
          namespace: 'claw',
        }
      : {
          kind: 'failed',
          probe: 'blockNumber',
          startedAt: clock.mono(),
          durationMs: POLL_MS,
          reason: 'timeout',
          message: 'timed out',
        };
    clock.advance(POLL_MS);
    state.apply('a', r);
    service.noteResult('a', r);
    service.refresh();
    return clock.wall();
  };
  const get = async (path: string) => {
    const url = new URL(path, 'http://x');
    return (await statusRoute(
      { source: service.source(), version: 'test', ready: () => true },
      url.pathname,
      url.searchParams,
    ))!;
  };
  const api = async (): Promise<Shown> => JSON.parse((await get('/api/v1/nodes?recent=100')).body) as Shown;
  return { service, poll, get, api };
}

async function tempFile(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'status-wall-'));
  dirs.push(dir);
  return join(dir, 'status-history.json');
}

describe('status times under wall-clock steps', () => {
  it('the JSON API and the pages show the wall time of each event, before and after steps both ways', async () => {
    const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
    const { service, poll, get, api } = await rig(clock, await tempFile());
    poll(true);
    clock.advance(60_000);
    const downWall = poll(false);
    const downMono = clock.mono();

    clock.step(HOUR);
    clock.advance(30_000);
    const upWall = poll(true);
    let shown = await api();
    expect(shown.generatedAt).toBe(clock.wall());
    // Back with one probe answering: up or degraded, whichever the board makes of it.
    expect(shown.events.map((e) => e.kind)).toEqual([expect.stringMatching(/^node_(up|degraded)$/), 'node_down']);
    expect(shown.events[0]!.at).toBe(upWall);
    // From before the step: where the wall clock, as it reads now, puts it (30 s before the recovery).
    expect(shown.events[1]!.at).toBe(downWall + HOUR);
    expect(upWall - shown.events[1]!.at).toBe(clock.mono() - downMono);
    expect(shown.nodes[0]!.since).toBe(upWall);
    // A check is shown at its start.
    expect(shown.nodes[0]!.lastCheck).toBe(upWall - POLL_MS);
    expect(shown.nodes[0]!.recent.at(-1)!.at).toBe(upWall - POLL_MS);
    const fleet = (await get('/')).body;
    expect(fleet).toContain(`<time datetime="${iso(upWall)}"`);
    expect(fleet).toContain(`data-generated="${clock.wall()}"`);
    expect((await get('/nodes/a')).body).toContain(
      `<dt>Status since</dt><dd id="node-since"><time datetime="${iso(upWall)}"`,
    );

    clock.step(-2 * HOUR);
    clock.advance(20_000);
    const downAgainWall = poll(false);
    shown = await api();
    expect(shown.generatedAt).toBe(clock.wall());
    expect(shown.events[0]).toMatchObject({ kind: 'node_down', at: downAgainWall });
    expect(shown.events[1]!.at).toBe(downAgainWall - (20_000 + POLL_MS));
    expect(shown.nodes[0]!.recent.at(-1)!.at).toBe(downAgainWall - POLL_MS);
    const node = JSON.parse((await get('/api/v1/nodes/a')).body) as {
      node: { probes: Array<{ lastRun: number; lastSuccess: number }> };
      events: Array<{ at: number }>;
    };
    expect(node.node.probes[0]!.lastRun).toBe(downAgainWall - POLL_MS);
    expect(node.node.probes[0]!.lastSuccess).toBe(downAgainWall - (20_000 + POLL_MS));
    expect(node.events[0]!.at).toBe(downAgainWall);
    expect((await get('/nodes/a')).body).toContain(`<time datetime="${iso(downAgainWall)}"`);
    await service.close();
  });

  it('the history file saved after a step holds wall times and loads back to the same monotonic times', async () => {
    const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
    const file = await tempFile();
    const first = await rig(clock, file);
    for (let i = 0; i < 5; i++) {
      first.poll(i !== 2);
      clock.advance(10_000);
    }
    clock.step(HOUR);
    clock.advance(10_000);
    first.poll(true);
    const shown = await first.api();
    const board = first.service.board;
    const before = {
      history: board.history('a'),
      events: board.recentEvents(),
      since: board.node('a')!.since,
      uptime: board.uptime('a', '1h'),
    };
    await first.service.close();

    const saved = parseStatus(await readFile(file, 'utf8'));
    expect(JSON.parse(await readFile(file, 'utf8')).savedAt).toBe(clock.wall());
    expect(saved.nodes[0]!.history.entries().map((e) => e.at)).toEqual(shown.nodes[0]!.recent.map((e) => e.at));
    expect(saved.nodes[0]!.since).toBe(shown.nodes[0]!.since);
    expect(saved.events.map((e) => e.at)).toEqual(shown.events.map((e) => e.at).reverse());

    const again = await rig(clock, file);
    const b = again.service.board;
    expect(b.history('a')).toEqual(before.history);
    expect(b.recentEvents()).toEqual(before.events);
    expect(b.uptime('a', '1h')).toBe(before.uptime);
    // The status and its start are kept for the first update to take.
    expect(b.toFile().nodes[0]!.since).toBe(before.since);
    await again.service.close();
  });
});
