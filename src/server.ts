// The exporter's own HTTP surface: /metrics, /healthz, /readyz, / and /api/evidence.
// Read-only: GET and HEAD only; no request path ever reaches the filesystem.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { gzip as gzipCb } from 'node:zlib';
import type { Logger } from './logger.js';
import type { MetricsView } from './metrics/view.js';
import type { FleetSnapshot } from './state/snapshot.js';

const gzip = promisify(gzipCb);

/** Longest request target we accept; everything we serve fits in far less. */
const MAX_URL_LENGTH = 2048;

export interface EvidenceApi {
  /** Validates the query string; an error string becomes a 400. */
  handle(params: URLSearchParams): Promise<{ status: number; body: unknown }>;
}

export interface HandlerDeps {
  logger: Logger;
  version: string;
  metrics: () => MetricsView;
  ready: () => boolean;
  snapshot: () => FleetSnapshot;
  evidence?: EvidenceApi;
}

function send(res: ServerResponse, status: number, contentType: string, body: string | Buffer, head: boolean, extra: Record<string, string> = {}): void {
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  res.writeHead(status, { 'content-type': contentType, 'content-length': String(length), 'cache-control': 'no-store', ...extra });
  res.end(head ? undefined : body);
}

/** Accept header asks for OpenMetrics (and does not rank it below text). */
export function wantsOpenMetrics(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept.split(',').some((part) => {
    const [type, ...params] = part.trim().split(';');
    if (type?.trim().toLowerCase() !== 'application/openmetrics-text') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return !q || Number(q.slice(2)) > 0;
  });
}

function acceptsGzip(header: string | undefined): boolean {
  return !!header && header.split(',').some((p) => {
    const [enc, ...params] = p.trim().split(';');
    if (enc?.trim().toLowerCase() !== 'gzip') return false;
    const q = params.map((x) => x.trim()).find((x) => x.startsWith('q='));
    return !q || Number(q.slice(2)) > 0;
  });
}

export function createRequestHandler(deps: HandlerDeps): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(deps, req, res).catch((err: unknown) => {
      deps.logger.error({ err }, 'request handler failed');
      if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', 'internal error\n', false);
      else res.destroy();
    });
  };
}

async function handle(deps: HandlerDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const rawUrl = req.url ?? '/';
  if (rawUrl.length > MAX_URL_LENGTH) return send(res, 414, 'text/plain; charset=utf-8', 'request target too long\n', false);
  const method = req.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD') {
    return send(res, 405, 'text/plain; charset=utf-8', 'method not allowed: use GET or HEAD\n', false, { allow: 'GET, HEAD' });
  }
  const head = method === 'HEAD';
  let url: URL;
  try {
    url = new URL(rawUrl, 'http://localhost');
  } catch {
    return send(res, 400, 'text/plain; charset=utf-8', 'bad request target\n', head);
  }
  // Basic auth, TLS and configured headers are applied by the server itself (src/web), before this.
  switch (url.pathname) {
    case '/metrics': {
      const om = wantsOpenMetrics(req.headers.accept);
      const { contentType, body } = await deps.metrics().render(om ? 'openmetrics' : 'text');
      if (acceptsGzip(req.headers['accept-encoding'])) {
        return send(res, 200, contentType, await gzip(body), head, { 'content-encoding': 'gzip', vary: 'Accept, Accept-Encoding' });
      }
      return send(res, 200, contentType, body, head, { vary: 'Accept, Accept-Encoding' });
    }
    case '/healthz':
      return send(res, 200, 'text/plain; charset=utf-8', 'ok\n', head);
    case '/readyz':
      return deps.ready()
        ? send(res, 200, 'text/plain; charset=utf-8', 'ready\n', head)
        : send(res, 503, 'text/plain; charset=utf-8', 'not ready: first poll round in progress\n', head);
    case '/api/evidence': {
      if (!deps.evidence) return send(res, 404, 'application/json', JSON.stringify({ error: 'evidence store is not enabled' }), head);
      const { status, body } = await deps.evidence.handle(url.searchParams);
      return send(res, status, 'application/json; charset=utf-8', JSON.stringify(body), head);
    }
    case '/':
      return send(res, 200, 'text/html; charset=utf-8', landingPage(deps.version, deps.snapshot(), deps.ready()), head);
    default:
      return send(res, 404, 'text/plain; charset=utf-8', 'not found\n', head);
  }
}

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A small status page: links, and one row per node. Everything shown is escaped. */
export function landingPage(version: string, snap: FleetSnapshot, ready: boolean): string {
  const rows = snap.nodes
    .map((n) => {
      const failing = n.probes.filter((p) => p.success === false).map((p) => p.probe);
      return `<tr class="${n.up ? 'up' : 'down'}"><td>${esc(n.name)}</td><td>${esc(n.network)}</td><td>${n.up ? 'up' : 'DOWN'}</td><td>${n.height ?? ''}</td><td>${n.lagBlocks ?? ''}</td><td>${esc(n.health?.version ?? '')}</td><td>${esc(n.namespace ?? '')}</td><td>${esc(failing.join(', '))}</td></tr>`;
    })
    .join('\n');
  const nets = snap.networks
    .map((n) => `<tr><td>${esc(n.network)}</td><td>${n.nodesUp}/${n.nodes}</td><td>${n.heightMax ?? ''}</td><td>${n.validators?.list.length ?? ''}</td><td>${n.mining?.active ?? ''}</td></tr>`)
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ledger-fleet-exporter</title>
<style>body{font-family:system-ui,sans-serif;margin:2em}table{border-collapse:collapse}td,th{padding:.2em .8em;border-bottom:1px solid #ddd;text-align:left}.down td{color:#b00}</style>
</head><body>
<h1>ledger-fleet-exporter</h1>
<p>Version ${esc(version)} &middot; ${ready ? 'ready' : 'first poll round in progress'}</p>
<ul><li><a href="metrics">/metrics</a></li><li><a href="healthz">/healthz</a></li><li><a href="readyz">/readyz</a></li><li><a href="api/evidence?limit=20">/api/evidence</a></li></ul>
<h2>Networks</h2>
<table><tr><th>network</th><th>nodes up</th><th>height</th><th>validators</th><th>active miners</th></tr>
${nets}
</table>
<h2>Nodes</h2>
<table><tr><th>node</th><th>network</th><th>status</th><th>height</th><th>lag</th><th>version</th><th>namespace</th><th>failing probes</th></tr>
${rows}
</table>
</body></html>
`;
}
