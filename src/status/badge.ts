// Status and uptime badges as small self-contained SVG (shields.io "flat" look), like Gatus offers.
import { esc, percent } from './html.js';
import { formatDuration } from './words.js';
import type { StatusKind } from './types.js';

const STATUS_COLOUR: Record<StatusKind, string> = {
  up: '#1a7f37',
  degraded: '#9a6700',
  down: '#cf222e',
  unknown: '#6e7781',
};

/** Approximate text width of 11px Verdana, enough to size the boxes. */
function textWidth(s: string): number {
  let w = 0;
  for (const ch of s) w += /[il.,:;|!' ]/.test(ch) ? 3.5 : /[mwMW%]/.test(ch) ? 9.5 : /[A-Z0-9]/.test(ch) ? 7.5 : 6.5;
  return Math.ceil(w);
}

export function badgeSvg(label: string, value: string, colour: string): string {
  const lw = textWidth(label) + 10;
  const vw = textWidth(value) + 10;
  const w = lw + vw;
  const l = esc(label);
  const v = esc(value);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="20" role="img" aria-label="${l}: ` +
    `${v}"><title>${l}: ${v}</title><linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" ` +
    `stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient><clipPath id="r"><rect width="${w}" ` +
    `height="20" rx="3" fill="#fff"/></clipPath><g clip-path="url(#r)"><rect width="${lw}" height="20" ` +
    `fill="#555"/><rect x="${lw}" width="${vw}" height="20" fill="${colour}"/><rect width="${w}" height="20" ` +
    `fill="url(#s)"/></g><g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" ` +
    `font-size="11"><text x="${lw / 2}" y="14">${l}</text><text x="${lw + vw / 2}" y="14">${v}</text></g></svg>`
  );
}

export function statusBadge(name: string, status: StatusKind): string {
  return badgeSvg(name, status === 'down' ? 'DOWN' : status, STATUS_COLOUR[status]);
}

/**
 * The uptime over `window`, labelled with the window; while the node has been polled for less
 * than that, labelled with the time polled instead ("uptime 20 s"), so a badge never claims a day.
 */
export function uptimeBadge(
  window: string,
  uptime: number | undefined,
  covered?: { ms: number; windowMs: number },
): string {
  const colour =
    uptime === undefined
      ? STATUS_COLOUR.unknown
      : uptime >= 0.999
        ? '#1a7f37'
        : uptime >= 0.99
          ? '#4c8a1f'
          : uptime >= 0.95
            ? '#9a6700'
            : '#cf222e';
  const over = uptime !== undefined && covered && covered.ms < covered.windowMs ? formatDuration(covered.ms) : window;
  return badgeSvg(`uptime ${over}`, uptime === undefined ? 'no data' : percent(uptime), colour);
}
