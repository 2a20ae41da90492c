// alerting.maintenance and alerting.heartbeat: what is accepted, and the message for each mistake.
import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { heartbeatSchema, resolveHeartbeat } from '../../../src/alerting/heartbeat/config.js';
import { cronReason, maintenanceSchema, resolveMaintenance } from '../../../src/alerting/maintenance/config.js';
import { formatPath } from '../../../src/config/problems.js';
import { issuesToPathProblems } from '../../../src/config/zodIssues.js';

const section = z.strictObject({ maintenance: maintenanceSchema, heartbeat: heartbeatSchema });

function problems(input: unknown): string[] {
  const r = section.safeParse(input);
  if (r.success) return [];
  return issuesToPathProblems(r.error.issues, section).map((p) => `${formatPath(p.path)}: ${p.message}`);
}

describe('maintenance windows config', () => {
  it('accepts the contract example and resolves it', () => {
    const input = {
      maintenance: [
        {
          name: 'weekly-upgrade',
          schedule: '0 3 * * 0',
          timezone: 'Europe/Berlin',
          duration: '2h',
          match: { network: 'testnet' },
        },
        {
          name: 'disk-swap',
          start: '2026-12-01T02:00:00Z',
          end: '2026-12-01T04:00:00+00:00',
          match: { node: 'val-eu-1' },
        },
      ],
    };
    const r = section.parse(input);
    expect(resolveMaintenance(r.maintenance)).toEqual([
      {
        name: 'weekly-upgrade',
        schedule: '0 3 * * 0',
        timezone: 'Europe/Berlin',
        durationMs: 7_200_000,
        match: { network: 'testnet' },
      },
      {
        name: 'disk-swap',
        startMs: Date.parse('2026-12-01T02:00:00Z'),
        endMs: Date.parse('2026-12-01T04:00:00Z'),
        match: { node: 'val-eu-1' },
      },
    ]);
    expect(section.parse({}).maintenance).toEqual([]);
    expect(
      resolveMaintenance(
        section.parse({ maintenance: [{ name: 'n', schedule: '0 3 * * *', duration: '1h' }] }).maintenance,
      )[0],
    ).toMatchObject({
      timezone: 'UTC',
      match: {},
    });
  });

  it('reports each mistake at its key', () => {
    expect(
      problems({
        maintenance: [
          { name: 'a', schedule: '61 3 * * 0', timezone: 'Europe/Berlin', duration: '2h' },
          { name: 'b', schedule: '0 3 * * 0', timezone: 'Europe/Berlinn', duration: '2h' },
          { name: 'c', schedule: '0 0 3 * * 0', duration: '2h' },
          { name: 'd', schedule: '0 3 * * 0' },
          { name: 'e', schedule: '0 3 * * 0', duration: '200h', match: { network: '~(test' } },
          { name: 'f', start: '2026-12-01T02:00:00Z', end: '2026-12-01T01:00:00Z', timezone: 'UTC' },
          { name: 'g', start: '2026-12-01 02:00' },
          { name: 'a', start: '2026-12-01T02:00:00Z', end: '2026-12-01T03:00:00Z', match: { 'bad-label': 'x' } },
        ],
      }),
    ).toEqual([
      'maintenance[0].schedule: invalid cron expression: minute: 61 is a invalid expression for minute',
      'maintenance[1].timezone: unknown timezone: expected an IANA name such as Europe/Berlin, America/New_York or UTC',
      'maintenance[2].schedule: invalid cron expression: expected 5 fields (minute hour day-of-month month ' +
        'day-of-week), got 6',
      'maintenance[3].schedule: a recurring window needs a duration',
      'maintenance[4].duration: duration must be at most 168h (use a one-off window with start/end for longer work)',
      'maintenance[4].match.network: invalid regex after "~": /^(?:(test)$/u: Unterminated group',
      'maintenance[5].timezone: timezone applies to a schedule; one-off start/end carry their own offset',
      'maintenance[5].end: end must be after start',
      'maintenance[6].start: expected an RFC 3339 timestamp such as 2026-12-01T02:00:00Z',
      'maintenance[6]: a window needs either schedule + duration, or start + end',
      'maintenance[7].match["bad-label"]: invalid label name "bad-label": must match [a-zA-Z_][a-zA-Z0-9_]*',
      'maintenance[7].name: duplicate window name "a"',
    ]);
  });

  it('cron expressions: five fields, names and steps allowed', () => {
    expect(cronReason('0 3 * * sun')).toBeUndefined();
    expect(cronReason('*/15 1-5 1,15 jan-mar mon-fri')).toBeUndefined();
    expect(cronReason('')).toMatch(/expected 5 fields/);
    expect(cronReason('0 25 * * *')).toMatch(/^invalid cron expression: hour: /);
  });
});

