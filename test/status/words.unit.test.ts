// The status pages' small print in words: next checks never in the past, uptime with the time it
// covers, repeated evidence told once, chart axes. Pure functions, clock passed in.
import { describe, expect, it } from 'vitest';
import { buildEvidenceRecord, type EvidenceRecord } from '../../src/evidence/record.js';
import { uptimeBadge } from '../../src/status/badge.js';
import { historyBars, sparkline } from '../../src/status/charts.js';
import { groupRepeats } from '../../src/status/evidenceList.js';
import { HISTORY_LENGTH, NodeHistory } from '../../src/status/history.js';
import { nextCheckCell, type PollBar } from '../../src/status/html.js';
import { parseStatus, statusFilePieces } from '../../src/status/persist.js';
import { isDue, uptimeSummary, uptimeText } from '../../src/status/words.js';

const T = Date.UTC(2026, 10, 27, 13, 3, 15);
const H = 3_600_000;

describe('next check', () => {
  it('is a time to come while it is ahead, and "due now" once it has come (never "3.3 s ago")', () => {
    expect(nextCheckCell(T + 5000, T)).toContain('13:03:20 UTC');
    expect(nextCheckCell(T + 5000, T)).toContain('(in 5 s)');
    for (const late of [-3300, -1, 0, 999]) {
      const cell = nextCheckCell(T + late, T);
      expect(cell).toContain('due now');
      expect(cell).not.toMatch(/ago|13:03:1\d/);
    }
    expect(isDue(T + 1000, T)).toBe(false);
    expect(isDue(T + 999, T)).toBe(true);
    expect(nextCheckCell(undefined, T)).toContain('—');
  });
});

describe('uptime with the time it covers', () => {
  const figures = (covered: number, values: [number, number, number]) =>
    (['1 h', '24 h', '7 d'] as const).map((label, i) => ({
      label,
      windowMs: [H, 24 * H, 168 * H][i]!,
      value: values[i],
      coveredMs: Math.min(covered, [H, 24 * H, 168 * H][i]!),
    }));

  it('says over how much time a figure was measured when that is less than its window', () => {
    expect(uptimeText(0.5, 20_000, 24 * H)).toBe('50.00% over\u00a020\u00a0s');
    expect(uptimeText(0.5, 24 * H, 24 * H)).toBe('50.00%');
    expect(uptimeText(null, 0, 24 * H)).toBe('—');
  });

  it('gives one figure with its time under an hour of polls, then each window, unfilled ones timed', () => {
    expect(uptimeSummary(figures(20_000, [0.5, 0.5, 0.5]))).toBe('50.00% over the 20 s polled so far');
    expect(uptimeSummary(figures(5 * H + 600_000, [0.999, 0.98, 0.98]))).toBe(
      '1 h 99.90% · 24 h 98.00% (over 5h10m so far) · 7 d 98.00% (over 5h10m so far)',
    );
    expect(uptimeSummary(figures(200 * H, [1, 0.9999, 0.99]))).toBe('1 h 100% · 24 h 99.99% · 7 d 99.00%');
    expect(uptimeSummary(figures(0, [Number.NaN, 0, 0]).map((f) => ({ ...f, value: undefined })))).toBe('no polls yet');
  });

  it('covers from the first poll recorded, within the window, and keeps that across the history file', () => {
    const h = new NodeHistory();
    expect(h.covered('24h', T)).toBe(0);
    h.add({ at: T - 20_000, outcome: 'up', durationMs: 5, reason: { code: 'none' } });
    h.add({ at: T - 5000, outcome: 'down', durationMs: 5, reason: { code: 'timeout', n: 20 } });
    expect(h.covered('24h', T)).toBe(20_000);
    expect(h.uptime('24h', T)).toBe(0.5);
    expect(h.covered('1h', T + 2 * H)).toBe(H);
    const back = parseStatus([...statusFilePieces({ nodes: [{ name: 'a', history: h }], events: [] }, T)].join(''));
    expect(back.nodes[0]!.history.covered('24h', T)).toBe(20_000);
  });

  it('guesses the first poll of a history saved without it: its oldest hourly bucket with polls', () => {
    const h = new NodeHistory();
    for (let i = 0; i < HISTORY_LENGTH + 50; i++)
      h.add({ at: T - 3 * H + i * 60_000, outcome: 'up', durationMs: 5, reason: { code: 'none' } });
    const text = [...statusFilePieces({ nodes: [{ name: 'a', history: h }], events: [] }, T)]
      .join('')
      .replace(/"firstAt":\d+,/, '');
    expect(text).not.toContain('firstAt');
    const guessed = parseStatus(text).nodes[0]!.history;
    expect(guessed.firstAt).toBe(Math.floor((T - 3 * H) / H) * H);
    expect(guessed.covered('24h', T)).toBeGreaterThanOrEqual(3 * H);
  });
});

