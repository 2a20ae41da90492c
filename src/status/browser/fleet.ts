// The fleet page refreshed from /api/v1/nodes: the same rows, alerts, networks, pager and events
// as the server renders (fleetPage.ts), so a refresh changes only what changed on the server.
import type { AlertJson, EventJson, FleetJson, NetworkJson, NodeRowJson, WatchRowJson } from './apiTypes.js';
import { drawActions, loadActions } from './actions.js';
import { bars } from './charts.js';
import { GROUP_FROM, groupAlerts, groupWords, type AlertGroup } from '../alertGroups.js';
import { breakable, cell, columnLabels, dash, el, nextEl, num, pill, replaceBody, text, timeEl, why } from './dom.js';
import { servedBy, serves, watchTable } from './watch.js';

function nodeRow(r: NodeRowJson, labels: readonly string[], served: Map<string, WatchRowJson[]>) {
  const tr = el('tr', `row-${r.status}`);
  tr.setAttribute('data-node', r.name);
  const th = el('th');
  th.setAttribute('scope', 'row');
  const a = el('a');
  a.appendChild(breakable(r.name));
  a.setAttribute('href', `nodes/${encodeURIComponent(r.name)}`);
  th.append(a, text(' '), el('span', 'net', r.network));
  serves(th, served.get(r.name));
  tr.appendChild(th);
  const label = (i: number) => labels[i] ?? '';
  cell(tr, label(1), 'st', pill(r.status, r.label));
  cell(tr, label(2), 'why', why(r.reason, r.backingOff));
  cell(tr, label(3), null, timeEl(r.since));
  cell(tr, label(4), null, timeEl(r.lastCheck));
  cell(tr, label(5), null, nextEl(r.nextCheck));
  cell(tr, label(6), 'n', num(r.height));
  cell(tr, label(7), 'n', num(r.lagBlocks));
  cell(tr, label(8), null, r.version == null ? dash() : r.version);
  cell(tr, label(9), 'n', r.uptime24hText);
  cell(tr, label(10), 'hist', bars(r.recent ?? [], 30, false));
  return tr;
}

export function events(list: readonly EventJson[]): void {
  const box = document.getElementById('events');
  if (!box) return;
  box.textContent = '';
  if (!list.length) {
    box.appendChild(el('p', 'muted', 'No events yet.'));
    return;
  }
  const ol = el('ol', 'events');
  for (const e of list) {
    const li = el('li', `ev ${e.kind}`);
    li.append(timeEl(e.at), text(' '), breakable(e.text));
    ol.appendChild(li);
  }
  box.appendChild(ol);
}

function alertCard(a: AlertJson): HTMLLIElement {
  const li = el('li', `alert ${a.state === 'firing' ? 'firing' : 'pending'}`);
  li.setAttribute('data-alertname', a.name);
  li.setAttribute('data-labels', JSON.stringify(a.labels));
  const where = Object.keys(a.labels)
    .filter((k) => k === 'node' || k === 'network')
    .map((k) => `${k}=${a.labels[k]}`)
    .join(' ');
  li.append(
    el('strong', null, a.name),
    text(' '),
    el('span', 'tag', a.state),
    text(' '),
    el('span', 'tag', a.severity),
    text(' '),
    breakable(where),
  );
  if (a.summary) li.append(el('br'), breakable(a.summary));
  if (a.since) {
    const since = el('span', 'muted', 'since ');
    since.appendChild(timeEl(a.since));
    li.append(text(' '), since);
  }
  return li;
}

/** Groups the reader opened or closed, by key: a refresh keeps them so. */
const chosen = new Map<string, boolean>();
/** Same width as the stylesheet's phone layout. */
const phone = (): boolean => window.matchMedia('(max-width: 760px)').matches;

/** Shows a group open unless on a phone, or as the reader left it. */
export function openGroups(root: ParentNode): void {
  root.querySelectorAll<HTMLDetailsElement>('details[data-group]').forEach((d) => {
    const key = d.getAttribute('data-group') ?? '';
    d.open = chosen.get(key) ?? !phone();
    d.addEventListener('toggle', () => chosen.set(key, d.open));
  });
}