describe('heartbeat config', () => {
  it('defaults and resolution', () => {
    expect(
      resolveHeartbeat(section.parse({ heartbeat: { url: 'https://hc-ping.example.org/3f2a' } }).heartbeat),
    ).toEqual({
      url: 'https://hc-ping.example.org/3f2a',
      method: 'GET',
      intervalMs: 60_000,
      timeoutMs: 10_000,
    });
    expect(resolveHeartbeat(section.parse({}).heartbeat)).toBeUndefined();
  });

  it('mistakes, without repeating the URL', () => {
    const out = problems({
      heartbeat: { url: 'ftp://user:secret-pw@hc/x', method: 'PUT', interval: '1s', timeout: '2m' },
    });
    expect(out).toEqual([
      'heartbeat.url: URL scheme must be http or https',
      'heartbeat.method: method must be GET or POST',
      'heartbeat.interval: interval must be between 5s and 24h',
      'heartbeat.timeout: timeout must be between 100ms and 1m',
    ]);
    expect(out.join('\n')).not.toContain('secret-pw');
    expect(problems({ heartbeat: { url: 'https://u:p@hc/x', interval: '10s', timeout: '11s' } })).toEqual([
      'heartbeat.url: URL must not contain user:password',
      'heartbeat.timeout: timeout must be at most interval',
    ]);
    // The documented minimum interval with no timeout written: the timeout is the interval (min(10s, 5s)).
    expect(problems({ heartbeat: { url: 'https://hc/x', interval: '5s' } })).toEqual([]);
    expect(
      resolveHeartbeat(section.parse({ heartbeat: { url: 'https://hc/x', interval: '5s' } }).heartbeat),
    ).toMatchObject({ intervalMs: 5_000, timeoutMs: 5_000 });
    // Outside its own bounds, a duration is not also compared with the other.
    expect(problems({ heartbeat: { url: 'https://hc/x', interval: '1m', timeout: '90s' } })).toEqual([
      'heartbeat.timeout: timeout must be between 100ms and 1m',
    ]);
    expect(problems({ heartbeat: { url: 'https://hc/x', interval: '2s', timeout: '10s' } })).toEqual([
      'heartbeat.interval: interval must be between 5s and 24h',
    ]);
  });
});

describe('heartbeat secrets', () => {
  it('the URL and its path (the check key) are secrets', async () => {
    const { heartbeatSecrets } = await import('../../../src/alerting/heartbeat/config.js');
    expect(
      heartbeatSecrets({
        url: 'https://hc-ping.example.org/3f2a-key?create=1',
        method: 'GET',
        intervalMs: 60_000,
        timeoutMs: 1_000,
      }),
    ).toEqual(['https://hc-ping.example.org/3f2a-key?create=1', '/3f2a-key?create=1']);
    expect(heartbeatSecrets(undefined)).toEqual([]);
  });
});

describe('maintenance and heartbeat in a config file', () => {
  it('mistakes are reported as file:line:col with the key path', async () => {
    const { parseConfig } = await import('../../../src/config/index.js');
    const yaml = [
      'nodes:',
      '  - {name: a, url: "http://127.0.0.1:1"}',
      'alerting:',
      '  receivers:',
      '    - {name: hook, webhook: {url: "http://127.0.0.1:2/hook"}}',
      '  maintenance:',
      '    - name: weekly',
      '      schedule: "0 3 * * 8"',
      '      timezone: Europe/Berlinn',
      '      duration: 2h',
      '  heartbeat:',
      '    url: "ftp://hc.example.org/key"',
      '',
    ].join('\n');
    let message = '';
    try {
      parseConfig(yaml, { file: 'cfg.yaml', env: {} });
    } catch (e) {
      message = (e as Error).message;
    }
    const lines = message.split('\n').slice(1);
    expect(lines).toEqual([
      expect.stringMatching(/^cfg\.yaml:8:17: alerting\.maintenance\[0\]\.schedule: invalid cron expression: /),
      'cfg.yaml:9:17: alerting.maintenance[0].timezone: unknown timezone: expected an IANA name such as ' +
        'Europe/Berlin, America/New_York or UTC',
      'cfg.yaml:12:10: alerting.heartbeat.url: URL scheme must be http or https',
    ]);
  });
});
