// The page script's charts: the same drawings as charts.ts draws on the server, from the JSON refresh.
import type { Poll, PollOutcome } from './apiTypes.js';

const SVG = 'http://www.w3.org/2000/svg';
const AXIS_ROOM = 14;
const TWO_LABELS = 130;
const SPARK = { left: 48, width: 290, height: 40 };

const hms = (ms: number): string => new Date(ms).toISOString().slice(11, 19);

function svgEl(tag: string, attrs: Record<string, string | number>): SVGElement {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

function svgText(x: number, y: number, anchor: string, words: string): SVGElement {
  const t = svgEl('text', { x, y, 'text-anchor': anchor });
  t.textContent = words;
  return t;
}

function svgTitle(words: string): SVGElement {
  const t = document.createElementNS(SVG, 'title');
  t.textContent = words;
  return t;
}

/** Same as charts.ts timeAxis: first and last poll's times, or only the last when they would touch. */
function timeAxis(svg: SVGElement, x0: number, x1: number, y: number, first: number, last: number): void {
  svg.appendChild(svgEl('line', { class: 'axis', x1: x0, y1: y, x2: x1, y2: y }));
  if (x1 - x0 >= TWO_LABELS && first !== last) svg.appendChild(svgText(x0, y + AXIS_ROOM - 2, 'start', hms(first)));
  svg.appendChild(svgText(x1, y + AXIS_ROOM - 2, 'end', `${hms(last)} UTC`));
}

const BAR_HEIGHT: Record<PollOutcome, number> = { up: 6, degraded: 12, down: 18 };

/** The last polls as bars, the newest at the right; `axis` adds the time axis (node page). */
export function bars(polls: readonly Poll[], slots: number, axis: boolean): SVGElement {
  const counts: Record<PollOutcome, number> = { up: 0, degraded: 0, down: 0 };
  const w = axis ? 3 : 4;
  const pitch = w + 1;
  const width = slots * pitch;
  const height = axis ? 18 + AXIS_ROOM + 2 : 18;
  const start = slots - polls.length;
  const svg = svgEl('svg', {
    class: axis ? 'bars axised' : 'bars',
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    role: 'img',
  });
  polls.forEach((p, i) => {
    counts[p.outcome]++;
    const h = BAR_HEIGHT[p.outcome] ?? 18;
    const r = svgEl('rect', { class: `bar ${p.outcome}`, x: (start + i) * pitch, y: 18 - h, width: w, height: h });
    r.appendChild(
      svgTitle(
        `${new Date(p.at).toISOString().replace('T', ' ').slice(0, 19)} UTC: ${p.outcome}` +
          `${p.reason ? `: ${p.reason}` : ''} (${p.durationMs} ms)`,
      ),
    );
    svg.appendChild(r);
  });
  const first = polls[0];
  const last = polls[polls.length - 1];
  if (axis && first && last) timeAxis(svg, start * pitch, width, 19, first.at, last.at);
  svg.setAttribute(
    'aria-label',
    polls.length
      ? `last ${polls.length} polls: ${counts.up} up, ${counts.degraded} degraded, ${counts.down} down`
      : 'no polls yet',
  );
  return svg;
}

/** The response times of the last polls as a line, with its words under it. */
export function spark(polls: readonly Poll[]): DocumentFragment {
  const f = document.createDocumentFragment();
  const first = polls[0];
  const last = polls[polls.length - 1];
  if (polls.length < 2 || !first || !last) {
    const p = document.createElement('p');
    p.className = 'muted';
    p.textContent = 'Not enough polls for a response-time chart yet.';
    f.appendChild(p);
    return f;
  }
  const { left: L, width: W, height: H } = SPARK;
  const ds = polls.map((p) => p.durationMs);
  const max = Math.max(1, ...ds);
  const t0 = first.at;
  const span = Math.max(1, last.at - t0);
  const label =
    `response time of the last ${ds.length} polls: min ${Math.min(...ds)} ms, max ${max} ms, ` +
    `latest ${last.durationMs} ms`;
  const svgW = L + W + 2;
  const svgH = H + AXIS_ROOM + 2;
  const svg = svgEl('svg', {
    class: 'spark',
    viewBox: `0 0 ${svgW} ${svgH}`,
    width: svgW,
    height: svgH,
    role: 'img',
    'aria-label': label,
  });
  svg.appendChild(svgTitle(label));
  svg.appendChild(svgEl('line', { class: 'axis', x1: L, y1: 0, x2: L, y2: H }));
  svg.appendChild(svgText(L - 4, 9, 'end', `${max} ms`));
  svg.appendChild(svgText(L - 4, H, 'end', '0 ms'));
  timeAxis(svg, L, L + W, H, t0, last.at);
  const pts = polls
    .map((p) => `${(L + ((p.at - t0) / span) * W).toFixed(1)},${(H - 2 - (p.durationMs / max) * (H - 4)).toFixed(1)}`)
    .join(' ');
  svg.appendChild(svgEl('polyline', { points: pts, fill: 'none', 'stroke-width': '1.5' }));
  const words = document.createElement('p');
  words.className = 'muted small';
  words.textContent = label;
  f.append(svg, words);
  return f;
}