/** Same as the server's groupHtml (fleetPage.ts): a group's cards behind one line. */
function groupItems(g: AlertGroup<AlertJson>): HTMLLIElement[] {
  if (g.alerts.length < GROUP_FROM) return g.alerts.map(alertCard);
  const li = el('li', `alert-group ${g.state === 'firing' ? 'firing' : 'pending'}`);
  const details = el('details');
  details.setAttribute('data-group', g.key);
  const ul = el('ul', 'alerts');
  ul.append(...g.alerts.map(alertCard));
  details.append(el('summary', null, groupWords(g)), ul);
  li.appendChild(details);
  return [li];
}

function alerts(list: readonly AlertJson[] | null): void {
  const sec = document.getElementById('alerts');
  if (!sec || list == null) return;
  sec.querySelector('ul, p')?.remove();
  if (!list.length) {
    sec.appendChild(el('p', 'ok-msg', 'No alerts pending or firing.'));
    return;
  }
  const ul = el('ul', 'alerts');
  for (const g of groupAlerts(list)) ul.append(...groupItems(g));
  openGroups(ul);
  sec.appendChild(ul);
}

/** Same cells as the server's networksHtml (fleetPage.ts); the list covers the whole fleet, not only this page. */
function networks(list: readonly NetworkJson[] | undefined): void {
  const table = document.getElementById('networks');
  if (!(table instanceof HTMLTableElement) || !list) return;
  const tbody = el('tbody');
  for (const n of list) {
    const tr = el('tr');
    const th = el('th', null, n.network);
    th.setAttribute('scope', 'row');
    tr.appendChild(th);
    for (const v of [`${n.answering}/${n.total}`, n.degraded, n.down, n.highestBlock ?? '\u2014'])
      tr.appendChild(el('td', 'n', String(v)));
    tbody.appendChild(tr);
  }
  replaceBody(table, tbody);
}

/** Same words and links as the server's pager (fleetPage.ts), from the window the refresh returned. */
function pager(data: FleetJson): void {
  const navs = document.querySelectorAll('nav.pager');
  if (!navs.length || !data.limit) return;
  const pages = Math.max(1, Math.ceil(data.total / data.limit));
  const page = Math.floor(data.offset / data.limit) + 1;
  const link = (nav: Element, n: number, words: string) => {
    const a = el('a', null, words);
    a.setAttribute('href', n === 1 ? './' : `?page=${n}`);
    nav.append(text(' '), a);
  };
  navs.forEach((nav) => {
    nav.textContent = '';
    nav.appendChild(
      el(
        'span',
        null,
        data.nodes.length
          ? `nodes ${data.offset + 1}\u2013${data.offset + data.nodes.length} of ${data.total}, worst first ` +
              `(page ${page} of ${pages})`
          : `no nodes on this page: the fleet has ${data.total} (${pages} page${pages === 1 ? '' : 's'})`,
      ),
    );
    if (page > 1) {
      link(nav, 1, '\u00ab first');
      link(nav, Math.min(page - 1, pages), '\u2039 previous');
    }
    if (page < pages) {
      link(nav, page + 1, 'next \u203a');
      link(nav, pages, 'last \u00bb');
    }
  });
}

export function fleet(data: FleetJson): void {
  pager(data);
  const table = document.getElementById('nodes');
  if (table instanceof HTMLTableElement) {
    const labels = columnLabels(table);
    const tbody = el('tbody');
    const served = servedBy(data.watch);
    for (const r of data.nodes) tbody.appendChild(nodeRow(r, labels, served));
    replaceBody(table, tbody);
  }
  watchTable(data.watch);
  const summary = document.getElementById('summary');
  if (summary) summary.textContent = data.headline;
  document.title = (data.summary.down ? `${data.summary.down} down \u2013 ` : '') + 'Ledger fleet status';
  alerts(data.alerts);
  drawActions();
  void loadActions();
  networks(data.networks);
  events(data.events);
}
