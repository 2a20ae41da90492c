// The node's poll history as bars and its response times as a line, as SVG drawn at their own
// pixel size (never stretched), so the axis words stay readable on a phone and on a desktop.
import { esc, isoTime, type PollBar } from './html.js';

const BAR_HEIGHT = { up: 6, degraded: 12, down: 18 } as const;
/** Room under a chart for its time axis. */
const AXIS_ROOM = 14;
/** Width two time labels need side by side ("13:01:10" and "13:03:14 UTC" at 10 px). */
const TWO_LABELS = 130;

const hms = (ms: number) => isoTime(ms).slice(11, 19);
const label = (x: number, y: number, anchor: 'start' | 'end', text: string) =>
  `<text x="${x}" y="${y}" text-anchor="${anchor}">${esc(text)}</text>`;

/** Time labels under a span from x0 to x1: the first and last poll's times, or only the last when they would touch. */
function timeAxis(x0: number, x1: number, y: number, first: number, last: number): string {
  const line = `<line class="axis" x1="${x0}" y1="${y}" x2="${x1}" y2="${y}"/>`;
  const end = label(x1, y + AXIS_ROOM - 2, 'end', `${hms(last)} UTC`);
  return x1 - x0 >= TWO_LABELS && first !== last
    ? line + label(x0, y + AXIS_ROOM - 2, 'start', hms(first)) + end
    : line + end;
}

/**
 * One bar per poll, newest at the right, problems taller (readable without colour), each with a
 * hover title; with `axis`, the times of the oldest and newest poll under them.
 */
export function historyBars(entries: PollBar[], slots: number, opts: { axis?: boolean } = {}): string {
  const w = opts.axis ? 3 : 4;
  const pitch = w + 1;
  const width = slots * pitch;
  const height = opts.axis ? 18 + AXIS_ROOM + 2 : 18;
  const counts = { up: 0, degraded: 0, down: 0 };
  const start = slots - entries.length;
  const bars = entries
    .map((e, i) => {
      counts[e.outcome]++;
      const h = BAR_HEIGHT[e.outcome];
      const why = e.reason;
      const title =
        `${isoTime(e.at).replace('T', ' ').slice(0, 19)} UTC: ${e.outcome}${why ? `: ${why}` : ''} ` +
        `(${e.durationMs} ms)`;
      return (
        `<rect class="bar ${e.outcome}" x="${(start + i) * pitch}" y="${18 - h}" width="${w}" ` +
        `height="${h}"><title>${esc(title)}</title></rect>`
      );
    })
    .join('');
  const text =
    entries.length === 0
      ? 'no polls yet'
      : `last ${entries.length} polls: ${counts.up} up, ${counts.degraded} degraded, ${counts.down} down`;
  const axis =
    opts.axis && entries.length > 0 ? timeAxis(start * pitch, width, 19, entries[0]!.at, entries.at(-1)!.at) : '';
  return (
    `<svg class="bars${opts.axis ? ' axised' : ''}" viewBox="0 0 ${width} ${height}" width="${width}" ` +
    `height="${height}" role="img" aria-label="${text}"><title>${text}</title>${bars}${axis}</svg>`
  );
}

/** Left margin of the response-time chart (its ms labels), the plot's size. */
const SPARK = { left: 48, width: 290, height: 40 } as const;

/**
 * Response times of the polls as a line over time, with axes: ms from 0 to the highest at the left,
 * the first and last poll's times below; the range in words for screen readers.
 */
export function sparkline(entries: PollBar[]): string {
  if (entries.length < 2) return '<p class="muted">Not enough polls for a response-time chart yet.</p>';
  const { left, width, height } = SPARK;
  const ds = entries.map((e) => e.durationMs);
  const max = Math.max(1, ...ds);
  const t0 = entries[0]!.at;
  const span = Math.max(1, entries.at(-1)!.at - t0);
  const points = entries
    .map(
      (e) =>
        `${(left + ((e.at - t0) / span) * width).toFixed(1)},` +
        `${(height - 2 - (e.durationMs / max) * (height - 4)).toFixed(1)}`,
    )
    .join(' ');
  const text =
    `response time of the last ${entries.length} polls: min ${Math.min(...ds)} ms, max ${max} ms, latest ` +
    `${ds.at(-1)} ms`;
  const yAxis =
    `<line class="axis" x1="${left}" y1="0" x2="${left}" ` +
    `y2="${height}"/>${label(left - 4, 9, 'end', `${max} ms`)}${label(left - 4, height, 'end', '0 ms')}`;
  const svgW = left + width + 2;
  const svgH = height + AXIS_ROOM + 2;
  return (
    `<svg class="spark" viewBox="0 0 ${svgW} ${svgH}" width="${svgW}" height="${svgH}" role="img" ` +
    `aria-label="${text}"><title>${text}</title>${yAxis}` +
    `${timeAxis(left, left + width, height, t0, entries.at(-1)!.at)}<polyline ` +
    `points="${points}" fill="none" stroke-width="1.5"/></svg><p class="muted small">${esc(text)}</p>`
  );
}
