// Reasons in words an on-call engineer reads at 3 a.m.: "timeout after 2 s", "HTTP 502 from proxy".
import { PROBE_NAMES } from '../domain.js';
import { connectWords, httpWords, tlsWords } from './failureWords.js';
import type { ProbeFailure, Reason, StatusKind } from './types.js';

/** "0.5 s", "75 s", "3m12s", "2h05m", "3d4h". */
export function formatDuration(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 10 && !Number.isInteger(s)) return `${Math.round(s * 10) / 10} s`;
  if (s < 90) return `${Math.round(s)} s`;
  const total = Math.round(s);
  if (total < 3600) return `${Math.floor(total / 60)}m${pad(total % 60)}s`;
  if (total < 86_400) return `${Math.floor(total / 3600)}h${pad(Math.floor((total % 3600) / 60))}m`;
  return `${Math.floor(total / 86_400)}d${Math.floor((total % 86_400) / 3600)}h`;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** "99.95%", "100%" from 99.995% up (never "100.00%" for a node that missed a poll in 20,000); "—" without polls. */
export function percent(x: number | undefined | null): string {
  if (x === undefined || x === null) return '—';
  const p = x * 100;
  return `${p >= 99.995 ? '100' : p.toFixed(2)}%`;
}

/**
 * An uptime figure with the time it covers when that is less than its window: "50.00% over 20 s"
 * after 20 s of polls, so "24 h 50.00%" never stands for 20 seconds of data.
 */
export function uptimeText(x: number | undefined | null, coveredMs: number, windowMs: number): string {
  if (x === undefined || x === null) return '—';
  // No-break spaces: a narrow table cell wraps before "over", never inside "39 s".
  return coveredMs >= windowMs
    ? percent(x)
    : `${percent(x)} over\u00a0${formatDuration(coveredMs).replace(/ /g, '\u00a0')}`;
}

export interface UptimeFigure {
  /** "1 h", "24 h", "7 d" */
  label: string;
  windowMs: number;
  value: number | undefined | null;
  coveredMs: number;
}

/**
 * The node page's uptime line. Under an hour of polls every window holds the same polls, so one
 * figure is told with its time ("50.00% over the 20 s polled so far"); after that each window is
 * named, and one not yet filled says how much of it the figure covers.
 */
export function uptimeSummary(figures: readonly UptimeFigure[]): string {
  const shortest = figures[0];
  if (!shortest || shortest.value === undefined || shortest.value === null) return 'no polls yet';
  if (shortest.coveredMs < shortest.windowMs)
    return `${percent(shortest.value)} over the ${formatDuration(shortest.coveredMs)} polled so far`;
  return figures
    .map((f) => {
      if (f.value === undefined || f.value === null) return `${f.label} —`;
      return f.coveredMs < f.windowMs
        ? `${f.label} ${percent(f.value)} (over ${formatDuration(f.coveredMs)} so far)`
        : `${f.label} ${percent(f.value)}`;
    })
    .join(' · ');
}

/** A next check at or before now is not in the past: it is due (the scheduler runs it at its next tick). */
export function isDue(nextCheckAt: number, now: number): boolean {
  return nextCheckAt - now < 1000;
}

/** Transport error code at the end of a probe message ("cannot reach ...: ECONNREFUSED"). */
function errorCode(message: string): string | undefined {
  return /: ([A-Z][A-Z0-9_]+)$/.exec(message)?.[1];
}

/** The probe's message without its "GET /health: " or "POST claw_x: " prefix. */
function shortDetail(message: string): string {
  const m = /^(?:GET|POST) \S+: (.*)$/s.exec(message);
  return (m?.[1] ?? message).slice(0, 160);
}

export function failureToReason(f: ProbeFailure, timeoutMs: number): Reason {
  switch (f.reason) {
    case 'timeout':
      return { code: 'timeout', n: Math.min(65_535, Math.round(timeoutMs / 100)) };
    case 'connect': {
      const code = errorCode(f.message);
      if (code === 'ECONNREFUSED') return { code: 'refused' };
      if (/TLS failure/.test(f.message)) return { code: 'tls', detail: code };
      return { code: 'unreachable', detail: code };
    }
    case 'http_5xx':
    case 'http_4xx':
      return { code: f.fromProxy ? 'http_proxy' : 'http_node', n: f.httpStatus };
    case 'invalid_response':
      return { code: 'invalid', detail: shortDetail(f.message) };
    case 'rpc_error':
      return { code: 'rpc_error', detail: shortDetail(f.message) };
  }
}

/** Probe names from a bit mask in PROBE_NAMES order. */
export function probesFromMask(mask: number): string[] {
  return PROBE_NAMES.filter((_, i) => (mask & (1 << i)) !== 0);
}

export function probeMask(probes: readonly string[]): number {
  return PROBE_NAMES.reduce((m, p, i) => (probes.includes(p) ? m | (1 << i) : m), 0);
}

export function reasonText(r: Reason): string {
  const n = r.n ?? 0;
  switch (r.code) {
    case 'none':
      return '';
    case 'timeout':
      return `timeout after ${formatDuration(n * 100)}`;
    case 'refused':
      return connectWords('ECONNREFUSED');
    case 'unreachable':
      return connectWords(r.detail);
    case 'tls':
      return tlsWords(r.detail);
    case 'http_proxy':
    case 'http_node':
      return httpWords(n, r.code === 'http_proxy');
    case 'invalid':
      return r.detail ? `invalid answer: ${r.detail}` : 'invalid answer';
    case 'rpc_error':
      return r.detail ? `RPC error: ${r.detail}` : 'RPC error';
    case 'unhealthy':
      return r.detail ? `health reports "${r.detail}"` : 'health not ok';
    case 'stalled':
      return `height unchanged for ${formatDuration(n * 1000)}`;
    case 'behind':
      return `${n} blocks behind the fleet`;
    case 'probes_failing':
      return r.detail
        ? `${probesFromMask(n).join(', ')} failing: ${r.detail}`
        : `${probesFromMask(n).join(', ')} failing`;
    case 'not_polled':
      return 'not polled yet';
  }
}

/** The words for a status's reasons, joined ("no valid answer" for a node down without any). */
export function joinedText(reasons: Reason[], status: StatusKind): string {
  let text = '';
  for (const r of reasons) {
    const t = reasonText(r);
    if (t) text = text ? `${text}; ${t}` : t;
  }
  return text || (status === 'down' ? 'no valid answer' : '');
}
