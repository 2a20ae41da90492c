// The watched validators, miners and accounts on the status page and in /api/v1/watch: one row
// per entry with its state in words and the node that answered its last read (whose row on the
// fleet page links back to it).
import { watchKinds } from '../watch/kinds/registry.js';
import { entriesOf, type WatchSnapshot, type WatchedEntryView } from '../watch/types.js';
import { esc, timeCell } from './html.js';
import type { StatusKind } from './types.js';
import { watchState } from './watchWords.js';

export const WATCH_LABEL: Record<StatusKind, string> = {
  up: '● ok',
  degraded: '◆ at risk',
  down: '▼ PROBLEM',
  unknown: '? unknown',
};
export const WATCH_COLUMNS = ['Name', 'Status', 'State', 'Read through', 'Last read'] as const;

export interface WatchRow {
  kind: string;
  name: string;
  network: string;
  address: string;
  status: StatusKind;
  label: string;
  text: string;
  servedBy: string | null;
  lastRead: number | null;
  /** The row's id on the fleet page. */
  anchor: string;
}

export const watchAnchor = (name: string): string => `watch-${name.replace(/[^A-Za-z0-9_-]/g, '_')}`;

function entries(watch: WatchSnapshot | undefined): WatchedEntryView[] {
  return watch?.entries ?? [];
}

/** `toWall`: the wall time of a monotonic one (the reads' times are monotonic), for the times shown. */
type ToWall = ((mono: number) => number) | undefined;

/** The last complete read as shown: its wall time, in seconds as the snapshot has it. */
const lastReadSeconds = (v: WatchedEntryView, toWall: ToWall): number | undefined =>
  v.lastSuccessSeconds === undefined || !toWall ? v.lastSuccessSeconds : toWall(v.lastSuccessSeconds * 1000) / 1000;

export function watchRows(watch: WatchSnapshot | undefined, toWall?: ToWall): WatchRow[] {
  return entries(watch).map((v) => {
    const last = lastReadSeconds(v, toWall);
    const s = watchState(v);
    return {
      kind: v.kind,
      name: v.name,
      network: v.network,
      address: v.address,
      status: s.status,
      label: WATCH_LABEL[s.status],
      text: s.text,
      servedBy: v.servedBy ?? null,
      lastRead: last === undefined ? null : last * 1000,
      anchor: watchAnchor(v.name),
    };
  });
}

/** GET /api/v1/watch: every value read, and the state in words, by kind. */
export function watchJson(watch: WatchSnapshot | undefined, toWall?: ToWall) {
  const words = (v: WatchedEntryView) => {
    const s = watchState(v);
    const last = lastReadSeconds(v, toWall);
    return { ...v, ...(last !== undefined && { lastSuccessSeconds: last }), status: s.status, text: s.text };
  };
  // One list per kind, under its config list's name (validators, miners, accounts, ...).
  return {
    configured: watch !== undefined,
    ...Object.fromEntries(watchKinds().map((k) => [k.list, entriesOf(watch, k.kind).map(words)])),
  };
}

/** Entries each node answered the last read of, for links from the node rows. */
export function servedByNode(rows: readonly WatchRow[]): Map<string, WatchRow[]> {
  const out = new Map<string, WatchRow[]>();
  for (const r of rows) if (r.servedBy) out.set(r.servedBy, [...(out.get(r.servedBy) ?? []), r]);
  return out;
}

/** Links from a node's row to the entries it serves ('' when none). */
export function servesHtml(rows: readonly WatchRow[] | undefined): string {
  if (!rows?.length) return '';
  return (
    ` <span class="serves">serves ` +
    `${rows.map((r) => `<a class="tag" href="#${r.anchor}">${esc(r.name)}</a>`).join(' ')}</span>`
  );
}

const shortAddress = (a: string): string => (a.length > 16 ? `${a.slice(0, 8)}…${a.slice(-6)}` : a);

function rowHtml(r: WatchRow, now: number): string {
  const cells = [
    `<td class="st"><span class="pill ${r.status}">${esc(r.label)}</span></td>`,
    `<td class="why">${esc(r.text)}</td>`,
    r.servedBy
      ? `<td><a href="nodes/${encodeURIComponent(r.servedBy)}">${esc(r.servedBy)}</a></td>`
      : '<td><span class="muted">—</span></td>',
    `<td>${timeCell(r.lastRead ?? undefined, now)}</td>`,
  ].map((c, i) => c.replace(/^<td/, `<td data-label="${esc(WATCH_COLUMNS[i + 1]!)}"`));
  const head =
    `<th scope="row">${esc(r.name)} <span class="net">${esc(r.network)}</span> <span ` +
    `class="tag">${r.kind}</span><br><code class="addr" ` +
    `title="${esc(r.address)}">${esc(shortAddress(r.address))}</code></th>`;
  return `<tr id="${r.anchor}" class="row-${r.status}">${head}${cells.join('')}</tr>`;
}

/** The fleet page's section ('' when nothing is watched). */
export function watchSectionHtml(rows: readonly WatchRow[], now: number): string {
  if (rows.length === 0) return '';
  const head = WATCH_COLUMNS.map((c) => `<th scope="col">${esc(c)}</th>`).join('');
  return (
    `<section aria-labelledby="watch-h"><h2 id="watch-h">Watched addresses</h2>
<table id="watched" class="nodes"><thead><tr>${head}</tr></thead>` +
    `<tbody>${rows.map((r) => rowHtml(r, now)).join('\n')}</tbody></table></section>`
  );
}
