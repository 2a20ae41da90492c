// The fleet status page at `/`: alerts, nodes (worst first), networks and recent events.
// Plain HTML that works without JavaScript; the page script refreshes it from /api/v1/nodes.
import { nodesJson, type NetworkRow, type NodeRow, type StatusSource } from './api.js';
import { GROUP_FROM, groupAlerts, groupWords, type AlertGroup } from './alertGroups.js';
import { historyBars } from './charts.js';
import { breakable, esc, nextCheckCell, page, timeCell } from './html.js';
import type { AlertView } from './types.js';
import { servedByNode, servesHtml, watchSectionHtml, type WatchRow } from './watchSection.js';

/** Polls shown as bars in each row of the fleet page (the node page shows all 100). */
export const ROW_BARS = 30;
/** Rows per page: the worst nodes come first, so page 1 is what on-call reads; ~0.5 MB of HTML. */
export const PAGE_ROWS = 100;

export const NODE_COLUMNS = [
  'Node',
  'Status',
  'Why',
  'Since',
  'Last check',
  'Next check',
  'Height',
  'Lag',
  'Version',
  'Uptime 24 h',
  `Last ${ROW_BARS} polls`,
] as const;

function num(x: number | null): string {
  return x === null ? '<span class="muted">—</span>' : String(x);
}

function rowHtml(r: NodeRow, now: number, serves: readonly WatchRow[] | undefined): string {
  const cells = [
    `<td class="st"><span class="pill ${r.status}">${esc(r.label)}</span></td>`,
    `<td class="why">${breakable(r.reason) || '<span class="muted">—</span>'}` +
      `${r.backingOff ? ' <span class="tag">backing off</span>' : ''}</td>`,
    `<td>${timeCell(r.since ?? undefined, now)}</td>`,
    `<td>${timeCell(r.lastCheck ?? undefined, now)}</td>`,
    `<td>${nextCheckCell(r.nextCheck ?? undefined, now)}</td>`,
    `<td class="n">${num(r.height)}</td>`,
    `<td class="n">${num(r.lagBlocks)}</td>`,
    `<td>${r.version === null ? '<span class="muted">—</span>' : esc(r.version)}</td>`,
    `<td class="n">${esc(r.uptime24hText)}</td>`,
    `<td class="hist">${historyBars(r.recent ?? [], ROW_BARS)}</td>`,
  ].map((c, i) => c.replace(/^<td/, `<td data-label="${esc(NODE_COLUMNS[i + 1]!)}"`));
  return (
    `<tr class="row-${r.status}" data-node="${esc(r.name)}"><th scope="row"><a ` +
    `href="nodes/${encodeURIComponent(r.name)}">${breakable(r.name)}</a> <span ` +
    `class="net">${esc(r.network)}</span>${servesHtml(serves)}</th>${cells.join('')}</tr>`
  );
}

function alertHtml(a: AlertView, now: number): string {
  return (
    `<li class="alert ${a.state === 'firing' ? 'firing' : 'pending'}" data-alertname="${esc(a.name)}" ` +
    `data-labels="${esc(JSON.stringify(a.labels))}"><strong>${esc(a.name)}</strong> <span ` +
    `class="tag">${esc(a.state)}</span> <span class="tag">${esc(a.severity)}</span> ${breakable(
      Object.entries(a.labels)
        .filter(([k]) => k === 'node' || k === 'network')
        .map(([k, v]) => `${k}=${v}`)
        .join(' '),
    )}${a.summary ? `<br>${breakable(a.summary)}` : ''}${
      a.since ? ` <span class="muted">since ${timeCell(a.since, now)}</span>` : ''
    }</li>`
  );
}

/** A group's cards behind one line (a <details> the page script closes on a phone). */
function groupHtml(g: AlertGroup<AlertView>, now: number): string {
  if (g.alerts.length < GROUP_FROM) return g.alerts.map((a) => alertHtml(a, now)).join('');
  return (
    `<li class="alert-group ${g.state === 'firing' ? 'firing' : 'pending'}"><details open data-group="` +
    `${esc(g.key)}"><summary>${esc(groupWords(g))}</summary><ul class="alerts">` +
    `${g.alerts.map((a) => alertHtml(a, now)).join('')}</ul></details></li>`
  );
}

export function alertsHtml(alerts: AlertView[] | null | undefined, now: number): string {
  if (alerts === null || alerts === undefined) return '';
  const items = groupAlerts(alerts)
    .map((g) => groupHtml(g, now))
    .join('');
  return (
    `<section id="alerts" aria-labelledby="alerts-h"><h2 id="alerts-h">Active ` +
    `alerts</h2>${
      items ? `<ul class="alerts">${items}</ul>` : '<p class="ok-msg">No alerts pending or firing.</p>'
    }</section>`
  );
}

/** The Watchdog in the small print: the alerting pipeline can send (never an incident card). */
export function pipelineHtml(alive: boolean | null): string {
  return alive ? ' · <span id="pipeline">alerting pipeline alive</span>' : '';
}

