// The resolved `alerting:` section: what the daemon's alerting runtime is built from. Secrets
// stay as given (a value, or a file read when the runtime is built and at each reload).
import { resolve as resolvePath } from 'node:path';
import { parseDuration } from '../config/duration.js';
import { urlCredentials } from '../redact.js';
import type { SecretValue } from '../domain.js';
import type { AlertingRaw } from './configSchema.js';
import { DEFAULT_RUNBOOK_BASE } from './definitions/index.js';
import type { RuleOverride } from './params.js';
import { resolveHeartbeat, type HeartbeatSettings } from './heartbeatConfig.js';
import type { MaintenanceWindowSpec } from './maintenance.js';
import { resolveMaintenance } from './maintenanceConfig.js';
import type { RouteSpec, RoutingSpec } from './routing.js';

export const DEFAULT_RECEIVER_TIMEOUT_MS = 10_000;

export type ReceiverSettings = { name: string; timeoutMs: number } & (
  | { kind: 'alertmanager'; urls: string[]; bearerToken?: SecretValue; basicAuth?: { username: string; password: SecretValue } }
  | { kind: 'webhook'; url: string; headers: Record<string, string> }
  | { kind: 'slack'; webhookUrl: SecretValue; channel?: string }
  | { kind: 'pagerduty'; routingKey: SecretValue; url: string }
);

declare module '../domain.js' {
  interface ExporterConfig {
    /** Built-in alerting; absent: off. */
    alerting?: AlertingSettings;
  }
}

export interface AlertingSettings {
  stateDir: string;
  evaluationIntervalMs: number;
  externalUrl?: string;
  runbookBase: string;
  rules: Record<string, RuleOverride>;
  routing: RoutingSpec;
  receivers: ReceiverSettings[];
  maintenance: MaintenanceWindowSpec[];
  heartbeat?: HeartbeatSettings;
}

const ms = (d: string | undefined) => (d === undefined ? undefined : parseDuration(d));

function secret(value: string | undefined, file: string | undefined, baseDir: string): SecretValue {
  return file !== undefined ? { file: resolvePath(baseDir, file) } : { value: value ?? '' };
}

function resolveReceiver(r: AlertingRaw['receivers'][number], baseDir: string): ReceiverSettings {
  const t = (d: string | undefined) => ms(d) ?? DEFAULT_RECEIVER_TIMEOUT_MS;
  if (r.alertmanager) {
    const a = r.alertmanager;
    const bearer = a.bearerToken !== undefined || a.bearerTokenFile !== undefined ? secret(a.bearerToken, a.bearerTokenFile, baseDir) : undefined;
    const basicAuth = a.basicAuth ? { username: a.basicAuth.username, password: secret(a.basicAuth.password, a.basicAuth.passwordFile, baseDir) } : undefined;
    return { name: r.name, kind: 'alertmanager', urls: a.urls, timeoutMs: t(a.timeout), ...(bearer ? { bearerToken: bearer } : {}), ...(basicAuth ? { basicAuth } : {}) };
  }
  if (r.webhook) return { name: r.name, kind: 'webhook', url: r.webhook.url, headers: r.webhook.headers, timeoutMs: t(r.webhook.timeout) };
  if (r.slack) return { name: r.name, kind: 'slack', webhookUrl: secret(r.slack.webhookUrl, r.slack.webhookUrlFile, baseDir), timeoutMs: t(r.slack.timeout), ...(r.slack.channel ? { channel: r.slack.channel } : {}) };
  const p = r.pagerduty!;
  return { name: r.name, kind: 'pagerduty', routingKey: secret(p.routingKey, p.routingKeyFile, baseDir), url: p.url, timeoutMs: t(p.timeout) };
}

export function resolveAlerting(a: AlertingRaw, baseDir: string): AlertingSettings {
  const rules: Record<string, RuleOverride> = {};
  for (const [name, r] of Object.entries(a.rules)) {
    rules[name] = { enabled: r.enabled, threshold: r.threshold, severity: r.severity, forMs: ms(r.for), keepFiringForMs: ms(r.keepFiringFor) };
  }
  const routes: RouteSpec[] = a.routes.map((r) => ({
    match: r.match,
    receivers: r.receivers,
    groupBy: r.groupBy,
    groupWaitMs: ms(r.groupWait),
    groupIntervalMs: ms(r.groupInterval),
    repeatIntervalMs: ms(r.repeatInterval),
    sendResolved: r.sendResolved,
  }));
  return {
    stateDir: resolvePath(baseDir, a.stateDir),
    evaluationIntervalMs: parseDuration(a.evaluationInterval),
    ...(a.externalUrl ? { externalUrl: a.externalUrl } : {}),
    runbookBase: a.runbookBaseUrl ?? DEFAULT_RUNBOOK_BASE,
    rules,
    routing: {
      groupBy: a.groupBy,
      groupWaitMs: parseDuration(a.groupWait),
      groupIntervalMs: parseDuration(a.groupInterval),
      repeatIntervalMs: parseDuration(a.repeatInterval),
      sendResolved: a.sendResolved,
      routes,
      receivers: a.receivers.map((r) => r.name),
    },
    receivers: a.receivers.map((r) => resolveReceiver(r, baseDir)),
    maintenance: resolveMaintenance(a.maintenance),
    ...(a.heartbeat ? { heartbeat: resolveHeartbeat(a.heartbeat) } : {}),
  };
}

/** Secret values written in the config itself (file contents are added when read). */
export function alertingSecrets(s: AlertingSettings | undefined): string[] {
  if (!s) return [];
  const out: string[] = [];
  const lit = (v: SecretValue | undefined) => {
    if (v && 'value' in v && v.value) out.push(v.value);
  };
  for (const r of s.receivers) {
    if (r.kind === 'alertmanager') {
      lit(r.bearerToken);
      lit(r.basicAuth?.password);
      r.urls.forEach((u) => out.push(...urlCredentials(u)));
    } else if (r.kind === 'webhook') {
      out.push(r.url, ...Object.values(r.headers).filter((v) => v.length > 0));
    } else if (r.kind === 'slack') lit(r.webhookUrl);
    else lit(r.routingKey);
  }
  if (s.heartbeat) out.push(s.heartbeat.url);
  return out;
}
