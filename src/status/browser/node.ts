// A node's page refreshed from /api/v1/nodes/<name>: the same facts and words as the server's
// nodePage.ts; the evidence stays as loaded.
import type { NodeJson, ProbeJson } from './apiTypes.js';
import { bars, spark } from './charts.js';
import { cell, columnLabels, dash, el, fill, nextEl, num, pill, put, replaceBody, text, timeEl, why } from './dom.js';
import { events } from './fleet.js';

const RESULT: Record<string, string> = {
  failing: '\u25bc failing',
  ok: '\u25cf ok',
  unsupported: '\u25cb unsupported',
};

function fillProbe(tr: HTMLTableRowElement, p: ProbeJson): void {
  const c = (i: number): HTMLTableCellElement => tr.cells[i] ?? tr.appendChild(el('td'));
  tr.className = `probe-${p.outcome}`;
  c(0).textContent = p.probe;
  fill(c(1), pill(p.outcome, RESULT[p.outcome] ?? '? pending'));
  fill(c(2), why(p.text, p.backingOff));
  fill(c(3), p.durationMs == null ? dash() : `${p.durationMs} ms`);
  fill(c(4), timeEl(p.lastRun));
  fill(c(5), timeEl(p.lastSuccess));
  fill(c(6), nextEl(p.nextCheck));
  c(7).textContent = p.supported ? 'yes' : 'no (earlier node build)';
}

/**
 * Rows are the node's probes by name: a reload that changed the list gets new rows, so a result
 * never shows under another probe's name.
 */
function probes(list: readonly ProbeJson[]): void {
  const table = document.getElementById('probes');
  if (!(table instanceof HTMLTableElement)) return;
  let rows = table.tBodies[0]?.rows;
  const same = rows?.length === list.length && list.every((p, i) => rows?.[i]?.getAttribute('data-probe') === p.probe);
  if (!same || !rows) {
    const labels = columnLabels(table);
    const tbody = el('tbody');
    for (const p of list) {
      const tr = el('tr');
      const th = el('th');
      tr.setAttribute('data-probe', p.probe);
      th.setAttribute('scope', 'row');
      tr.appendChild(th);
      for (let i = 1; i < labels.length; i++) cell(tr, labels[i] ?? '', i === 3 ? 'n' : null);
      tbody.appendChild(tr);
    }
    replaceBody(table, tbody);
    rows = tbody.rows;
  }
  list.forEach((p, i) => {
    const tr = rows?.[i];
    if (tr) fillProbe(tr, p);
  });
}

/** Badges are images: fetched again (a new query string) only when what they show changed. */
function badges(n: NodeJson['node'], at: number): void {
  const box = document.getElementById('node-badges');
  // Same as nodePage's data-shows: the 24 h words change with the time polled, as the badge's label does.
  const shows = `${n.status} ${n.uptime24hText}`;
  if (!box || box.getAttribute('data-shows') === shows) return;
  box.setAttribute('data-shows', shows);
  box.querySelectorAll('img').forEach((img) => {
    img.setAttribute('src', `${(img.getAttribute('src') ?? '').split('?')[0]}?at=${at}`);
  });
}

function fragment(...parts: (Node | string)[]): DocumentFragment {
  const f = document.createDocumentFragment();
  f.append(...parts);
  return f;
}

export function node(data: NodeJson): void {
  const n = data.node;
  const st = document.getElementById('node-status');
  if (st) {
    st.className = `pill ${n.status}`;
    st.textContent = n.label;
  }
  document.title = `${n.name}: ${n.status} \u2013 Ledger fleet status`;
  put('node-reason', n.reason || 'answering normally');
  put('node-backoff', n.backingOff ? fragment(' ', el('span', 'tag', 'backing off')) : fragment());
  put('node-since', timeEl(n.since));
  put('node-last', timeEl(n.lastCheck));
  put('node-next', fragment(nextEl(n.nextCheck), n.backingOff ? ' (backing off after failures)' : ''));
  put('node-network', n.network);
  put('node-version', num(n.version));
  put('node-namespace', num(n.namespace));
  put('node-height', fragment(num(n.height), n.lagBlocks == null ? '' : ` (${n.lagBlocks} behind the highest node)`));
  put('node-age', n.blockAgeSecs == null ? dash() : `${n.blockAgeSecs} s`);
  put('node-peers', num(n.peers));
  const tags = Object.entries(n.labels).flatMap(([k, v], i) => [
    ...(i ? [text(' ')] : []),
    el('span', 'tag', `${k}=${v}`),
  ]);
  put('node-labels', tags.length ? fragment(...tags) : dash());
  put('node-uptime', n.uptimeText);
  badges(n, data.generatedAt);
  probes(n.probes);
  const hist = document.querySelector('.hist-big');
  if (hist) fill(hist, bars(n.recent ?? [], 100, true));
  put('node-spark', spark(n.recent ?? []));
  events(data.events);
}
