// The watched entries' rows, as watchSection.ts renders them, refreshed from the fleet JSON's
// `watch`, and the links from the node rows to the entries each node served.
import type { WatchRowJson } from './apiTypes.js';
import { cell, columnLabels, dash, el, pill, replaceBody, text, timeEl } from './dom.js';

/** Same as watchSection.ts shortAddress. */
const shortAddress = (a: string): string => (a.length > 16 ? `${a.slice(0, 8)}\u2026${a.slice(-6)}` : a);

function watchRow(w: WatchRowJson, labels: readonly string[]): HTMLTableRowElement {
  const tr = el('tr', `row-${w.status}`);
  tr.id = w.anchor;
  const th = el('th');
  th.setAttribute('scope', 'row');
  th.append(text(`${w.name} `), el('span', 'net', w.network), text(' '), el('span', 'tag', w.kind), el('br'));
  const code = el('code', 'addr', shortAddress(w.address));
  code.setAttribute('title', w.address);
  th.appendChild(code);
  tr.appendChild(th);
  cell(tr, labels[1] ?? '', 'st', pill(w.status, w.label));
  cell(tr, labels[2] ?? '', 'why', w.text);
  let via: HTMLElement = dash();
  if (w.servedBy) {
    via = el('a', null, w.servedBy);
    via.setAttribute('href', `nodes/${encodeURIComponent(w.servedBy)}`);
  }
  cell(tr, labels[3] ?? '', null, via);
  cell(tr, labels[4] ?? '', null, timeEl(w.lastRead));
  return tr;
}

export function watchTable(list: readonly WatchRowJson[] | undefined): void {
  const table = document.getElementById('watched');
  if (!(table instanceof HTMLTableElement) || !list) return;
  const labels = columnLabels(table);
  const tbody = el('tbody');
  for (const w of list) tbody.appendChild(watchRow(w, labels));
  replaceBody(table, tbody);
}

/** The entries each node answered the last read of, by node name. */
export function servedBy(list: readonly WatchRowJson[] | undefined): Map<string, WatchRowJson[]> {
  const out = new Map<string, WatchRowJson[]>();
  for (const w of list ?? []) if (w.servedBy) out.set(w.servedBy, [...(out.get(w.servedBy) ?? []), w]);
  return out;
}

/** Links from a node's row head to the entries it serves, as watchSection.ts servesHtml. */
export function serves(th: HTMLElement, list: readonly WatchRowJson[] | undefined): void {
  if (!list?.length) return;
  const s = el('span', 'serves', 'serves');
  for (const w of list) {
    const a = el('a', 'tag', w.name);
    a.setAttribute('href', `#${w.anchor}`);
    s.append(text(' '), a);
  }
  th.append(text(' '), s);
}