describe('uptime badge', () => {
  it('names the time polled while it is shorter than the window, and the window after', () => {
    expect(uptimeBadge('24h', 0.5, { ms: 20_000, windowMs: 24 * H })).toContain('aria-label="uptime 20 s: 50.00%"');
    expect(uptimeBadge('24h', 0.5, { ms: 24 * H, windowMs: 24 * H })).toContain('aria-label="uptime 24h: 50.00%"');
    expect(uptimeBadge('24h', undefined, { ms: 0, windowMs: 24 * H })).toContain('aria-label="uptime 24h: no data"');
  });
});

describe('repeated evidence', () => {
  const record = (time: string, body: string, attempt: number, method = 'GET /health'): EvidenceRecord => {
    const r = buildEvidenceRecord(
      {
        node: 'n1',
        network: 'mainnet',
        url: 'http://127.0.0.1:1',
        probe: 'health',
        method,
        status: 502,
        durationMs: 7,
        attempt,
        headers: { server: 'nginx' },
        body: Buffer.from(body),
        runnerStatus: { consecutiveFailures: attempt, lastSuccess: null },
      },
      { hostname: 'h', version: 'v' },
    );
    return { ...r, time };
  };

  it('shows a repeated answer once with count, first time and requests; different ones apart, newest first', () => {
    const page = '<html><body><h1>502 Bad Gateway</h1></body></html>';
    const methods = ['POST claw_getValidators', 'GET /health', 'GET /health', 'POST claw_blockNumber', 'GET /metrics'];
    const records = [5, 4, 3, 2, 1].map((i) =>
      record(`2026-11-27T13:0${i}:00.000Z`, i === 3 ? 'upstream reset' : page, i, methods[5 - i]),
    );
    const groups = groupRepeats(records);
    expect(groups.map((g) => [g.newest.time, g.count, g.oldestTime, g.newest.body, g.requests])).toEqual([
      [
        '2026-11-27T13:05:00.000Z',
        4,
        '2026-11-27T13:01:00.000Z',
        page,
        ['POST claw_getValidators', 'GET /health', 'POST claw_blockNumber', 'GET /metrics'],
      ],
      ['2026-11-27T13:03:00.000Z', 1, '2026-11-27T13:03:00.000Z', 'upstream reset', ['GET /health']],
    ]);
  });
});

describe('chart axes', () => {
  const polls: PollBar[] = [0, 1, 2, 3].map((i) => ({
    at: T - (3 - i) * 15_000,
    outcome: i === 2 ? 'down' : 'up',
    durationMs: [12, 40, 2000, 15][i]!,
    reason: '',
  }));

  it('puts the first and last poll times under the node page history, and none under the fleet rows', () => {
    const big = historyBars(polls, HISTORY_LENGTH, { axis: true });
    expect(big).toContain('>13:03:15 UTC</text>');
    // Four polls take the right 16 px of 400: no room for a second label.
    expect(big).not.toContain('>13:02:30</text>');
    const full = historyBars(
      Array.from({ length: HISTORY_LENGTH }, (_, i) => ({ ...polls[0]!, at: T - (99 - i) * 15_000 })),
      HISTORY_LENGTH,
      { axis: true },
    );
    expect(full).toContain('>12:38:30</text>');
    expect(full).toContain('>13:03:15 UTC</text>');
    expect(historyBars(polls, 30)).not.toContain('<text');
  });

  it('labels the response-time chart with ms from 0 to the highest and the times of its first and last poll', () => {
    const svg = sparkline(polls);
    expect(svg).toContain('>2000 ms</text>');
    expect(svg).toContain('>0 ms</text>');
    expect(svg).toContain('>13:02:30</text>');
    expect(svg).toContain('>13:03:15 UTC</text>');
    // Placed by time: the polls are 15 s apart, so the points are evenly spaced from the y axis to the right end.
    const xs = /points="([^"]+)"/
      .exec(svg)![1]!
      .split(' ')
      .map((p) => Number(p.split(',')[0]));
    expect(xs[0]).toBe(48);
    expect(xs.at(-1)).toBe(48 + 290);
    expect(xs[2]! - xs[1]!).toBeCloseTo(xs[1]! - xs[0]!, 0); // rounded to 0.1 px
  });
});