function networksHtml(nets: readonly NetworkRow[]): string {
  const body = nets
    .map(
      (n) =>
        `<tr><th scope="row">${esc(n.network)}</th><td class="n">${n.answering}/${n.total}</td><td ` +
        `class="n">${n.degraded}</td><td class="n">${n.down}</td><td class="n">${n.highestBlock ?? '—'}</td></tr>`,
    )
    .join('');
  return (
    `<table id="networks"><thead><tr><th scope="col">Network</th><th scope="col" class="n">Answering</th><th ` +
    `scope="col" class="n">Degraded</th><th scope="col" class="n">Down</th><th scope="col" class="n">Highest ` +
    `block</th></tr></thead><tbody>${body}</tbody></table>`
  );
}

export function eventsHtml(events: Array<{ at: number; text: string; kind: string }>, now: number): string {
  if (events.length === 0) return '<p class="muted" id="no-events">No events yet.</p>';
  return (
    `<ol ` +
    `class="events">${events
      .map((e) => `<li class="ev ${esc(e.kind)}">${timeCell(e.at, now)} ${breakable(e.text)}</li>`)
      .join('')}</ol>`
  );
}

/** Where this page sits in the worst-first list, with links to the others (only when there are several). */
function pagerHtml(pageNo: number, pages: number, first: number, shown: number, total: number): string {
  if (pages <= 1) return '';
  const link = (n: number, text: string) => `<a href="${n === 1 ? './' : `?page=${n}`}">${text}</a>`;
  const links = [
    pageNo > 1 ? `${link(1, '« first')} ${link(pageNo - 1, '‹ previous')}` : '',
    pageNo < pages ? `${link(pageNo + 1, 'next ›')} ${link(pages, 'last »')}` : '',
  ].filter(Boolean);
  return (
    `<nav class="pager" aria-label="Pages of nodes"><span>nodes ${first + 1}–${first + shown} of ${total}, worst ` +
    `first (page ${pageNo} of ${pages})</span> ${links.join(' ')}</nav>`
  );
}

function noticesHtml(notices: readonly string[]): string {
  return notices.length === 0
    ? ''
    : `<p id="notices" class="meta why" role="alert">${notices.map((n) => esc(n)).join('<br>')}</p>`;
}

/** The fleet page showing page `pageNo` of the nodes; undefined when there is no such page. */
export function fleetPage(
  src: StatusSource,
  info: { version: string; ready: boolean },
  pageNo = 1,
): string | undefined {
  const rowsPerPage = src.pageRows ?? PAGE_ROWS;
  const offset = (pageNo - 1) * rowsPerPage;
  const data = nodesJson(src, ROW_BARS, { offset, limit: rowsPerPage });
  // Every time on the page is a wall time (api.ts), so is the now they are told against.
  const now = data.generatedAt;
  const pages = Math.max(1, Math.ceil(data.total / rowsPerPage));
  if (pageNo > pages) return undefined;
  const served = servedByNode(data.watch);
  const pager = pagerHtml(pageNo, pages, offset, data.nodes.length, data.total);
  const numeric = new Set(['Height', 'Lag', 'Uptime 24 h']);
  const head = NODE_COLUMNS.map((c) => `<th scope="col"${numeric.has(c) ? ' class="n"' : ''}>${esc(c)}</th>`).join('');
  const body =
    `<header class="top"><h1>Ledger fleet status</h1>
<p class="meta"><strong id="summary">${esc(data.headline)}</strong> · <span ` +
    `id="updated">updated ${esc(new Date(now).toISOString().slice(11, 19))} ` +
    `UTC</span>${info.ready ? '' : ' · first poll round in progress'} · ` +
    `exporter ${esc(info.version)}${pipelineHtml(data.pipelineAlive)}</p>${noticesHtml(data.notices)}</header>
<main>
${alertsHtml(data.alerts, now)}
${watchSectionHtml(data.watch, now)}
<section aria-labelledby="nodes-h"><h2 id="nodes-h">Nodes</h2>
${pager}<table id="nodes" class="nodes"><thead><tr>${head}</tr></thead>` +
    `<tbody>${data.nodes.map((r) => rowHtml(r, now, served.get(r.name))).join('\n')}</tbody>` +
    `</table>${pager}</section>
<section aria-labelledby="nets-h"><h2 id="nets-h">Networks</h2>${networksHtml(data.networks)}</section>
<section aria-labelledby="events-h"><h2 id="events-h">Recent events</h2><div ` +
    `id="events">${eventsHtml(data.events, now)}</div></section>
</main>
<footer><a href="metrics">/metrics</a> · <a href="api/v1/nodes">/api/v1/nodes</a> · <a ` +
    `href="api/v1/watch">/api/v1/watch</a> · <a href="api/evidence?limit=20">/api/evidence</a> · <a ` +
    `href="healthz">/healthz</a> · <a href="readyz">/readyz</a></footer>`;
  return page({
    title: `${data.summary.down ? `${data.summary.down} down – ` : ''}Ledger fleet status`,
    root: '',
    api: `api/v1/nodes?recent=${ROW_BARS}&offset=${offset}&limit=${rowsPerPage}`,
    refreshMs: src.refreshMs,
    generatedAt: now,
    body,
  });
}
