// The live schedule on a fake clock: node-cron fires the starts, a timer the ends; reloads apply
// at once; the metric shows each window.
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WindowOccurrence } from '../../../src/alerting/maintenance/windows.js';
import { MaintenanceSchedule, maintenanceCollectors } from '../../../src/alerting/maintenance/schedule.js';

const H = 3_600_000;
const at = (iso: string) => Date.parse(iso);

let schedule: MaintenanceSchedule;
let lines: string[];
let changes: string[][];

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
  lines = [];
  changes = [];
  schedule = new MaintenanceSchedule({
    log: { info: (o: object, m: string) => void lines.push(`${m} ${(o as { window?: string }).window ?? ''}`) },
    onChange: (active: readonly WindowOccurrence[]) => void changes.push(active.map((o) => o.name)),
  });
});
afterEach(() => {
  schedule.stop();
  vi.useRealTimers();
});

async function metric(): Promise<string> {
  const registry = new Registry();
  maintenanceCollectors(registry, () => schedule);
  return (await registry.getSingleMetricAsString('ledger_alert_maintenance_active'))
    .split('\n')
    .filter((l) => !l.startsWith('#'))
    .join('\n');
}

describe('maintenance schedule', () => {
  it('node-cron fires the start, the end timer the end; each logged once; the metric follows', async () => {
    vi.setSystemTime(at('2026-11-22T01:58:00Z')); // Sunday, 02:58 in Berlin
    schedule.apply([
      {
        name: 'weekly-upgrade',
        schedule: '0 3 * * 0',
        timezone: 'Europe/Berlin',
        durationMs: 2 * H,
        match: { network: 'testnet' },
      },
      {
        name: 'disk-swap',
        startMs: at('2026-12-01T02:00:00Z'),
        endMs: at('2026-12-01T04:00:00Z'),
        match: { node: 'val-eu-1' },
      },
    ]);
    expect(await metric()).toBe(
      'ledger_alert_maintenance_active{name="weekly-upgrade"} 0\nledger_alert_maintenance_active{name="disk-swap"} 0',
    );
    expect(lines).toEqual([]);

    await vi.advanceTimersByTimeAsync(2 * 60_000 + 500);
    expect(lines).toEqual(['maintenance window started weekly-upgrade']);
    expect(changes).toEqual([['weekly-upgrade']]);
    expect(await metric()).toContain('{name="weekly-upgrade"} 1');
    expect(schedule.isSilenced({ network: 'testnet', node: 'a' }, Date.now())).toBe('weekly-upgrade');
    expect(schedule.isSilenced({ network: 'mainnet', node: 'a' }, Date.now())).toBeUndefined();

    await vi.advanceTimersByTimeAsync(2 * H);
    expect(lines).toEqual(['maintenance window started weekly-upgrade', 'maintenance window ended weekly-upgrade']);
    expect(changes).toEqual([['weekly-upgrade'], []]);
    expect(await metric()).toContain('{name="weekly-upgrade"} 0');
  });

  it('one-off windows start and end on their timers, days ahead', async () => {
    vi.setSystemTime(at('2026-11-29T00:00:00Z'));
    schedule.apply([
      { name: 'disk-swap', startMs: at('2026-12-01T02:00:00Z'), endMs: at('2026-12-01T04:00:00Z'), match: {} },
    ]);
    await vi.advanceTimersByTimeAsync(at('2026-12-01T02:00:00Z') - Date.now());
    expect(lines).toEqual(['maintenance window started disk-swap']);
    await vi.advanceTimersByTimeAsync(2 * H);
    expect(lines).toEqual(['maintenance window started disk-swap', 'maintenance window ended disk-swap']);
  });

  it('a reload applies at once: a window already in progress is active, a removed one ends', async () => {
    vi.setSystemTime(at('2026-11-22T02:30:00Z'));
    schedule.apply([]);
    expect(schedule.active()).toEqual([]);
    schedule.apply([
      { name: 'weekly-upgrade', schedule: '0 3 * * 0', timezone: 'Europe/Berlin', durationMs: 2 * H, match: {} },
    ]);
    expect(schedule.active()).toEqual([
      { name: 'weekly-upgrade', since: at('2026-11-22T02:00:00Z'), until: at('2026-11-22T04:00:00Z') },
    ]);
    expect(lines).toEqual(['maintenance window started weekly-upgrade']);
    schedule.apply([{ name: 'other', schedule: '0 3 * * 1', timezone: 'Europe/Berlin', durationMs: 2 * H, match: {} }]);
    expect(lines).toEqual(['maintenance window started weekly-upgrade', 'maintenance window ended weekly-upgrade']);
    expect(await metric()).toBe('ledger_alert_maintenance_active{name="other"} 0');
    // The replaced window's node-cron task and end timer are gone: nothing more happens.
    await vi.advanceTimersByTimeAsync(7 * 24 * H);
    expect(lines.filter((l) => l.includes('weekly-upgrade'))).toHaveLength(2);
  });
});
