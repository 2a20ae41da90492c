// The `alerting:` section's schema: engine settings, per-alert overrides, grouping, receivers,
// routes (maintenance and heartbeat come from their own modules). Every cross-field rule is a
// zod issue with a path, so problems come out as file:line:col like the rest of the config.
import * as z from 'zod';
import type { DurationBounds } from '../config/duration.js';
import { LABEL_NAME_RE, parseUrl } from '../config/rules.js';
import { alertDefinitions } from './rules/definitions/index.js';
import { heartbeatSchema } from './heartbeat/config.js';
import { maintenanceSchema } from './maintenance/config.js';
import { peersSchema } from './peers/config.js';
import { matchValueReason } from './maintenance/match.js';
import { receiverSchema } from './receivers/config.js';
import { baseUrl, durationField, filePath as path, MAX_DURATION_MS as MAX_MS, reasoned } from './receivers/fields.js';
import { SEVERITIES } from './rules/types.js';

/** Waits where 0 means "at once": groupWait, for, keepFiringFor. */
const WAIT: DurationBounds = { minMs: 0, maxMs: MAX_MS };
/** evaluationInterval, with the floor of poll intervals and probe timeouts. */
const LOOP: DurationBounds = { minMs: 100, maxMs: MAX_MS };
/** groupInterval and repeatInterval pace messages to people: Slack takes one a second per webhook. */
const NOTIFY: DurationBounds = { minMs: 1_000, maxMs: MAX_MS };

/** Runbook links are followed by people from a page or a chat: an absolute http(s) URL. */
function runbookBaseReason(s: string): string | undefined {
  const u = parseUrl(s);
  if (!u) return 'invalid URL: expected e.g. https://git.example.org/ops/alerts/RUNBOOKS.md';
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'URL scheme must be http or https';
  if (u.username || u.password) return 'URL must not contain user:password';
  return undefined;
}

const label = reasoned((s) =>
  LABEL_NAME_RE.test(s) ? undefined : `invalid label name "${s}": must match [a-zA-Z_][a-zA-Z0-9_]*`,
);

const timingShape = {
  groupWait: durationField('Wait before the first notification of a new group.', WAIT).optional(),
  groupInterval: durationField('Wait before notifying changes of a group already notified.', NOTIFY).optional(),
  repeatInterval: durationField('Reminder interval while a group still fires.', NOTIFY).optional(),
  sendResolved: z.boolean().optional().meta({ description: 'Whether to notify when a group resolves.' }),
};

const matchSchema = z
  .record(label, reasoned(matchValueReason))
  .meta({ description: 'Label name -> exact value, or ~regex (anchored).' });

const routeSchema = z.strictObject({
  match: matchSchema.optional(),
  receivers: z.array(z.string()).meta({ description: 'Receiver names; empty drops the alerts.' }),
  groupBy: z
    .array(label)
    .optional()
    .meta({ description: 'Labels that group alerts into one notification on this route.' }),
  ...timingShape,
});

const apiSchema = z
  .strictObject({
    writers: z
      .array(z.string().min(1, { error: 'a writer is a user name of basic_auth_users' }))
      .optional()
      .meta({
        description:
          'Users of basic_auth_users in --web.config.file who may write (silences, acknowledgements); ' +
          'absent: every basic-auth user; []: nobody. Without basic auth every write is refused.',
      }),
  })
  .default({})
  .meta({ description: 'Who may act through the HTTP API (silences, acknowledgements).' });

const ruleSchema = z.strictObject({
  enabled: z
    .boolean()
    .optional()
    .meta({ description: 'false: the alert is neither evaluated nor in the generated rules.' }),
  threshold: z
    .number()
    .finite()
    .optional()
    .meta({ description: "The alert's threshold, in its own unit (docs/alerts.md); only for alerts that have one." }),
  for: durationField('Time the condition must hold before the alert fires.', WAIT).optional(),
  keepFiringFor: durationField('Time a firing alert is held after its condition clears.', WAIT).optional(),
  severity: z
    .enum(SEVERITIES, { error: `severity must be one of ${SEVERITIES.join(', ')}` })
    .optional()
    .meta({ description: 'Severity label of the alert.' }),
});

export const ALERTING_DEFAULTS = {
  stateDir: './data/alerting',
  evaluationInterval: '15s',
  groupWait: '30s',
  groupInterval: '5m',
  repeatInterval: '4h',
  ackMaxDuration: '24h',
} as const;

