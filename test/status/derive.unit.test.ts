// Status derivation, words and the board, on real fleet state and snapshots (clock injected).
import { describe, expect, it } from 'vitest';
import type { ProbeName, ProbeResult } from '../../src/domain.js';
import { FleetState } from '../../src/state/fleetState.js';
import { StatusBoard } from '../../src/status/board.js';
import { deriveNodeStatus, followLag, nextCheckAt } from '../../src/status/derive.js';
import { flapFold } from '../../src/status/events.js';
import type { StatusEvent } from '../../src/status/types.js';
import { formatDuration } from '../../src/status/words.js';
import { noBackoff, ok } from '../support/probeResults.js';
import { target } from '../support/targets.js';

const health = (height: number, status = 'ok', lastBlockAgeSecs?: number) => ({
  probe: 'health' as const,
  value: { status, version: '0.5.8', height, lastBlockAgeSecs, peerCount: 4 },
});
const proxy502 = (probe: ProbeName, at: number): ProbeResult => ({
  kind: 'failed',
  probe,
  startedAt: at,
  durationMs: 8,
  reason: 'http_5xx',
  message: `GET /${probe}: HTTP 502`,
  httpStatus: 502,
  response: {
    method: `GET /${probe}`,
    status: 502,
    headers: { 'content-type': 'text/html', server: 'nginx' },
    body: new Uint8Array(),
  },
});
const timeout = (probe: ProbeName, at: number): ProbeResult => ({
  kind: 'failed',
  probe,
  startedAt: at,
  durationMs: 2000,
  reason: 'timeout',
  message: 'timed out talking to http://127.0.0.1:1',
});

function fleet(names: string[], probes: ProbeName[] = ['health', 'blockNumber', 'validators']) {
  let now = 1_000_000;
  const state = new FleetState(
    names.map((n) => target(n, { probes, intervalMs: 5000, timeoutMs: 2000 })),
    noBackoff,
  );
  const lines: string[] = [];
  const logger = {
    warn: (_o: unknown, m: string) => lines.push(`warn ${m}`),
    info: (_o: unknown, m: string) => lines.push(`info ${m}`),
  } as never;
  const board = new StatusBoard({ now: () => now, logger });
  const apply = (node: string, r: ProbeResult) => {
    state.apply(node, r);
    board.noteResult(node, r);
  };
  const update = () => board.update(state);
  return { state, board, apply, update, lines, advance: (ms: number) => (now += ms), at: () => now };
}

