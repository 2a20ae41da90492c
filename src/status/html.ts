// Small HTML helpers shared by the status pages: escaping, times, status words and history bars.
import type { PollOutcome } from './history.js';
import type { StatusKind } from './types.js';
import { formatDuration } from './words.js';

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

/** Symbol and word: the status never relies on colour alone. */
export const STATUS_LABEL: Record<StatusKind, string> = { up: '● up', degraded: '◆ degraded', down: '▼ DOWN', unknown: '? unknown' };

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** "20:31:05 UTC" (and the date when it is not today's), inside <time> with a relative hint the script keeps fresh. */
export function timeCell(ms: number | undefined, now: number): string {
  if (ms === undefined) return '<span class="muted">—</span>';
  const iso = isoTime(ms);
  const day = iso.slice(0, 10) === isoTime(now).slice(0, 10) ? '' : `${iso.slice(0, 10)} `;
  return `<time datetime="${iso}" data-rel="${ms}">${day}${iso.slice(11, 19)} UTC</time> <span class="rel" data-rel-of="${ms}">${relative(ms, now)}</span>`;
}

export function relative(ms: number, now: number): string {
  const d = ms - now;
  if (Math.abs(d) < 1000) return '(now)';
  return d > 0 ? `(in ${formatDuration(d)})` : `(${formatDuration(-d)} ago)`;
}

export function percent(x: number | undefined): string {
  if (x === undefined) return '—';
  const p = x * 100;
  return `${p >= 99.995 ? '100' : p.toFixed(2)}%`;
}

const BAR_HEIGHT = { up: 6, degraded: 12, down: 18 } as const;

/** One bar per poll, problems taller (readable without colour), each with a hover title. */
export function historyBars(entries: PollBar[], slots: number): string {
  const w = 4;
  const gap = 1;
  const width = slots * (w + gap);
  const counts = { up: 0, degraded: 0, down: 0 };
  const start = slots - entries.length;
  const bars = entries
    .map((e, i) => {
      counts[e.outcome]++;
      const h = BAR_HEIGHT[e.outcome];
      const why = e.reason;
      const title = `${isoTime(e.at).replace('T', ' ').slice(0, 19)} UTC: ${e.outcome}${why ? `: ${why}` : ''} (${e.durationMs} ms)`;
      return `<rect class="bar ${e.outcome}" x="${(start + i) * (w + gap)}" y="${18 - h}" width="${w}" height="${h}"><title>${esc(title)}</title></rect>`;
    })
    .join('');
  const label = entries.length === 0 ? 'no polls yet' : `last ${entries.length} polls: ${counts.up} up, ${counts.degraded} degraded, ${counts.down} down`;
  return `<svg class="bars" viewBox="0 0 ${width} 18" width="${width}" height="18" role="img" aria-label="${label}"><title>${label}</title>${bars}</svg>`;
}

/** Response times of the polls as a line, with the range in words for screen readers. */
export function sparkline(entries: PollBar[]): string {
  const width = 300;
  const height = 40;
  if (entries.length < 2) return '<p class="muted">Not enough polls for a response-time chart yet.</p>';
  const ds = entries.map((e) => e.durationMs);
  const max = Math.max(1, ...ds);
  const step = width / (entries.length - 1);
  const points = ds.map((d, i) => `${(i * step).toFixed(1)},${(height - 2 - (d / max) * (height - 4)).toFixed(1)}`).join(' ');
  const label = `response time of the last ${entries.length} polls: min ${Math.min(...ds)} ms, max ${max} ms, latest ${ds.at(-1)} ms`;
  return `<svg class="spark" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${label}"><title>${label}</title><polyline points="${points}" fill="none" stroke-width="1.5"/></svg><p class="muted small">${esc(label)}</p>`;
}

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
