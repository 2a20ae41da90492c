// The exporter's own HTTP surface: /metrics, /healthz, /readyz, /api/evidence, routes other
// modules register (status pages, /api/alerts, ...) and the landing page at /. Read-only: GET
// and HEAD only; no request path ever reaches the filesystem. The server itself is always built
// by buildServer, so plain HTTP and TLS get the same header-size and idle limits.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { landingPage } from './landingPage.js';
import type { ListenAddress } from './domain.js';
import type { Logger } from './logger.js';
import type { MetricsView } from './metrics/view.js';
import type { FleetSnapshot } from './state/snapshot.js';
import type { Route } from './web/route.js';
import { createHttpServer, type WebConfig } from './web/webConfig.js';

/** Longest request target we accept; everything we serve fits in far less. */
const MAX_URL_LENGTH = 2048;

export interface EvidenceApi {
  /** Validates the query string; an error string becomes a 400. */
  handle(params: URLSearchParams): Promise<{ status: number; body: unknown; headers?: Record<string, string> }>;
}

export interface HandlerDeps {
  logger: Logger;
  version: string;
  metrics: () => MetricsView;
  ready: () => boolean;
  snapshot: () => FleetSnapshot;
  evidence?: EvidenceApi;
  /** Routes of other modules, tried in order after the built-in ones and before the landing page. */
  routes?: readonly Route[];
  /** Problems shown as warnings on /readyz (it stays 200: the exporter still works). */
  problems?: () => string[];
}

function send(
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string | Buffer,
  head: boolean,
  extra: Record<string, string> = {},
): void {
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  // nosniff on every answer: a JSON answer carrying a node's text must never be read as a page.
  const headers = {
    'content-type': contentType,
    'content-length': String(length),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  };
  res.writeHead(status, { ...headers, ...extra });
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
  return (
    !!header &&
    header.split(',').some((p) => {
      const [enc, ...params] = p.trim().split(';');
      if (enc?.trim().toLowerCase() !== 'gzip') return false;
      const q = params.map((x) => x.trim()).find((x) => x.startsWith('q='));
      return !q || Number(q.slice(2)) > 0;
    })
  );
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

/**
 * The request target as a URL. An origin-form target ("/...") is all path: resolved against a
 * base, "//metrics" would name host "metrics" with path "/" (the status page).
 */
function parseTarget(raw: string): URL {
  return new URL(raw.startsWith('/') ? `http://localhost${raw}` : raw, 'http://localhost');
}

async function handle(deps: HandlerDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const rawUrl = req.url ?? '/';
  if (rawUrl.length > MAX_URL_LENGTH)
    return send(res, 414, 'text/plain; charset=utf-8', 'request target too long\n', false);
  const method = req.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD') {
    return send(res, 405, 'text/plain; charset=utf-8', 'method not allowed: use GET or HEAD\n', false, {
      allow: 'GET, HEAD',
    });
  }
  const head = method === 'HEAD';
  let url: URL;
  try {
    url = parseTarget(rawUrl);
  } catch {
    return send(res, 400, 'text/plain; charset=utf-8', 'bad request target\n', head);
  }
  // Basic auth, TLS and configured headers are applied by the server itself (src/web), before this.
  switch (url.pathname) {
    case '/metrics': {
      const om = wantsOpenMetrics(req.headers.accept);
      const gzip = acceptsGzip(req.headers['accept-encoding']);
      const { contentType, body, gzipped, release } = await deps
        .metrics()
        .render(om ? 'openmetrics' : 'text', { gzip });
      if (gzipped) {
        const zipped = await gzipped;
        // The compressed copy is what goes out: the body's memory can serve the next render.
        // An uncompressed body is never released (the socket may still be writing it).
        release();
        return send(res, 200, contentType, zipped, head, {
          'content-encoding': 'gzip',
          vary: 'Accept, Accept-Encoding',
        });
      }
      return send(res, 200, contentType, body, head, { vary: 'Accept, Accept-Encoding' });
    }
    case '/healthz':
      return send(res, 200, 'text/plain; charset=utf-8', 'ok\n', head);
    case '/readyz':
      return deps.ready()
        ? send(
            res,
            200,
            'text/plain; charset=utf-8',
            ['ready', ...(deps.problems?.() ?? []).map((p) => `warning: ${p}`), ''].join('\n'),
            head,
          )
        : send(res, 503, 'text/plain; charset=utf-8', 'not ready: first poll round in progress\n', head);
    case '/api/evidence': {
      if (!deps.evidence)
        return send(res, 404, 'application/json', JSON.stringify({ error: 'evidence store is not enabled' }), head);
      const { status, body, headers } = await deps.evidence.handle(url.searchParams);
      return send(res, status, 'application/json; charset=utf-8', JSON.stringify(body), head, headers);
    }
  }
  for (const route of deps.routes ?? []) {
    const reply = await route({ pathname: url.pathname, params: url.searchParams, headers: req.headers });
    if (reply) return send(res, reply.status, reply.contentType, reply.body, head, reply.headers);
  }
  if (url.pathname === '/')
    return send(res, 200, 'text/html; charset=utf-8', landingPage(deps.version, deps.snapshot(), deps.ready()), head);
  return send(res, 404, 'text/plain; charset=utf-8', 'not found\n', head);
}

/** The exporter's server: HTTPS, basic auth and headers when a web config is given; the same limits either way. */
export function buildServer(
  web: WebConfig | undefined,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Server {
  return createHttpServer(web, handler);
}

/** Listens and returns the URL clients can use (a wildcard address becomes loopback). */
export async function listen(server: Server, at: ListenAddress, tls: boolean): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(at.port, at.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  // A wildcard address is reached on loopback.
  const reach = host === '0.0.0.0' ? '127.0.0.1' : host === '[::]' ? '[::1]' : host;
  return `${tls ? 'https' : 'http'}://${reach}:${addr.port}`;
}
