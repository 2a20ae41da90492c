// `alerting.maintenance`: schema, checks and resolution of maintenance windows (one module per
// section). The `alerting:` section module includes `maintenanceSchema` under `maintenance`.
import { validateDetailed } from 'node-cron';
import * as z from 'zod';
import { configDurationReason, parseDuration } from '../../config/duration.js';
import { LABEL_NAME_RE, nameReason } from '../../config/rules.js';
import type { MaintenanceWindowSpec } from './windows.js';
import { timezoneReason } from './cron.js';
import { matchValueReason } from './match.js';

/** Steps back over at most this much (one node-cron match per minute); longer outages: one-off windows. */
export const MAX_RECURRING_DURATION_MS = 7 * 24 * 3_600_000;

/** Why a cron expression cannot be used, or undefined. Minute precision, five fields. */
export function cronReason(expr: string): string | undefined {
  const fields = expr.trim().split(/\s+/);
  if (fields.length !== 5) {
    return (
      `invalid cron expression: expected 5 fields (minute hour day-of-month month day-of-week), got ` +
      `${fields.length}`
    );
  }
  const v = validateDetailed(expr);
  if (v.valid) return undefined;
  return (
    `invalid cron expression: ` +
    `${v.errors.map((e) => (e.field === 'expression' ? e.message : `${e.field}: ${e.message}`)).join('; ')}`
  );
}

function windowDurationReason(text: string): string | undefined {
  return configDurationReason(text, {
    minMs: 60_000,
    maxMs: MAX_RECURRING_DURATION_MS,
    tooLong: 'duration must be at most 168h (use a one-off window with start/end for longer work)',
  });
}

const reasoned = (rule: (s: string) => string | undefined) =>
  z.string().superRefine((s, ctx) => {
    const reason = rule(s);
    if (reason) ctx.addIssue({ code: 'custom', message: reason });
  });

const matchSchema = z
  .record(
    reasoned((k) =>
      LABEL_NAME_RE.test(k) ? undefined : `invalid label name "${k}": must match [a-zA-Z_][a-zA-Z0-9_]*`,
    ),
    reasoned(matchValueReason),
  )
  .default({})
  .meta({ description: 'Label name -> exact value, or ~regex (anchored). Empty: every alert.' });

const timestamp = z.iso.datetime({
  offset: true,
  error: 'expected an RFC 3339 timestamp such as 2026-12-01T02:00:00Z',
});

const windowSchema = z
  .strictObject({
    name: reasoned((s) => {
      const r = nameReason(s);
      return r && `window name ${r}`;
    }).meta({ description: 'Unique window name; the `name` label of ledger_alert_maintenance_active.' }),
    schedule: reasoned(cronReason)
      .optional()
      .meta({ description: 'Cron expression (minute hour day-of-month month day-of-week) of each start.' }),
    timezone: reasoned(timezoneReason)
      .optional()
      .meta({ description: 'IANA timezone the schedule is read in; default UTC.' }),
    duration: reasoned(windowDurationReason)
      .optional()
      .meta({ description: 'How long each recurring window lasts. Go-style duration, 1m to 168h, e.g. 2h.' }),
    start: timestamp.optional().meta({ description: 'One-off window start (RFC 3339).' }),
    end: timestamp.optional().meta({ description: 'One-off window end (RFC 3339).' }),
    match: matchSchema,
  })
  .superRefine((w, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (w.schedule !== undefined) {
      if (w.duration === undefined) issue('schedule', 'a recurring window needs a duration');
      for (const k of ['start', 'end'] as const)
        if (w[k] !== undefined)
          issue(k, `"${k}" belongs to one-off windows; a window has either schedule or start/end`);
      return;
    }
    if (w.timezone !== undefined)
      issue('timezone', 'timezone applies to a schedule; one-off start/end carry their own offset');
    if (w.duration !== undefined)
      issue('duration', 'duration applies to a schedule; a one-off window has start and end');
    if (w.start === undefined || w.end === undefined) {
      ctx.addIssue({ code: 'custom', path: [], message: 'a window needs either schedule + duration, or start + end' });
    } else if (Date.parse(w.end) <= Date.parse(w.start)) {
      issue('end', 'end must be after start');
    }
  })
  .meta({ description: 'A maintenance window: alerts it matches are evaluated and listed but not sent.' });

export const maintenanceSchema = z
  .array(windowSchema)
  .superRefine(
    (list, ctx) => {
      const seen = new Set<string>();
      list.forEach((w: { name?: unknown } | null, i) => {
        const name = w?.name;
        if (typeof name !== 'string') return;
        if (seen.has(name))
          ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `duplicate window name "${name}"` });
        seen.add(name);
      });
    },
    // Also when some window has other mistakes: every problem is reported in one pass.
    { when: (payload) => Array.isArray(payload.value) },
  )
  .default([])
  .meta({ description: 'Maintenance windows: recurring (schedule, timezone, duration) or one-off (start, end).' });

export type MaintenanceInput = z.input<typeof maintenanceSchema>;
export type MaintenanceRaw = z.output<typeof maintenanceSchema>;

/** Checked raw windows -> specs the engine uses. */
export function resolveMaintenance(raw: MaintenanceRaw): MaintenanceWindowSpec[] {
  return raw.map((w) =>
    w.schedule !== undefined
      ? {
          name: w.name,
          schedule: w.schedule.trim(),
          timezone: w.timezone ?? 'UTC',
          durationMs: parseDuration(w.duration ?? '0s'),
          match: w.match,
        }
      : { name: w.name, startMs: Date.parse(w.start ?? ''), endMs: Date.parse(w.end ?? ''), match: w.match },
  );
}
