// Start-up dry check of receivers: find one that is unreachable or rejects its credentials before
// the first real alert needs it, without sending a notification.
// - alertmanager: GET <url>/api/v2/status with the same credentials as the pushes (Alertmanager
//   answers it without side effects; 401/403 means the credentials are refused);
// - webhook, slack, pagerduty: their APIs offer no check that sends nothing, so only
//   reachability is tested: HEAD on the URL's origin (never its path, which may be the secret).
import type { HttpOutcome, HttpRequest } from '../http/index.js';
import { alertmanagerAuthorization } from './receivers/alertmanager.js';

/** The parts of a configured receiver the check needs (fits the receivers' ReceiverSpec). */
export type DryCheckTarget =
  | { name: string; kind: 'alertmanager'; urls: string[]; bearerToken?: string; basicAuth?: { username: string; password: string } }
  | { name: string; kind: 'webhook'; url: string }
  | { name: string; kind: 'slack'; webhookUrl: string }
  | { name: string; kind: 'pagerduty'; url: string };

export interface DryCheckResult {
  receiver: string;
  ok: boolean;
  /** Safe to log: no URL path, no secret. */
  detail: string;
}

type Send = (req: HttpRequest) => Promise<HttpOutcome>;

const TIMEOUT_MS = 5_000;

export async function dryCheckReceivers(targets: readonly DryCheckTarget[], send: Send): Promise<DryCheckResult[]> {
  return Promise.all(targets.map((t) => (t.kind === 'alertmanager' ? checkAlertmanager(t, send) : checkReachable(t, send))));
}

async function checkAlertmanager(t: DryCheckTarget & { kind: 'alertmanager' }, send: Send): Promise<DryCheckResult> {
  const headers: Record<string, string> = {};
  const authorization = alertmanagerAuthorization(t);
  if (authorization) headers.authorization = authorization;
  const problems: string[] = [];
  for (const [i, base] of t.urls.entries()) {
    const label = `alertmanager ${t.name} url #${i + 1}`;
    const out = await send({ method: 'GET', url: `${base.replace(/\/+$/, '')}/api/v2/status`, headers, timeoutMs: TIMEOUT_MS, maxBytes: 1 << 20, label });
    if (out.ok) continue;
    if (out.status === 401 || out.status === 403) problems.push(`${label}: rejects the credentials (HTTP ${out.status})`);
    else if (out.status !== undefined) problems.push(`${label}: answers HTTP ${out.status}`);
    else problems.push(`${label}: unreachable (${out.message})`);
  }
  return problems.length === 0
    ? { receiver: t.name, ok: true, detail: 'Alertmanager reachable and credentials accepted' }
    : { receiver: t.name, ok: false, detail: problems.join('; ') };
}

async function checkReachable(t: Exclude<DryCheckTarget, { kind: 'alertmanager' }>, send: Send): Promise<DryCheckResult> {
  const raw = t.kind === 'slack' ? t.webhookUrl : t.url;
  let origin: string;
  try {
    origin = new URL(raw).origin;
  } catch {
    return { receiver: t.name, ok: false, detail: `${t.kind} ${t.name}: invalid URL` };
  }
  const label = `${t.kind} ${t.name} (reachability)`;
  const out = await send({ method: 'HEAD', url: `${origin}/`, timeoutMs: TIMEOUT_MS, maxBytes: 1024, label });
  // Any HTTP answer proves the host is there; credentials cannot be checked without sending.
  if (out.ok || out.status !== undefined) return { receiver: t.name, ok: true, detail: 'reachable (credentials not checked: no check that sends nothing)' };
  return { receiver: t.name, ok: false, detail: `${label}: unreachable (${out.message})` };
}

/**
 * Start-up: checks the receivers alerting built (secrets already read), and logs one warning per
 * receiver that fails. One whose secret could not be read is not among them: building it logged that.
 */
export async function warnUnusableReceivers(
  built: readonly DryCheckTarget[],
  deps: { send: Send; log: { warn(obj: object, msg: string): void } },
): Promise<DryCheckResult[]> {
  const results = await dryCheckReceivers(built, deps.send);
  for (const r of results) if (!r.ok) deps.log.warn({ receiver: r.receiver, reason: r.detail }, `receiver ${r.receiver} failed its start-up check: ${r.detail}`);
  return results;
}
