// HTTP routes of the on-call view: pages, badges, the JSON API and the pages' static files.
// Returns undefined for paths it does not own, so the server can try its other routes.
import type { ReadResult } from '../evidence/files.js';
import { nodeJson, nodesJson, shownNow, type StatusSource } from './api.js';
import { FAVICON_SVG, STATUS_CSS } from './assets.js';
import { statusBadge, uptimeBadge } from './badge.js';
import { fleetPage } from './fleetPage.js';
import { esc, page } from './html.js';
import { HISTORY_LENGTH, UPTIME_WINDOWS, type UptimeWindow } from './history.js';
import { nodePage, type EvidenceSection } from './nodePage.js';
import { statusScript } from './script.js';
import { watchJson } from './watchSection.js';
import { parseIntParam } from '../web/queryInt.js';

export interface StatusReply {
  status: number;
  contentType: string;
  body: string;
  headers?: Record<string, string>;
}

export interface StatusRouteDeps {
  source: StatusSource;
  version: string;
  ready: () => boolean;
  /** Newest evidence records of a node, 'busy' when too many queries run; absent when the evidence store is off. */
  evidence?: (node: string, limit: number) => Promise<Pick<ReadResult, 'records' | 'partial'> | 'busy'>;
}

/** Scripts and styles from this server only, no inline script, nothing framed or posted. */
export const STATUS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; " +
  "form-action 'none'; frame-ancestors 'none'";
const HTML_HEADERS = {
  'content-security-policy': STATUS_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};
const EVIDENCE_ON_PAGE = 5;

const html = (status: number, body: string): StatusReply => ({
  status,
  contentType: 'text/html; charset=utf-8',
  body,
  headers: HTML_HEADERS,
});
const json = (status: number, body: unknown): StatusReply => ({
  status,
  contentType: 'application/json; charset=utf-8',
  body: JSON.stringify(body),
});
const svg = (body: string): StatusReply => ({
  status: 200,
  contentType: 'image/svg+xml; charset=utf-8',
  body,
  headers: { 'content-security-policy': "default-src 'none'", 'x-content-type-options': 'nosniff' },
});

function messagePage(root: string, what: string, now: number, refreshMs: number, status = 404): StatusReply {
  const title = status === 404 ? 'Not found' : 'Bad request';
  return html(
    status,
    page({
      title: `${title} – Ledger fleet status`,
      root,
      refreshMs,
      generatedAt: now,
      body: `<main><h1>${title}</h1><p>${esc(what)}</p><p><a href="${root || './'}">All nodes</a></p></main>`,
    }),
  );
}

/** An optional integer query parameter within [min, max]; a string says what is wrong with it. */
function intParam(
  params: URLSearchParams,
  name: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined | string {
  const raw = params.get(name);
  if (raw === null) return undefined;
  return (
    parseIntParam(raw, min, max) ??
    (max === Number.MAX_SAFE_INTEGER
      ? `${name} must be an integer of at least ${min}`
      : `${name} must be an integer from ${min} to ${max}`)
  );
}

function decodeName(raw: string): string | undefined {
  try {
    const name = decodeURIComponent(raw);
    return name.length > 0 && name.length <= 200 ? name : undefined;
  } catch {
    return undefined;
  }
}

async function evidenceFor(deps: StatusRouteDeps, name: string): Promise<EvidenceSection> {
  if (!deps.evidence) return { disabled: true };
  try {
    const read = await deps.evidence(name, EVIDENCE_ON_PAGE);
    return read === 'busy' ? { busy: true } : { records: read.records, partial: read.partial };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // Deleted while the exporter runs: there are no records to show, which is no read fault.
    if (code === 'ENOENT') return { missing: true };
    return { error: code ?? 'read failed' };
  }
}

export { STATUS_PATHS } from './paths.js';

export async function statusRoute(
  deps: StatusRouteDeps,
  pathname: string,
  params: URLSearchParams,
): Promise<StatusReply | undefined> {
  const src = deps.source;
  if (pathname === '/') {
    const pageNo = intParam(params, 'page', 1);
    if (typeof pageNo === 'string') return messagePage('', pageNo, shownNow(src), src.refreshMs, 400);
    const body = fleetPage(src, { version: deps.version, ready: deps.ready() }, pageNo ?? 1);
    return body
      ? html(200, body)
      : messagePage('', `There is no page ${pageNo} of nodes.`, shownNow(src), src.refreshMs);
  }
  if (pathname === '/static/status.css')
    return { status: 200, contentType: 'text/css; charset=utf-8', body: STATUS_CSS };
  if (pathname === '/static/favicon.svg') return svg(FAVICON_SVG);
  if (pathname === '/static/status.js')
    return { status: 200, contentType: 'text/javascript; charset=utf-8', body: statusScript() };
  if (pathname === '/api/v1/nodes') {
    const recent = intParam(params, 'recent', 0, HISTORY_LENGTH);
    const offset = intParam(params, 'offset', 0);
    const limit = intParam(params, 'limit', 1);
    if (typeof recent === 'string' || typeof offset === 'string' || typeof limit === 'string') {
      return json(400, { error: [recent, offset, limit].find((p) => typeof p === 'string') });
    }
    const window =
      offset === undefined && limit === undefined ? undefined : { offset: offset ?? 0, limit: limit ?? Infinity };
    return json(200, nodesJson(src, recent ?? 0, window));
  }
  if (pathname === '/api/v1/watch') return json(200, watchJson(src.watch?.(), src.toWall));
  const nodeMatch = /^\/nodes\/([^/]+)$/.exec(pathname);
  if (nodeMatch) {
    const name = decodeName(nodeMatch[1]!);
    if (name === undefined) return messagePage('../', 'That is not a valid node name.', shownNow(src), src.refreshMs);
    const body = src.board.node(name) ? nodePage(src, name, await evidenceFor(deps, name)) : undefined;
    return body
      ? html(200, body)
      : messagePage('../', `No node named "${name}" is configured.`, shownNow(src), src.refreshMs);
  }
  const apiMatch = /^\/api\/v1\/nodes\/([^/]+)(\/badge\.svg|\/uptime\/([^/]+)\/badge\.svg)?$/.exec(pathname);
  if (!apiMatch) return undefined;
  const name = decodeName(apiMatch[1]!);
  const status = name === undefined ? undefined : src.board.node(name);
  if (name === undefined || !status)
    return json(404, { error: name === undefined ? 'bad node name' : `unknown node: ${name}` });
  if (!apiMatch[2]) return json(200, nodeJson(src, name));
  if (apiMatch[3] === undefined) return svg(statusBadge(name, status.status));
  const window = apiMatch[3];
  if (!Object.hasOwn(UPTIME_WINDOWS, window))
    return json(400, { error: `uptime window must be one of: ${Object.keys(UPTIME_WINDOWS).join(', ')}` });
  const covered = {
    ms: src.board.uptimeCovers(name, window as UptimeWindow),
    windowMs: UPTIME_WINDOWS[window as UptimeWindow],
  };
  return svg(uptimeBadge(window, src.board.uptime(name, window as UptimeWindow), covered));
}
