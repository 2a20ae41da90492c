// Maintenance windows with an explicit clock: every answer is asked for a given instant.
import { afterEach, describe, expect, it } from 'vitest';
import { MaintenanceWindows, type MaintenanceWindowSpec } from '../../../src/alerting/maintenance/windows.js';
import { CronStarts, timezoneReason } from '../../../src/alerting/maintenance/cron.js';
import { compileLabelMatch, matchValueReason } from '../../../src/alerting/maintenance/match.js';

const H = 3_600_000;
const M = 60_000;
const at = (iso: string) => Date.parse(iso);
const opened: MaintenanceWindows[] = [];
const windows = (specs: MaintenanceWindowSpec[]) => {
  const w = new MaintenanceWindows(specs);
  opened.push(w);
  return w;
};
afterEach(() => {
  for (const w of opened.splice(0)) w.dispose();
});

const weekly: MaintenanceWindowSpec = {
  name: 'weekly-upgrade',
  schedule: '0 3 * * 0',
  timezone: 'Europe/Berlin',
  durationMs: 2 * H,
  match: { network: 'testnet' },
};

describe('recurring windows', () => {
  it('is active from the cron start, in its timezone, for its duration', () => {
    const w = windows([weekly]);
    // Sunday 2026-11-22, 03:00 in Berlin (CET, UTC+1) is 02:00 UTC.
    expect(w.active(at('2026-11-22T01:59:59Z'))).toEqual([]);
    expect(w.active(at('2026-11-22T02:00:00Z'))).toEqual([
      { name: 'weekly-upgrade', since: at('2026-11-22T02:00:00Z'), until: at('2026-11-22T04:00:00Z') },
    ]);
    expect(w.active(at('2026-11-22T03:59:59.999Z'))).toHaveLength(1);
    expect(w.active(at('2026-11-22T04:00:00Z'))).toEqual([]);
    expect(w.active(at('2026-11-23T02:30:00Z'))).toEqual([]); // Monday
    // Summer time: 03:00 CEST is 01:00 UTC.
    expect(w.active(at('2026-07-05T01:00:00Z'))[0]?.since).toBe(at('2026-07-05T01:00:00Z'));
    expect(w.active(at('2026-07-05T02:59:00Z'))).toHaveLength(1);
    expect(w.active(at('2026-07-05T03:00:00Z'))).toEqual([]);
  });

  it('recognises a window already in progress when the exporter starts or reloads', () => {
    // A fresh instance (start-up, reload) asked mid-window finds the last start before now.
    const w = windows([weekly]);
    expect(w.active(at('2026-11-22T03:10:00Z'))).toEqual([
      { name: 'weekly-upgrade', since: at('2026-11-22T02:00:00Z'), until: at('2026-11-22T04:00:00Z') },
    ]);
  });

  it('gives the same answers when asked minute after minute as when asked afresh', () => {
    const spec: MaintenanceWindowSpec = {
      name: 'n',
      schedule: '*/20 1-3 * * *',
      timezone: 'America/New_York',
      durationMs: 7 * M,
      match: {},
    };
    const stepping = windows([spec]);
    const from = at('2026-11-22T05:00:00Z');
    let activeMinutes = 0;
    for (let t = from; t < from + 4 * H; t += 30_000) {
      const fresh = new MaintenanceWindows([spec]);
      const got = stepping.active(t);
      expect(got).toEqual(fresh.active(t));
      fresh.dispose();
      if (got.length > 0) activeMinutes += 0.5;
    }
    // 01:00-03:40 New York (EST) every 20 min: 9 starts x 7 min inside this range.
    expect(activeMinutes).toBe(9 * 7);
  });

  it('one start overlapping the next keeps the window active throughout', () => {
    const w = windows([{ name: 'hourly', schedule: '0 * * * *', timezone: 'UTC', durationMs: 90 * M, match: {} }]);
    for (let t = at('2026-11-22T00:00:00Z'); t < at('2026-11-22T06:00:00Z'); t += 7 * M) {
      const [occ] = w.active(t);
      expect(occ?.since).toBe(Math.floor(t / H) * H); // the latest start, whose end is the latest
    }
  });
});

describe('one-off windows', () => {
  it('is active on [start, end)', () => {
    const w = windows([
      {
        name: 'disk-swap',
        startMs: at('2026-12-01T02:00:00Z'),
        endMs: at('2026-12-01T04:00:00Z'),
        match: { node: 'val-eu-1' },
      },
    ]);
    expect(w.active(at('2026-12-01T01:59:59Z'))).toEqual([]);
    expect(w.isSilenced({ node: 'val-eu-1' }, at('2026-12-01T02:00:00Z'))).toBe('disk-swap');
    expect(w.isSilenced({ node: 'val-eu-2' }, at('2026-12-01T02:00:00Z'))).toBeUndefined();
    expect(w.isSilenced({ node: 'val-eu-1' }, at('2026-12-01T04:00:00Z'))).toBeUndefined();
  });
});