describe('status derivation', () => {
  it('is unknown before any poll, then up; unsupported probes are shown as such and never make a node degraded', () => {
    const f = fleet(['a']);
    f.update();
    expect(f.board.node('a')).toMatchObject({ status: 'unknown', text: 'not polled yet' });
    f.apply('a', ok(health(100), f.at()));
    f.apply('a', ok({ probe: 'blockNumber', value: 100 }, f.at()));
    f.apply('a', {
      kind: 'unsupported',
      probe: 'validators',
      startedAt: f.at(),
      durationMs: 3,
      message: 'claw_getValidators is not offered by this node',
    });
    f.update();
    const s = f.board.node('a')!;
    expect(s.status).toBe('up');
    expect(s.probes.find((p) => p.probe === 'validators')).toMatchObject({ outcome: 'unsupported' });
    expect(s.nextCheckAt).toBe(f.at() + 5000);
    expect(f.lines).toEqual([]); // unknown -> up at start is not a change worth a line
  });

  it('says why a node is down in words, since when, and logs one line per change with the time it was down', () => {
    const f = fleet(['val-eu-1', 'val-us-1'], ['health']);
    f.apply('val-eu-1', ok(health(100), f.at()));
    f.apply('val-us-1', ok(health(100), f.at()));
    f.update();
    f.advance(5000);
    f.apply('val-eu-1', timeout('health', f.at()));
    f.apply('val-us-1', proxy502('health', f.at()));
    f.update();
    const downAt = f.at();
    expect(f.board.node('val-eu-1')).toMatchObject({ status: 'down', text: 'timeout after 2 s', since: downAt });
    expect(f.board.node('val-us-1')).toMatchObject({ status: 'down', text: 'HTTP 502 from proxy' });
    f.advance(192_000);
    f.apply('val-eu-1', ok(health(160), f.at()));
    f.update();
    expect(f.board.node('val-eu-1')).toMatchObject({ status: 'up', since: f.at() });
    expect(f.lines).toEqual([
      'warn val-eu-1 down: timeout after 2 s',
      'warn val-us-1 down: HTTP 502 from proxy',
      'info val-eu-1 up after 3m12s',
    ]);
    expect(f.board.recentEvents(10).map((e) => e.kind)).toEqual(['node_up', 'node_down', 'node_down']);
    // History: one entry per poll of the deciding probe, with outcome and reason.
    expect(f.board.history('val-eu-1').map((e) => e.outcome)).toEqual(['up', 'down', 'up']);
    expect(f.board.history('val-eu-1')[1]).toMatchObject({
      at: downAt,
      durationMs: 2000,
      reason: { code: 'timeout', n: 20 },
    });
  });

  it('degraded: a stalled node with its block age, a lagging one with its lag, a failing probe by name', () => {
    const f = fleet(['a', 'b', 'c']);
    for (const n of ['a', 'b', 'c']) f.apply(n, ok({ probe: 'blockNumber', value: 1000 }, f.at()));
    f.apply('a', ok(health(1000, 'degraded', 75), f.at()));
    f.apply('b', ok(health(970), f.at()));
    f.apply('c', ok(health(1000), f.at()));
    f.apply('c', proxy502('validators', f.at()));
    f.update();
    expect(f.board.node('a')).toMatchObject({
      status: 'degraded',
      text: 'health reports "degraded"; height unchanged for 75 s',
    });
    expect(f.board.node('b')).toMatchObject({ status: 'degraded', text: '30 blocks behind the fleet' });
    expect(f.board.node('c')).toMatchObject({ status: 'degraded', text: 'validators failing: HTTP 502 from proxy' });
  });

  it('tracks a frozen height itself when /health gives no block age', () => {
    const f = fleet(['a'], ['blockNumber']);
    f.apply('a', ok({ probe: 'blockNumber', value: 50 }, f.at()));
    f.update();
    f.advance(29_000);
    f.apply('a', ok({ probe: 'blockNumber', value: 50 }, f.at()));
    f.update();
    expect(f.board.node('a')!.status).toBe('up');
    f.advance(6_000);
    f.apply('a', ok({ probe: 'blockNumber', value: 50 }, f.at()));
    f.update();
    expect(f.board.node('a')).toMatchObject({ status: 'degraded', text: 'height unchanged for 35 s' });
    expect(f.lines).toEqual(['warn a degraded: height unchanged for 35 s']);
  });

  it('shows the next check on the schedule grid after a backoff pause', () => {
    expect(nextCheckAt({ lastRunAt: 1000 }, 5000)).toBe(6000);
    expect(nextCheckAt({ lastRunAt: 1000, notBefore: 3000 }, 5000)).toBe(6000);
    expect(nextCheckAt({ lastRunAt: 1000, notBefore: 12_100 }, 5000)).toBe(16_000);
    expect(nextCheckAt({}, 5000)).toBeUndefined();
  });

  it('formats durations as people read them', () => {
    expect([500, 2000, 75_000, 192_000, 7_500_000, 200_000_000].map(formatDuration)).toEqual([
      '0.5 s',
      '2 s',
      '75 s',
      '3m12s',
      '2h05m',
      '2d7h',
    ]);
  });
});

