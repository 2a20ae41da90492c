// The `alerting:` section's schema: engine settings, per-alert overrides, grouping, receivers,
// routes (maintenance and heartbeat come from their own modules). Every cross-field rule is a
// zod issue with a path, so problems come out as file:line:col like the rest of the config.
import * as z from 'zod';
import { configDurationReason, formatDuration, type DurationBounds } from '../config/duration.js';
import { LABEL_NAME_RE, commonUrlReason, nameReason, parseUrl } from '../config/rules.js';
import { ALERT_DEFINITIONS } from './definitions/index.js';
import { heartbeatSchema } from './heartbeatConfig.js';
import { maintenanceSchema } from './maintenanceConfig.js';
import { matchValueReason } from './maintenanceMatch.js';
import { SEVERITIES } from './types.js';

const reasoned = (rule: (s: string) => string | undefined, description?: string) => {
  const s = z.string().superRefine((v, ctx) => {
    const reason = rule(v);
    if (reason) ctx.addIssue({ code: 'custom', message: reason });
  });
  return description ? s.meta({ description }) : s;
};

const MAX_MS = 7 * 24 * 3_600_000;
/** Waits where 0 means "at once": groupWait, for, keepFiringFor. */
const WAIT: DurationBounds = { minMs: 0, maxMs: MAX_MS };
/** evaluationInterval and receiver timeouts, with the floor of poll intervals and probe timeouts. */
const LOOP: DurationBounds = { minMs: 100, maxMs: MAX_MS };
/** groupInterval and repeatInterval pace messages to people: Slack takes one a second per webhook. */
const NOTIFY: DurationBounds = { minMs: 1_000, maxMs: MAX_MS };

const durationField = (description: string, bounds: DurationBounds) =>
  reasoned(
    (s) => configDurationReason(s, bounds),
    `${description} Go-style duration, e.g. 30s, 5m, 4h; whole milliseconds, ${bounds.minMs === 0 ? '0s' : formatDuration(bounds.minMs)} to 168h.`,
  );

/** Receiver URLs: http(s), no credentials in the URL (the alertmanager kind has basicAuth for that). */
export function receiverUrlReason(raw: string): string | undefined {
  const u = parseUrl(raw);
  if (!u) return 'invalid URL: expected e.g. https://hooks.example.org/path';
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'URL scheme must be http or https';
  if (u.username || u.password) return 'URL must not contain user:password (use basicAuth or headers)';
  return undefined;
}

const url = (description: string) => reasoned(receiverUrlReason, description);
const baseUrl = (description: string) => reasoned((s) => commonUrlReason(s, parseUrl(s)) ?? receiverUrlReason(s), description);
const path = (description: string) => z.string().min(1, 'path must not be empty').meta({ description });
const label = reasoned((s) => (LABEL_NAME_RE.test(s) ? undefined : `invalid label name "${s}": must match [a-zA-Z_][a-zA-Z0-9_]*`));
const timeout = durationField('Timeout of one request to this receiver (default 10s).', LOOP).optional();

const alertmanagerSchema = z.strictObject({
  urls: z
    .array(baseUrl('Alertmanager base URL; alerts go to <url>/api/v2/alerts.'))
    .min(1, 'at least one URL')
    .meta({ description: 'Alertmanager base URLs; each gets every alert (as Prometheus sends to each).' }),
  bearerToken: z.string().min(1).optional().meta({ description: 'Bearer token (secret).' }),
  bearerTokenFile: path('File holding the bearer token.').optional(),
  basicAuth: z
    .strictObject({
      username: z.string().min(1).meta({ description: 'Basic auth user name.' }),
      password: z.string().optional().meta({ description: 'Basic auth password (secret).' }),
      passwordFile: path('File holding the password.').optional(),
    })
    .optional()
    .meta({ description: 'Basic auth instead of a bearer token.' }),
  timeout,
});

const webhookSchema = z.strictObject({
  url: url('Receives the Alertmanager webhook payload (version "4"). Secret: never logged.'),
  headers: z.record(z.string().regex(/^[A-Za-z0-9-]+$/, 'invalid header name'), z.string()).default({}).meta({ description: 'Extra headers (secrets), e.g. authorization.' }),
  timeout,
});