describe('overlapping windows', () => {
  it('lists every active window and names the first one (config order) that matches the alert', () => {
    const w = windows([
      weekly,
      {
        name: 'eu-swap',
        startMs: at('2026-11-22T01:00:00Z'),
        endMs: at('2026-11-22T03:00:00Z'),
        match: { node: '~val-eu-.*' },
      },
      { name: 'all', startMs: at('2026-11-22T02:30:00Z'), endMs: at('2026-11-22T05:00:00Z'), match: {} },
    ]);
    const t = at('2026-11-22T02:45:00Z');
    expect(w.active(t).map((o) => o.name)).toEqual(['weekly-upgrade', 'eu-swap', 'all']);
    expect(w.isSilenced({ node: 'val-eu-1', network: 'testnet' }, t)).toBe('weekly-upgrade');
    expect(w.isSilenced({ node: 'val-eu-1', network: 'mainnet' }, t)).toBe('eu-swap');
    expect(w.isSilenced({ node: 'val-us-1', network: 'mainnet' }, t)).toBe('all');
    expect(w.isSilenced({ node: 'val-eu-1', network: 'mainnet' }, at('2026-11-22T03:30:00Z'))).toBe('all');
    expect(w.isSilenced({ node: 'val-eu-1', network: 'mainnet' }, at('2026-11-22T05:00:00Z'))).toBeUndefined();
  });
});

describe('daylight saving (Europe/Berlin, a window at 02:30)', () => {
  const daily: MaintenanceWindowSpec = {
    name: 'nightly',
    schedule: '30 2 * * *',
    timezone: 'Europe/Berlin',
    durationMs: H,
    match: {},
  };

  it('spring forward: 02:30 does not exist, the window starts at 03:00 CEST and lasts its duration', () => {
    const w = windows([daily]);
    // The day before: 02:30 CET = 01:30 UTC.
    expect(w.active(at('2026-03-28T01:30:00Z'))[0]?.since).toBe(at('2026-03-28T01:30:00Z'));
    // 2026-03-29: clocks jump from 02:00 CET to 03:00 CEST at 01:00 UTC.
    expect(w.active(at('2026-03-29T00:59:00Z'))).toEqual([]);
    expect(w.active(at('2026-03-29T01:00:00Z'))).toEqual([
      { name: 'nightly', since: at('2026-03-29T01:00:00Z'), until: at('2026-03-29T02:00:00Z') },
    ]);
    expect(w.active(at('2026-03-29T01:59:59Z'))).toHaveLength(1);
    expect(w.active(at('2026-03-29T02:00:00Z'))).toEqual([]);
    // The day after: 02:30 CEST = 00:30 UTC.
    expect(w.active(at('2026-03-30T00:30:00Z'))[0]?.since).toBe(at('2026-03-30T00:30:00Z'));
  });

  it('fall back: 02:30 happens twice, the window starts once (the first time) and lasts one elapsed hour', () => {
    const w = windows([daily]);
    // 2026-10-25: clocks go back from 03:00 CEST to 02:00 CET at 01:00 UTC.
    expect(w.active(at('2026-10-25T00:29:00Z'))).toEqual([]);
    expect(w.active(at('2026-10-25T00:30:00Z'))).toEqual([
      { name: 'nightly', since: at('2026-10-25T00:30:00Z'), until: at('2026-10-25T01:30:00Z') },
    ]);
    // 01:30 UTC reads 02:30 CET again: no second start.
    expect(w.active(at('2026-10-25T01:30:00Z'))).toEqual([]);
    expect(w.active(at('2026-10-25T02:15:00Z'))).toEqual([]);
    // The day after: 02:30 CET = 01:30 UTC.
    expect(w.active(at('2026-10-26T01:30:00Z'))[0]?.since).toBe(at('2026-10-26T01:30:00Z'));
  });

  it('the start instants around both changes, minute by minute', () => {
    const starts = new CronStarts('30 2 * * *', 'Europe/Berlin');
    const found = (fromIso: string, hours: number) => {
      const out: string[] = [];
      for (let t = at(fromIso); t < at(fromIso) + hours * H; t += M)
        if (starts.startsAt(t)) out.push(new Date(t).toISOString());
      return out;
    };
    try {
      expect(found('2026-03-28T22:00:00Z', 6)).toEqual(['2026-03-29T01:00:00.000Z']);
      expect(found('2026-10-24T22:00:00Z', 6)).toEqual(['2026-10-25T00:30:00.000Z']);
    } finally {
      starts.dispose();
    }
  });
});

describe('label match', () => {
  it('exact values, and ~regex anchored at both ends; a missing label reads as ""', () => {
    const m = compileLabelMatch({ network: '~test', node: '~val-.*' });
    expect(m({ network: 'test', node: 'val-1' })).toBe(true);
    expect(m({ network: 'testnet', node: 'val-1' })).toBe(false);
    expect(m({ network: 'test', node: 'xval-1' })).toBe(false);
    expect(compileLabelMatch({ network: 'testnet' })({ network: 'testnet2' })).toBe(false);
    expect(compileLabelMatch({ env: '' })({ node: 'a' })).toBe(true);
    expect(compileLabelMatch({ env: '~.+' })({ node: 'a' })).toBe(false);
    expect(compileLabelMatch({})({ node: 'a' })).toBe(true);
  });

  it('reasons for bad regexes and timezones', () => {
    expect(matchValueReason('~(unclosed')).toMatch(/^invalid regex after "~": /);
    expect(matchValueReason('(literal')).toBeUndefined();
    expect(timezoneReason('Europe/Berlin')).toBeUndefined();
    expect(timezoneReason('Mars/Olympus')).toMatch(/^unknown timezone/);
  });
});
