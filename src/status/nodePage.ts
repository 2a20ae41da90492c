// The page of one node (/nodes/<name>): status and why, probes, history, events, evidence, labels.
// The page script fills every element with an id from /api/v1/nodes/<name> (browser/node.ts); only the
// evidence stays as loaded (reading it has its own limits).
import { nodeJson, type StatusSource } from './api.js';
import { evidenceHtml, type EvidenceSection } from './evidenceList.js';
export type { EvidenceSection } from './evidenceList.js';
import { eventsHtml } from './fleetPage.js';
import { historyBars, sparkline } from './charts.js';
import { esc, nextCheckCell, page, timeCell } from './html.js';
import { HISTORY_LENGTH } from './history.js';

const dash = '<span class="muted">—</span>';
const opt = (x: string | number | null | undefined) => (x === null || x === undefined ? dash : esc(String(x)));
const OUTCOME_WORDS: Record<string, string> = { failing: '▼ failing', ok: '● ok', unsupported: '○ unsupported' };

function probesHtml(probes: NonNullable<ReturnType<typeof nodeJson>>['node']['probes'], now: number): string {
  const rows = probes
    .map(
      (p) =>
        `<tr class="probe-${p.outcome}" data-probe="${esc(p.probe)}"><th scope="row">${esc(p.probe)}</th><td ` +
        `data-label="Result"><span class="pill ` +
        `${p.outcome}">${esc(OUTCOME_WORDS[p.outcome] ?? '? pending')}</span></td><td ` +
        `data-label="Reason">${esc(p.text)}${p.backingOff ? ' <span class="tag">backing off</span>' : ''}</td><td ` +
        `data-label="Duration" class="n">${p.durationMs === null ? dash : `${p.durationMs} ms`}</td><td ` +
        `data-label="Last run">${timeCell(p.lastRun ?? undefined, now)}</td><td data-label="Last ` +
        `success">${timeCell(p.lastSuccess ?? undefined, now)}</td><td data-label="Next ` +
        `check">${nextCheckCell(p.nextCheck ?? undefined, now)}</td><td ` +
        `data-label="Supported">${p.supported ? 'yes' : 'no (earlier node build)'}</td></tr>`,
    )
    .join('');
  return (
    `<table id="probes"><thead><tr><th scope="col">Probe</th><th scope="col">Result</th><th ` +
    `scope="col">Reason</th><th scope="col">Duration</th><th scope="col">Last run</th><th scope="col">Last ` +
    `success</th><th scope="col">Next check</th><th ` +
    `scope="col">Supported</th></tr></thead><tbody>${rows}</tbody></table>`
  );
}

export function nodePage(src: StatusSource, name: string, evidence: EvidenceSection): string | undefined {
  const data = nodeJson(src, name);
  if (!data) return undefined;
  const n = data.node;
  const now = data.generatedAt;
  const enc = encodeURIComponent(name);
  const labels =
    Object.entries(n.labels)
      .map(([k, v]) => `<span class="tag">${esc(k)}=${esc(v)}</span>`)
      .join(' ') || dash;
  const recent = n.recent ?? [];
  const backingOff = n.backingOff ? ' (backing off after failures)' : '';
  const body =
    `<header class="top"><p><a href="../">← All nodes</a></p><h1>${esc(name)} <span ` +
    `class="pill ${n.status}" id="node-status">${esc(n.label)}</span></h1>
<p class="meta"><span id="node-reason" class="why">${esc(n.reason) || 'answering normally'}</span><span ` +
    `id="node-backoff">${n.backingOff ? ' <span class="tag">backing off</span>' : ''}</span> · <span ` +
    `id="updated">updated ${esc(new Date(now).toISOString().slice(11, 19))} UTC</span></p></header>
<main>
<section aria-labelledby="sum-h"><h2 id="sum-h">Summary</h2><dl class="facts">
<dt>Status since</dt><dd id="node-since">${timeCell(n.since ?? undefined, now)}</dd>
<dt>Last check</dt><dd id="node-last">${timeCell(n.lastCheck ?? undefined, now)}</dd>
<dt>Next check</dt><dd id="node-next">${nextCheckCell(n.nextCheck ?? undefined, now)}${backingOff}</dd>
<dt>Network</dt><dd id="node-network">${esc(n.network)}</dd>
<dt>Version</dt><dd id="node-version">${opt(n.version)}</dd>
<dt>RPC namespace</dt><dd id="node-namespace">${opt(n.namespace)}</dd>
<dt>Height</dt><dd id="node-height">${opt(n.height)}${
      n.lagBlocks !== null ? ` (${n.lagBlocks} behind the highest node)` : ''
    }</dd>
<dt>Last block age</dt><dd id="node-age">${n.blockAgeSecs === null ? dash : `${n.blockAgeSecs} s`}</dd>
<dt>Peers</dt><dd id="node-peers">${opt(n.peers)}</dd>
<dt>Labels</dt><dd id="node-labels">${labels}</dd>
<dt>Uptime</dt><dd id="node-uptime">${esc(n.uptimeText)}</dd>
<dt>Badges</dt><dd id="node-badges" data-shows="${esc(`${n.status} ${n.uptime24hText}`)}"><img alt="status badge ` +
    `of ${esc(name)}" src="../api/v1/nodes/${enc}/badge.svg"> <img alt="24 h uptime badge of ${esc(name)}" ` +
    `src="../api/v1/nodes/${enc}/uptime/24h/badge.svg"></dd>
</dl></section>
<section aria-labelledby="probes-h"><h2 id="probes-h">Probes</h2>${probesHtml(n.probes, now)}</section>
<section aria-labelledby="hist-h"><h2 id="hist-h">History</h2><div ` +
    `class="hist-big">${historyBars(recent, HISTORY_LENGTH, { axis: true })}</div><h3>Response time</h3>` +
    `<div id="node-spark">${sparkline(recent)}</div></section>
<section aria-labelledby="ev-h"><h2 id="ev-h">Events</h2><div id="events">${eventsHtml(data.events, now)}</div>` +
    `</section>
<section aria-labelledby="evid-h"><h2 id="evid-h">Recent evidence <span class="muted small">(as of page load)</span>` +
    `</h2>${evidenceHtml(evidence, name)}</section>
</main>
<footer><a href="../api/v1/nodes/${enc}">This node as JSON</a> · <a href="../metrics">/metrics</a></footer>`;
  return page({
    title: `${name}: ${n.status} – Ledger fleet status`,
    root: '../',
    api: `api/v1/nodes/${enc}`,
    refreshMs: src.refreshMs,
    generatedAt: now,
    body,
  });
}
