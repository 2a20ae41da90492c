// The exporter's own HTTP surface: /metrics, /healthz, /readyz, /api/evidence, the routes other
// modules declare (status pages, /api/alerts, ...) and the landing page at /, all on one
// method-aware router (src/web/router.ts); no request path ever reaches the filesystem. The
// server itself is always built by buildServer, so plain HTTP and TLS get the same header-size
// and idle limits.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { landingPage } from './landingPage.js';
import type { ListenAddress } from './domain.js';
import type { Logger } from './logger.js';
import type { MetricsView } from './metrics/view.js';
import type { FleetSnapshot } from './state/snapshot.js';
import { get, jsonReply, type Endpoint, type Reply, type Route, type StreamOut } from './web/route.js';
import { createRouter, send, type WriteGate } from './web/router.js';
import { createHttpServer, type WebConfig } from './web/webConfig.js';
import { sessionInfo, writeGate, type WritePolicy } from './web/writeAccess.js';

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
  routes?: readonly (Endpoint | Route)[];
  /** Problems shown as warnings on /readyz (it stays 200: the exporter still works). */
  problems?: () => string[];
  /** Who may write (basic-auth writers, browser checks) and GET /api/v1/session; without it every write is refused. */
  writePolicy?: WritePolicy;
  /** Overrides the gate writePolicy builds (tests of the router). */
  writeGate?: WriteGate;
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

const text = (status: number, body: string): Reply => ({ status, contentType: 'text/plain; charset=utf-8', body });

/** The server's own routes: the scrape target, the probes of health and readiness, the evidence API. */
function builtInRoutes(deps: HandlerDeps): Endpoint[] {
  return [
    get('/metrics', async (req): Promise<Reply> => {
      const om = wantsOpenMetrics(req.headers.accept);
      const gzip = acceptsGzip(req.headers['accept-encoding']);
      const { contentType, body, gzipped, release, stream } = await deps
        .metrics()
        .render(om ? 'openmetrics' : 'text', { gzip, stream: true });
      const vary = 'Accept, Accept-Encoding';
      if (stream) {
        const headers: Record<string, string> = gzip ? { 'content-encoding': 'gzip', vary } : { vary };
        const pipe = (out: StreamOut) =>
          stream.pipe({
            ...out,
            destroy: (err) => {
              deps.logger.error({ err }, '/metrics failed after its headers were sent: connection closed');
              out.destroy(err);
            },
          });
        return { status: 200, contentType, body: '', headers, stream: { pipe } };
      }
      if (!gzipped) return { status: 200, contentType, body, headers: { vary } };
      const zipped = await gzipped;
      // The compressed copy is what goes out: the body's memory can serve the next render.
      // An uncompressed body is never released (the socket may still be writing it).
      release();
      return { status: 200, contentType, body: zipped, headers: { 'content-encoding': 'gzip', vary } };
    }),
    { ...get('/healthz', () => text(200, 'ok\n')), light: true },
    {
      ...get('/readyz', () =>
        deps.ready()
          ? text(200, ['ready', ...(deps.problems?.() ?? []).map((p) => `warning: ${p}`), ''].join('\n'))
          : text(503, 'not ready: first poll round in progress\n'),
      ),
      light: true,
    },
    get('/api/v1/session', (req) =>
      jsonReply(200, deps.writePolicy ? sessionInfo(deps.writePolicy, req.headers.authorization) : { writer: false }),
    ),
    get('/api/evidence', async (req) => {
      if (!deps.evidence)
        return {
          status: 404,
          contentType: 'application/json',
          body: JSON.stringify({ error: 'evidence store is not enabled' }),
        };
      const { status, body, headers } = await deps.evidence.handle(req.params);
      const reply: Reply = { status, contentType: 'application/json; charset=utf-8', body: JSON.stringify(body) };
      return headers ? { ...reply, headers } : reply;
    }),
  ];
}

export function createRequestHandler(deps: HandlerDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const route = createRouter({
    routes: [
      ...builtInRoutes(deps),
      ...(deps.routes ?? []),
      get('/', () => ({
        status: 200,
        contentType: 'text/html; charset=utf-8',
        body: landingPage(deps.version, deps.snapshot(), deps.ready()),
      })),
    ],
    writeGate: deps.writeGate ?? (deps.writePolicy && writeGate(deps.writePolicy)),
  });
  return (req, res) => {
    route(req, res).catch((err: unknown) => {
      deps.logger.error({ err }, 'request handler failed');
      if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', 'internal error\n', false);
      else res.destroy();
    });
  };
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