describe('status across a poll round', () => {
  it('a change seen mid-round waits for the round\'s end: no "degraded" blip from old failures', () => {
    const f = fleet(['a']);
    f.apply('a', proxy502('health', f.at()));
    f.apply('a', proxy502('blockNumber', f.at()));
    f.apply('a', proxy502('validators', f.at()));
    f.update();
    expect(f.board.node('a')!.status).toBe('down');
    f.advance(5000);
    f.apply('a', ok(health(100), f.at()));
    f.update(); // blockNumber and validators of this round still in flight: held
    expect(f.board.node('a')!.status).toBe('down');
    f.apply('a', ok({ probe: 'blockNumber', value: 100 }, f.at() + 5));
    f.apply('a', ok({ probe: 'validators', value: [] }, f.at() + 6));
    f.update();
    expect(f.board.node('a')).toMatchObject({ status: 'up', since: f.at() });
    // A round that never completes (a probe hangs) holds the change at most as long as a round can take.
    f.advance(5000);
    f.apply('a', timeout('health', f.at()));
    f.update();
    expect(f.board.node('a')!.status).toBe('up');
    f.advance(5000 + 3 * 2000 - 1);
    f.update();
    expect(f.board.node('a')!.status).toBe('up');
    f.advance(1);
    f.update();
    expect(f.board.node('a')).toMatchObject({ status: 'degraded', text: 'health failing: timeout after 2 s' });
    expect(f.lines).toEqual([
      'warn a down: HTTP 502 from proxy',
      'info a up after 5 s',
      'warn a degraded: health failing: timeout after 2 s',
    ]);
  });

  it('folds a third spell down within the window into one line, keeps two, restarts after quiet', () => {
    const f = fleet(['rpc-flaky', 'val-eu-1'], ['health']);
    // The height moves on between polls: a node answering with the same height for 30 s is stalled (degraded).
    let height = 100;
    const poll = (node: string, up: boolean) =>
      f.apply(node, up ? ok(health((height += 2)), f.at()) : timeout('health', f.at()));
    poll('rpc-flaky', true);
    poll('val-eu-1', true);
    f.update();
    const start = f.at();
    f.advance(5000);
    poll('rpc-flaky', false);
    f.update();
    f.advance(5000);
    poll('rpc-flaky', true);
    f.update();
    expect(f.board.recentEvents(10).map((e) => e.text)).toEqual([
      'rpc-flaky up after 5 s',
      'rpc-flaky down: timeout after 2 s',
    ]);
    f.advance(5000);
    poll('val-eu-1', false); // another node's event in between does not break the fold
    f.update();
    for (let i = 0; i < 2; i++) {
      f.advance(5000);
      poll('rpc-flaky', i % 2 === 0 ? false : true);
      f.update();
    }
    // Two spells down: still each change on its own line.
    expect(f.board.recentEvents(10).map((e) => e.text)).toEqual([
      'rpc-flaky up after 5 s',
      'rpc-flaky down: timeout after 2 s',
      'val-eu-1 down: timeout after 2 s',
      'rpc-flaky up after 5 s',
      'rpc-flaky down: timeout after 2 s',
    ]);
    for (let i = 2; i < 7; i++) {
      f.advance(5000);
      poll('rpc-flaky', i % 2 === 0 ? false : true);
      f.update();
    }
    const events = f.board.recentEvents(10);
    expect(events.map((e) => e.text)).toEqual([
      'rpc-flaky flapping: down 5 times in 45 s, now down: timeout after 2 s',
      'val-eu-1 down: timeout after 2 s',
    ]);
    expect(events[0]).toMatchObject({
      kind: 'node_down',
      node: 'rpc-flaky',
      changes: 9,
      spells: 5,
      firstAt: start + 5000,
    });
    // Every change is still one log line: the fold is for the page, not the record.
    expect(f.lines.filter((l) => l.includes('rpc-flaky'))).toHaveLength(9);
    // After a quiet window the next change is a line of its own again.
    f.advance(11 * 60_000);
    f.apply('rpc-flaky', ok(health(300), f.at()));
    f.update();
    expect(
      f.board
        .recentEvents(10)
        .map((e) => e.text)
        .slice(0, 2),
    ).toEqual(['rpc-flaky up after 11m00s', 'rpc-flaky flapping: down 5 times in 45 s, now down: timeout after 2 s']);
  });

  it('tells one hang and its recovery (degraded, down, up again) as three lines, not as flapping', () => {
    const f = fleet(['val-eu-1'], ['health']);
    f.apply('val-eu-1', ok(health(100), f.at()));
    f.update();
    f.advance(5000);
    f.apply('val-eu-1', ok(health(100, 'syncing'), f.at()));
    f.update();
    f.advance(5000);
    f.apply('val-eu-1', timeout('health', f.at()));
    f.update();
    f.advance(50_000);
    f.apply('val-eu-1', ok(health(120), f.at()));
    f.update();
    const texts = f.board.recentEvents(10).map((e) => e.text);
    expect(texts).toEqual([
      'val-eu-1 up after 50 s',
      'val-eu-1 down: timeout after 2 s',
      'val-eu-1 degraded: health reports "syncing"',
    ]);
    expect(texts.join('\n')).not.toContain('flapping');
  });
});