const slackSchema = z.strictObject({
  webhookUrl: url('Slack incoming webhook URL (secret).').optional(),
  webhookUrlFile: path('File holding the Slack incoming webhook URL.').optional(),
  channel: z.string().min(1).optional().meta({ description: "Channel override; default the webhook's own channel." }),
  timeout,
});

const pagerdutySchema = z.strictObject({
  routingKey: z.string().min(1).optional().meta({ description: 'Events API v2 integration (routing) key (secret).' }),
  routingKeyFile: path('File holding the routing key.').optional(),
  url: url('Events API v2 endpoint.').default('https://events.pagerduty.com/v2/enqueue'),
  timeout,
});

const KINDS = ['alertmanager', 'webhook', 'slack', 'pagerduty'] as const;

const receiverSchema = z
  .strictObject({
    name: reasoned((s) => nameReason(s) && `receiver name ${nameReason(s)}`, 'Unique receiver name: routes refer to it, and it labels its metrics.'),
    alertmanager: alertmanagerSchema.optional().meta({ description: 'Pushes to Alertmanager /api/v2/alerts, as Prometheus does.' }),
    webhook: webhookSchema.optional().meta({ description: 'POSTs the Alertmanager webhook payload (version "4").' }),
    slack: slackSchema.optional().meta({ description: 'Slack incoming webhook: text and blocks with runbook and status page links.' }),
    pagerduty: pagerdutySchema.optional().meta({ description: "PagerDuty Events API v2; dedup_key from the group's labels." }),
  })
  .superRefine((r, ctx) => {
    const kinds = KINDS.filter((k) => r[k] !== undefined);
    if (kinds.length !== 1) ctx.addIssue({ code: 'custom', message: `a receiver has exactly one of ${KINDS.join(', ')} (found ${kinds.length ? kinds.join(', ') : 'none'})` });
    const oneOf = (obj: Record<string, unknown> | undefined, kind: string, a: string, b: string, required: boolean) => {
      if (!obj) return;
      const n = (obj[a] !== undefined ? 1 : 0) + (obj[b] !== undefined ? 1 : 0);
      if (n > 1 || (required && n === 0)) ctx.addIssue({ code: 'custom', path: [kind], message: `set exactly one of ${a} and ${b}` });
    };
    oneOf(r.slack, 'slack', 'webhookUrl', 'webhookUrlFile', true);
    oneOf(r.pagerduty, 'pagerduty', 'routingKey', 'routingKeyFile', true);
    oneOf(r.alertmanager, 'alertmanager', 'bearerToken', 'bearerTokenFile', false);
    if (r.alertmanager?.basicAuth && (r.alertmanager.bearerToken !== undefined || r.alertmanager.bearerTokenFile !== undefined)) {
      ctx.addIssue({ code: 'custom', path: ['alertmanager'], message: 'set either a bearer token or basicAuth, not both' });
    }
    oneOf(r.alertmanager?.basicAuth, 'alertmanager', 'password', 'passwordFile', true);
  });

const timingShape = {
  groupWait: durationField('Wait before the first notification of a new group.', WAIT).optional(),
  groupInterval: durationField('Wait before notifying changes of a group already notified.', NOTIFY).optional(),
  repeatInterval: durationField('Reminder interval while a group still fires.', NOTIFY).optional(),
  sendResolved: z.boolean().optional().meta({ description: 'Whether to notify when a group resolves.' }),
};

const matchSchema = z.record(label, reasoned(matchValueReason)).meta({ description: 'Label name -> exact value, or ~regex (anchored).' });

const routeSchema = z.strictObject({
  match: matchSchema.optional(),
  receivers: z.array(z.string()).meta({ description: 'Receiver names; empty drops the alerts.' }),
  groupBy: z.array(label).optional().meta({ description: 'Labels that group alerts into one notification on this route.' }),
  ...timingShape,
});

const ruleSchema = z.strictObject({
  enabled: z.boolean().optional().meta({ description: 'false: the alert is neither evaluated nor in the generated rules.' }),
  threshold: z.number().finite().optional().meta({ description: "The alert's threshold, in its own unit (docs/alerts.md); only for alerts that have one." }),
  for: durationField('Time the condition must hold before the alert fires.', WAIT).optional(),
  keepFiringFor: durationField('Time a firing alert is held after its condition clears.', WAIT).optional(),
  severity: z.enum(SEVERITIES, { error: `severity must be one of ${SEVERITIES.join(', ')}` }).optional().meta({ description: 'Severity label of the alert.' }),
});

