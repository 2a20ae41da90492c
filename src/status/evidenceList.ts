// The node page's evidence: the newest 5xx answers, the same answer told once with how often, to
// which requests and over what time it came (a node behind a failing proxy sends the same 502 page
// to every probe at every poll).
import type { EvidenceRecord } from '../evidence/record.js';
import { esc } from './html.js';

/**
 * Evidence shown on the node page: the newest records (partial: the read stopped at its byte
 * bound), or why there are none (busy: the evidence queries allowed at once are running;
 * missing: the evidence directory is gone, e.g. deleted while the exporter runs).
 */
export type EvidenceSection =
  | { records: EvidenceRecord[]; partial?: boolean }
  | { disabled: true }
  | { missing: true }
  | { error: string }
  | { busy: true };

/** Records that carry the same answer (status, server, body), newest first: `newest` is shown, the rest counted. */
export interface AnswerGroup {
  newest: EvidenceRecord;
  count: number;
  oldestTime: string;
  /** The requests that got it ("GET /health", "POST claw_blockNumber"), newest first, each once. */
  requests: string[];
}

const sameAnswer = (r: EvidenceRecord) => JSON.stringify([r.status, r.headers.server ?? '', r.body, r.bodyTruncated]);

/** Groups records (newest first) by the answer they carry, in the order of each answer's newest record. Pure. */
export function groupRepeats(records: readonly EvidenceRecord[]): AnswerGroup[] {
  const byAnswer = new Map<string, AnswerGroup>();
  for (const r of records) {
    const key = sameAnswer(r);
    const g = byAnswer.get(key);
    if (g) {
      g.count++;
      if (r.time < g.oldestTime) g.oldestTime = r.time;
      if (!g.requests.includes(r.method)) g.requests.push(r.method);
    } else byAnswer.set(key, { newest: r, count: 1, oldestTime: r.time, requests: [r.method] });
  }
  return [...byAnswer.values()];
}

const shortTime = (iso: string) => `${iso.replace('T', ' ').slice(0, 19)} UTC`;

function groupHtml(g: AnswerGroup): string {
  const r = g.newest;
  const to = g.requests.length > 1 ? ` to ${esc(g.requests.join(', '))}` : '';
  const repeats =
    g.count > 1
      ? `<br><strong class="repeats">same answer ${g.count} times</strong>${to} since <time ` +
        `datetime="${esc(g.oldestTime)}">${esc(shortTime(g.oldestTime))}</time>`
      : '';
  return (
    `<li class="evidence"><p><time datetime="${esc(r.time)}">${esc(shortTime(r.time))}</time> · ${esc(r.probe)} ` +
    `probe · <strong>${esc(r.method)}</strong> · HTTP ${r.status} · ${Math.round(r.durationMs)} ms · attempt ` +
    `${r.attempt}${r.headers.server ? ` · server: ${esc(r.headers.server)}` : ''}${repeats}</p>` +
    `<pre>${esc(r.body.slice(0, 600))}${r.body.length > 600 || r.bodyTruncated ? '\n…' : ''}</pre></li>`
  );
}

export function evidenceHtml(ev: EvidenceSection, name: string): string {
  if ('disabled' in ev) return '<p class="muted">The evidence store is not enabled.</p>';
  if ('missing' in ev)
    return '<p class="muted" id="evidence-missing">No evidence records: the evidence directory is missing.</p>';
  if ('error' in ev) return `<p class="warn-msg">Evidence could not be read: ${esc(ev.error)}</p>`;
  if ('busy' in ev)
    return (
      '<p class="muted" id="evidence-busy">Evidence busy (other queries are reading it), ' +
      'try again in a moment.</p>'
    );
  const more =
    `<p><a href="../api/evidence?node=${encodeURIComponent(name)}&amp;limit=50">All evidence of this node as ` +
    `JSON</a></p>`;
  const partial = ev.partial
    ? '<p class="muted" id="evidence-partial">Only the newest evidence files were read (the read stops at a size ' +
      'limit); older records may exist.</p>'
    : '';
  if (ev.records.length === 0)
    return partial
      ? partial + more
      : '<p class="muted">No evidence recorded for this node (evidence is kept for 5xx answers).</p>';
  return `<ol class="evidence-list">${groupRepeats(ev.records).map(groupHtml).join('')}</ol>${partial}${more}`;
}
