// Small HTML helpers shared by the status pages: escaping, times, status words and history bars.
import type { PollOutcome } from './history.js';
import type { StatusKind } from './types.js';
import { formatDuration, isDue } from './words.js';

/** A poll as pages show it: the reason already in words. */
export interface PollBar {
  at: number;
  outcome: PollOutcome;
  durationMs: number;
  reason: string;
}

export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Words from this long get break opportunities (a word that fits a phone's line needs none). */
const LONG_WORD = 16;
const BREAK_AFTER = /([./:_@=-]|&amp;)(?=[^\s])/g;

/**
 * Escaped text with a break opportunity (<wbr>) after each dot, slash, colon, hyphen, underscore,
 * @, = and & inside long words (hostnames, URLs, addresses, label pairs), so a narrow column wraps
 * them there rather than mid-word; the stylesheet breaks mid-word only where a word has none.
 * Same rule as the page script's (browser/dom.ts breakable).
 */
export function breakable(s: string): string {
  return s
    .split(/(\s+)/)
    .map((w) => (w.length < LONG_WORD ? esc(w) : esc(w).replace(BREAK_AFTER, '$1<wbr>')))
    .join('');
}

/** Symbol and word: the status never relies on colour alone. */
export const STATUS_LABEL: Record<StatusKind, string> = {
  up: '● up',
  degraded: '◆ degraded',
  down: '▼ DOWN',
  unknown: '? unknown',
};

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** "20:31:05 UTC" (and the date when it is not today's), inside <time> with a relative hint the script keeps fresh. */
export function timeCell(ms: number | undefined, now: number): string {
  if (ms === undefined) return '<span class="muted">—</span>';
  const iso = isoTime(ms);
  const day = iso.slice(0, 10) === isoTime(now).slice(0, 10) ? '' : `${iso.slice(0, 10)} `;
  return (
    `<time datetime="${iso}" data-rel="${ms}">${day}${iso.slice(11, 19)} UTC</time> <span class="rel" ` +
    `data-rel-of="${ms}">${relative(ms, now)}</span>`
  );
}

/** A next check: its time to come, or "due now" once that came (the script turns it at that second). */
export function nextCheckCell(ms: number | undefined, now: number): string {
  if (ms === undefined) return '<span class="muted">—</span>';
  return `<span class="next" data-next-of="${ms}">${isDue(ms, now) ? 'due now' : timeCell(ms, now)}</span>`;
}

export function relative(ms: number, now: number): string {
  const d = ms - now;
  if (Math.abs(d) < 1000) return '(now)';
  return d > 0 ? `(in ${formatDuration(d)})` : `(${formatDuration(-d)} ago)`;
}

export { percent } from './words.js';

export interface Shell {
  title: string;
  /** Path from this page back to the site root: "" or "../". */
  root: string;
  /** JSON the script polls, relative to the root; none: the page does not update itself. */
  api?: string;
  refreshMs: number;
  generatedAt: number;
  body: string;
}

export function page(s: Shell): string {
  const api = s.api ? ` data-api="${esc(s.root + s.api)}" data-refresh="${s.refreshMs}"` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${esc(s.title)}</title>
<link rel="icon" href="${s.root}static/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${s.root}static/status.css">
<script src="${s.root}static/status.js" defer></script>
<noscript><meta http-equiv="refresh" content="${Math.max(10, Math.round(s.refreshMs / 1000) * 5)}"></noscript>
</head><body${api} data-generated="${s.generatedAt}">
${s.body}
</body></html>
`;
}