export const ALERTING_DEFAULTS = { stateDir: './data/alerting', evaluationInterval: '15s', groupWait: '30s', groupInterval: '5m', repeatInterval: '4h' } as const;

export const alertingSchema = z
  .strictObject({
    stateDir: path('Durable alert and notification state (relative to the config file).').default(ALERTING_DEFAULTS.stateDir),
    evaluationInterval: durationField('How often the alerts are evaluated.', LOOP).default(ALERTING_DEFAULTS.evaluationInterval),
    externalUrl: baseUrl('Base of links in notifications; default http://<listen>.').optional(),
    runbookBaseUrl: z.string().min(1).optional().meta({ description: 'Base of runbook links; default alerts/RUNBOOKS.md (its path in this repository).' }),
    rules: z.record(z.string(), ruleSchema).default({}).meta({ description: 'Per-alert overrides; unknown alert names are errors.' }),
    groupBy: z.array(label).default(['alertname', 'network']).meta({ description: 'Labels that group alerts into one notification: a 50-node outage is one message.' }),
    groupWait: timingShape.groupWait.default(ALERTING_DEFAULTS.groupWait),
    groupInterval: timingShape.groupInterval.default(ALERTING_DEFAULTS.groupInterval),
    repeatInterval: timingShape.repeatInterval.default(ALERTING_DEFAULTS.repeatInterval),
    sendResolved: z.boolean().default(true).meta({ description: 'Whether to notify when a group resolves.' }),
    receivers: z.array(receiverSchema).default([]).meta({ description: 'Where notifications go; each has a name and exactly one kind.' }),
    routes: z.array(routeSchema).default([]).meta({ description: 'First matching route picks the receivers; no routes: every receiver gets every alert.' }),
    maintenance: maintenanceSchema,
    heartbeat: heartbeatSchema,
  })
  .superRefine(
    (a, ctx) => {
      const rules = isRecord(a.rules) ? a.rules : {};
      for (const [name, rule] of Object.entries(rules)) {
        const def = ALERT_DEFINITIONS.find((d) => d.name === name);
        if (!def) ctx.addIssue({ code: 'custom', path: ['rules', name], message: `unknown alert "${name}"; known: ${ALERT_DEFINITIONS.map((d) => d.name).join(', ')}` });
        else if (isRecord(rule) && rule.threshold !== undefined && def.defaults.threshold === undefined) ctx.addIssue({ code: 'custom', path: ['rules', name, 'threshold'], message: `${name} has no threshold` });
        else if (!def.evaluate && isRecord(rule) && rule.enabled !== false) ctx.addIssue({ code: 'custom', path: ['rules', name], message: `${name} is evaluated by Prometheus only (the exporter cannot see itself down); use the heartbeat` });
      }
      const names = new Map<string, number>();
      (Array.isArray(a.receivers) ? a.receivers : []).forEach((r: unknown, i) => {
        const name = isRecord(r) ? r.name : undefined;
        if (typeof name !== 'string') return;
        if (names.has(name)) ctx.addIssue({ code: 'custom', path: ['receivers', i, 'name'], message: `duplicate receiver name "${name}"` });
        names.set(name, i);
      });
      (Array.isArray(a.routes) ? a.routes : []).forEach((route: unknown, i) => {
        const list = isRecord(route) && Array.isArray(route.receivers) ? route.receivers : [];
        list.forEach((r: unknown, j) => {
          if (typeof r === 'string' && !names.has(r)) ctx.addIssue({ code: 'custom', path: ['routes', i, 'receivers', j], message: `unknown receiver "${r}"` });
        });
      });
    },
    // Also when other parts of the section have mistakes: every problem is reported in one pass.
    { when: (payload) => isRecord(payload.value) },
  )
  .optional()
  .meta({ description: 'Built-in alerting: the exporter evaluates the alerts itself and notifies receivers. Absent: off.' });

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export type AlertingRaw = NonNullable<z.output<typeof alertingSchema>>;
