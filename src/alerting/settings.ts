// The resolved `alerting:` section: what the daemon's alerting runtime is built from. Secrets
// stay as given (a value, or a file read when the runtime is built, and again when it changes).
import { resolve as resolvePath } from 'node:path';
import { parseDuration } from '../config/duration.js';
import type { AlertingRaw } from './configSchema.js';
import { DEFAULT_RUNBOOK_BASE } from './rules/definitions/index.js';
import type { RuleOverride } from './rules/params.js';
import { resolveHeartbeat, type HeartbeatSettings } from './heartbeat/config.js';
import type { MaintenanceWindowSpec } from './maintenance/windows.js';
import { resolveMaintenance } from './maintenance/config.js';
import { receiverConfigSecrets, resolveReceiver, type ReceiverRaw } from './receivers/config.js';
import type { ReceiverSettings } from './receivers/kind.js';
import type { RouteSpec, RoutingSpec } from './notify/routing.js';
import { resolvePeers, type PeerSettings } from './peers/config.js';

export type { ReceiverSettings };

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
  /** Longest an acknowledgement silences its alert (default 24h). */
  ackMaxMs?: number;
  /** Who may write through the HTTP API; absent (or no `writers`): every basic-auth user. */
  api?: { writers?: string[] };
  /** Twin replicas silences are replicated to (absent: none). */
  peers?: PeerSettings[];
}

const ms = (d: string | undefined) => (d === undefined ? undefined : parseDuration(d));

export function resolveAlerting(a: AlertingRaw, baseDir: string): AlertingSettings {
  const rules: Record<string, RuleOverride> = {};
  for (const [name, r] of Object.entries(a.rules)) {
    rules[name] = {
      enabled: r.enabled,
      threshold: r.threshold,
      severity: r.severity,
      forMs: ms(r.for),
      keepFiringForMs: ms(r.keepFiringFor),
    };
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
    receivers: a.receivers.map((r) => resolveReceiver(r as ReceiverRaw, baseDir)),
    maintenance: resolveMaintenance(a.maintenance),
    ackMaxMs: parseDuration(a.ackMaxDuration),
    ...(a.heartbeat ? { heartbeat: resolveHeartbeat(a.heartbeat) } : {}),
    ...(a.api.writers ? { api: { writers: [...a.api.writers] } } : {}),
    ...(a.peers.length > 0 ? { peers: resolvePeers(a.peers, baseDir) } : {}),
  };
}

/** Secret values written in the config itself (file contents are added when read). */
export function alertingSecrets(s: AlertingSettings | undefined): string[] {
  if (!s) return [];
  const out = receiverConfigSecrets(s.receivers);
  if (s.heartbeat) out.push(s.heartbeat.url);
  return out;
}