export const alertingSchema = z
  .strictObject({
    stateDir: path('Durable alert and notification state (relative to the config file).').default(
      ALERTING_DEFAULTS.stateDir,
    ),
    evaluationInterval: durationField('How often the alerts are evaluated.', LOOP).default(
      ALERTING_DEFAULTS.evaluationInterval,
    ),
    externalUrl: baseUrl('Base of links in notifications; default http://<listen>.').optional(),
    runbookBaseUrl: reasoned(
      runbookBaseReason,
      'Base of runbook links (an http or https URL); default alerts/RUNBOOKS.md (its path in this repository).',
    ).optional(),
    rules: z
      .record(z.string(), ruleSchema)
      .default({})
      .meta({ description: 'Per-alert overrides; unknown alert names are errors.' }),
    groupBy: z
      .array(label)
      .default(['alertname', 'network'])
      .meta({ description: 'Labels that group alerts into one notification: a 50-node outage is one message.' }),
    groupWait: timingShape.groupWait.default(ALERTING_DEFAULTS.groupWait),
    groupInterval: timingShape.groupInterval.default(ALERTING_DEFAULTS.groupInterval),
    repeatInterval: timingShape.repeatInterval.default(ALERTING_DEFAULTS.repeatInterval),
    sendResolved: z.boolean().default(true).meta({ description: 'Whether to notify when a group resolves.' }),
    receivers: z
      .array(receiverSchema)
      .default([])
      .meta({ description: 'Where notifications go; each has a name and exactly one kind.' }),
    routes: z
      .array(routeSchema)
      .default([])
      .meta({ description: 'First matching route picks the receivers; no routes: every receiver gets every alert.' }),
    maintenance: maintenanceSchema,
    heartbeat: heartbeatSchema,
    ackMaxDuration: durationField(
      'Longest an acknowledgement (POST /api/v1/alerts/ack) silences its alert when the alert does not resolve.',
      NOTIFY,
    ).default(ALERTING_DEFAULTS.ackMaxDuration),
    api: apiSchema,
    peers: peersSchema,
  })
  .superRefine(
    (a, ctx) => {
      const rules = isRecord(a.rules) ? a.rules : {};
      for (const [name, rule] of Object.entries(rules)) {
        const def = alertDefinitions().find((d) => d.name === name);
        if (!def)
          ctx.addIssue({
            code: 'custom',
            path: ['rules', name],
            message: `unknown alert "${name}"; known: ${alertDefinitions()
              .map((d) => d.name)
              .join(', ')}`,
          });
        else if (isRecord(rule) && rule.threshold !== undefined && def.defaults.threshold === undefined)
          ctx.addIssue({ code: 'custom', path: ['rules', name, 'threshold'], message: `${name} has no threshold` });
        else if (!def.evaluate && isRecord(rule) && rule.enabled !== false)
          ctx.addIssue({
            code: 'custom',
            path: ['rules', name],
            message: `${name} is evaluated by Prometheus only (the exporter cannot see itself down); use the heartbeat`,
          });
      }
      const names = new Map<string, number>();
      (Array.isArray(a.receivers) ? a.receivers : []).forEach((r: unknown, i) => {
        const name = isRecord(r) ? r.name : undefined;
        if (typeof name !== 'string') return;
        if (names.has(name))
          ctx.addIssue({
            code: 'custom',
            path: ['receivers', i, 'name'],
            message: `duplicate receiver name "${name}"`,
          });
        names.set(name, i);
      });
      (Array.isArray(a.routes) ? a.routes : []).forEach((route: unknown, i) => {
        const list = isRecord(route) && Array.isArray(route.receivers) ? route.receivers : [];
        list.forEach((r: unknown, j) => {
          if (typeof r === 'string' && !names.has(r))
            ctx.addIssue({ code: 'custom', path: ['routes', i, 'receivers', j], message: `unknown receiver "${r}"` });
        });
      });
    },
    // Also when other parts of the section have mistakes: every problem is reported in one pass.
    { when: (payload) => isRecord(payload.value) },
  )
  .optional()
  .meta({
    description: 'Built-in alerting: the exporter evaluates the alerts itself and notifies receivers. Absent: off.',
  });

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export type AlertingRaw = NonNullable<z.output<typeof alertingSchema>>;
