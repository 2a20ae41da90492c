// Small DOM helpers of the page script and its clock: the server's clock as the page last heard
// it (skew), so relative times agree with the times the server wrote into the page.

let skew = 0;

/** The server's now, as the last answer's generatedAt placed it against this browser's clock. */
export const now = (): number => Date.now() + skew;
export function setServerTime(generatedAt: number): void {
  skew = generatedAt - Date.now();
}

const pad = (n: number): string => (n < 10 ? '0' : '') + String(n);

/** Same words as words.ts formatDuration: "42 s", "3m05s", "2h07m", "1d4h". */
export function fmt(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 90) return `${Math.round(s)} s`;
  const t = Math.round(s);
  if (t < 3600) return `${Math.floor(t / 60)}m${pad(t % 60)}s`;
  if (t < 86400) return `${Math.floor(t / 3600)}h${pad(Math.floor((t % 3600) / 60))}m`;
  return `${Math.floor(t / 86400)}d${Math.floor((t % 86400) / 3600)}h`;
}

/** Same as html.ts relative: "(now)", "(in 4 s)", "(2m10s ago)". */
export function rel(t: number): string {
  const d = t - now();
  return Math.abs(d) < 1000 ? '(now)' : d > 0 ? `(in ${fmt(d)})` : `(${fmt(-d)} ago)`;
}

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  cls?: string | null,
  text?: string | null,
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text != null) e.textContent = text;
  return e;
}

export const text = (s: string): Text => document.createTextNode(s);

/** Words from this long get break opportunities (as html.ts breakable). */
const LONG_WORD = 16;
const BREAK_CHARS = './:_@=&-';

/**
 * Text with a break opportunity (<wbr>) after each dot, slash, colon, hyphen, underscore, @, =
 * and & inside long words (hostnames, URLs, addresses), as the server's html.ts breakable.
 */
export function breakable(s: string): DocumentFragment {
  const f = document.createDocumentFragment();
  for (const w of s.split(/(\s+)/)) {
    let from = 0;
    if (w.length >= LONG_WORD) {
      for (let i = 0; i < w.length - 1; i++) {
        if (!BREAK_CHARS.includes(w.charAt(i))) continue;
        f.append(text(w.slice(from, i + 1)), el('wbr'));
        from = i + 1;
      }
    }
    if (from < w.length) f.appendChild(text(w.slice(from)));
  }
  return f;
}

export const dash = (): HTMLElement => el('span', 'muted', '\u2014');

/** "20:31:05 UTC" (with the date when not today) and its relative hint, as html.ts timeCell. */
export function timeEl(ms: number | null | undefined): DocumentFragment {
  const f = document.createDocumentFragment();
  if (ms == null) {
    f.appendChild(dash());
    return f;
  }
  const iso = new Date(ms).toISOString();
  const today = iso.slice(0, 10) === new Date(now()).toISOString().slice(0, 10);
  const t = el('time', null, (today ? '' : iso.slice(0, 10) + ' ') + iso.slice(11, 19) + ' UTC');
  t.setAttribute('datetime', iso);
  const r = el('span', 'rel', rel(ms));
  r.setAttribute('data-rel-of', String(ms));
  f.append(t, text(' '), r);
  return f;
}

/** Same as html.ts nextCheckCell: a next check whose time came is "due now", never a time ago. */
export const isDue = (ms: number): boolean => ms - now() < 1000;

export function nextEl(ms: number | null | undefined): HTMLElement {
  if (ms == null) return dash();
  const s = el('span', 'next');
  s.setAttribute('data-next-of', String(ms));
  s.appendChild(isDue(ms) ? text('due now') : timeEl(ms));
  return s;
}

export const num = (x: number | string | null | undefined): Node => (x == null ? dash() : text(String(x)));

/** A table cell with the column's label (the phone layout shows it before the value). */
export function cell(tr: HTMLTableRowElement, label: string, cls: string | null, content?: Node | string | null) {
  const td = el('td', cls);
  td.setAttribute('data-label', label);
  if (content != null) td.appendChild(typeof content === 'string' ? text(content) : content);
  tr.appendChild(td);
  return td;
}

export const pill = (cls: string, words: string): HTMLElement => el('span', `pill ${cls}`, words);

export function why(words: string | null | undefined, backingOff: boolean): DocumentFragment {
  const f = document.createDocumentFragment();
  f.appendChild(words ? breakable(words) : dash());
  if (backingOff) f.append(text(' '), el('span', 'tag', 'backing off'));
  return f;
}

/** The header cells' words of a table: the labels its rows' cells carry. */
export function columnLabels(table: HTMLTableElement): string[] {
  return Array.from(table.querySelectorAll('thead th'), (th) => th.textContent ?? '');
}

/** Replaces the table's first body with `tbody`. */
export function replaceBody(table: HTMLTableElement, tbody: HTMLTableSectionElement): void {
  const old = table.tBodies[0];
  if (old) table.replaceChild(tbody, old);
  else table.appendChild(tbody);
}

export function fill(e: Element, content: Node | string): void {
  e.textContent = '';
  e.appendChild(typeof content === 'string' ? text(content) : content);
}

export function put(id: string, content: Node | string): void {
  const e = document.getElementById(id);
  if (e) fill(e, content);
}
