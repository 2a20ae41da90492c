// What a chat message says about one notification group, before a channel escapes it: a title
// like Alertmanager's (`[FIRING:3] LedgerNodeDown mainnet`), a line per alert, and the shortening
// that keeps a message within a channel's limit ("... and N more", never refused).
import type { Notification, NotifiedAlert } from '../notify/notification.js';
import type { PayloadContext } from './kind.js';

/** Longest text taken from one field of an alert (the rest of a long description adds nothing on a phone). */
const MAX_FIELD = 400;

export interface AlertText {
  firing: boolean;
  summary: string;
  description?: string;
  severity: string;
  /** http(s) only, percent-encoded where a markup could be broken out of. */
  runbookUrl?: string;
}

/** `[FIRING:3] LedgerNodeDown mainnet` or `[RESOLVED] LedgerNodeDown mainnet`. */
export function title(n: Notification): string {
  const firing = n.alerts.filter((a) => a.status === 'firing').length;
  const status = n.status === 'firing' ? `FIRING:${firing}` : 'RESOLVED';
  const values = Object.values(n.groupLabels).join(' ');
  return clip(`[${status}] ${values || (n.alerts[0]?.labels.alertname ?? 'alert')}`);
}

/** What the alerts are about: their nodes or watched entries (`node`, else `name`), at most three named. */
export function subjects(n: Notification): string {
  const names = [...new Set(n.alerts.flatMap((a) => a.labels.node ?? a.labels.name ?? []))];
  if (names.length <= 3) return names.join(', ');
  return `${names.slice(0, 3).join(', ')} and ${names.length - 3} more`;
}

/** The title naming what the alerts are about, for a channel that shows only a title at first (ntfy). */
export function titleWithSubjects(n: Notification): string {
  const about = subjects(n);
  const t = title(n);
  return about && !t.includes(about) ? clip(`${t}: ${about}`) : t;
}

export function alertTexts(n: Notification): AlertText[] {
  return n.alerts.map((a) => alertText(a));
}

function alertText(a: NotifiedAlert): AlertText {
  const runbookUrl = safeUrl(a.annotations.runbook_url);
  return {
    firing: a.status === 'firing',
    summary: clip(a.annotations.summary ?? a.labels.alertname ?? 'alert'),
    ...(a.annotations.description ? { description: clip(a.annotations.description) } : {}),
    severity: clip(a.labels.severity ?? 'none'),
    ...(runbookUrl ? { runbookUrl } : {}),
  };
}

/** The exporter's status page, for links. */
export function statusPageUrl(ctx: PayloadContext): string {
  return safeUrl(`${ctx.externalUrl.replace(/\/+$/, '')}/`) ?? '';
}

/**
 * An http(s) URL as the WHATWG parser writes it (spaces, quotes, <, > percent-encoded), with the
 * characters chat link syntaxes use as separators encoded too; anything else is dropped.
 */
export function safeUrl(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  try {
    const u = new URL(raw);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
    return u.href.replace(/[|()[\]*_~`\\']/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  } catch {
    return undefined;
  }
}

/** HTML text and attribute values (Telegram's HTML, e-mail): &, <, > and quotes. */
export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function clip(s: string, max = MAX_FIELD): string {
  const chars = [...s];
  return chars.length > max ? `${chars.slice(0, max - 3).join('')}...` : s;
}

/** "... and 7 more" */
export const andMore = (n: number): string => `... and ${n} more`;

/**
 * The message with as many items as fit `limit` (measured by `size`): `render(shown, more)` gets the
 * items it may show and how many it leaves out (it then says so, e.g. with andMore). Items are
 * clipped, so the message without items always fits.
 */
export function fitItems<T>(
  items: readonly T[],
  render: (shown: readonly T[], more: number) => string,
  limit: number,
  size: (s: string) => number = (s) => s.length,
): string {
  let lo = 0;
  let hi = items.length;
  const fits = (k: number) => size(render(items.slice(0, k), items.length - k)) <= limit;
  if (fits(hi)) return render(items, 0);
  // The largest k that fits: fits(lo) holds (or lo is 0), fits(hi) does not.
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
  return render(items.slice(0, lo), items.length - lo);
}