describe('flapping (flapFold)', () => {
  const ev = (kind: StatusEvent['kind'], at: number): StatusEvent => ({ at, kind, node: 'n', text: kind });
  const newestFirst = (...es: StatusEvent[]) => es.reverse();

  it('counts spells, not changes: down and degraded in a row are one spell', () => {
    const hang = newestFirst(
      ev('node_degraded', 0),
      ev('node_down', 1000),
      ev('node_up', 60_000),
      ev('node_degraded', 70_000),
      ev('node_down', 71_000),
    );
    expect(flapFold(hang, ev('node_up', 80_000))).toBeUndefined();
    const third = flapFold(hang.concat().reverse().concat(ev('node_up', 80_000)).reverse(), ev('node_down', 90_000));
    expect(third).toEqual({ changes: 7, spells: 3, firstAt: 0, words: 'down or degraded 3 times' });
  });

  it('says "down" when every spell was down, and carries a folded line on', () => {
    const three = flapFold(
      newestFirst(ev('node_down', 0), ev('node_up', 10), ev('node_down', 20), ev('node_up', 30)),
      ev('node_down', 40),
    );
    expect(three).toEqual({ changes: 5, spells: 3, firstAt: 0, words: 'down 3 times' });
    const folded: StatusEvent = {
      ...ev('node_down', 40),
      text: 'n flapping: down 3 times in 40 ms, now down',
      changes: 5,
      firstAt: 0,
      spells: 3,
    };
    expect(flapFold([folded], ev('node_up', 50))).toEqual({ changes: 6, spells: 3, firstAt: 0, words: 'down 3 times' });
    expect(flapFold([ev('node_up', 50), folded], ev('node_degraded', 60))).toEqual({
      changes: 7,
      spells: 4,
      firstAt: 0,
      words: 'down or degraded 4 times',
    });
  });
});

describe('a lag that moves on the same side of the "behind" limit', () => {
  const behindInput = (lagBlocks: number | undefined, healthStatus = 'syncing') => {
    const state = new FleetState(
      [target('b', { probes: ['health', 'blockNumber'], intervalMs: 5000, timeoutMs: 2000 })],
      noBackoff,
    );
    state.apply('b', ok(health(100, healthStatus), 1_000_000));
    state.apply('b', ok({ probe: 'blockNumber', value: 100 }, 1_000_010));
    const node = state.get('b')!;
    return {
      node,
      live: ['health', 'blockNumber'] as ProbeName[],
      up: true,
      height: 100,
      lagBlocks,
      failures: new Map(),
    };
  };
  const now = 1_000_100;

  it('gives the status deriving again would give, with new reason objects (those handed out keep their words)', () => {
    for (const healthStatus of ['ok', 'syncing']) {
      for (const [from, to] of [
        [30, 45],
        [45, 21],
        [21, 70_000],
        [70_000, 70_001],
      ] as const) {
        const d = deriveNodeStatus(behindInput(from, healthStatus), now);
        const handedOut = d.status.reasons;
        const words = JSON.stringify(handedOut);
        expect(followLag(d, to)).toBe(true);
        expect(d.status).toEqual(deriveNodeStatus(behindInput(to, healthStatus), now).status);
        expect(JSON.stringify(handedOut)).toBe(words);
      }
    }
  });

  it('below the limit only the lag moves; crossing it in either direction asks for a new derivation', () => {
    const d = deriveNodeStatus(behindInput(3), now);
    expect(followLag(d, 20)).toBe(true);
    expect(d.status).toEqual(deriveNodeStatus(behindInput(20), now).status);
    expect(followLag(d, undefined)).toBe(true);
    expect(d.status).toEqual(deriveNodeStatus(behindInput(undefined), now).status);
    expect(followLag(d, 21)).toBe(false);
    expect(followLag(deriveNodeStatus(behindInput(40), now), 20)).toBe(false);
    expect(followLag(deriveNodeStatus(behindInput(40), now), undefined)).toBe(false);
  });

  it('on the board: a node behind follows its network tip without being derived again', () => {
    let derives = 0;
    let now = 1_000_000;
    const state = new FleetState(
      ['tip', 'slow'].map((n) => target(n, { probes: ['health'], intervalMs: 5000, timeoutMs: 2000 })),
      noBackoff,
    );
    const board = new StatusBoard({ now: () => now, derive: (input, at) => (derives++, deriveNodeStatus(input, at)) });
    state.apply('slow', ok(health(100), now));
    state.apply('tip', ok(health(130), now));
    board.update(state);
    expect(board.node('slow')).toMatchObject({ status: 'degraded', lagBlocks: 30, text: '30 blocks behind the fleet' });
    const before = derives;
    for (const tip of [131, 140, 125]) {
      now += 100;
      state.apply('tip', ok(health(tip), now));
      board.update(state);
      expect(board.node('slow')).toMatchObject({
        status: 'degraded',
        lagBlocks: tip - 100,
        text: `${tip - 100} blocks behind the fleet`,
      });
    }
    expect(derives - before).toBe(3); // the tip node's own results only
    now += 100;
    state.apply('tip', ok(health(110), now));
    board.update(state);
    expect(board.node('slow')).toMatchObject({ status: 'up', lagBlocks: 10 });
  });
});
