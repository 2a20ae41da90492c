// A small agent platform for tests, on loopback. Its behaviour is switched at run time with
// `mode`; every request it receives is recorded. A second server on another port stands for a
// foreign origin that a redirect points to, and records whether an Authorization header arrived.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakePlatformMode =
  /** 200 with a profile when the Bearer key is one of `validKeys`, else 401 (the real behaviour). */
  | 'auth'
  | 'forbidden'
  /** 500 whose body echoes the Authorization header it got (a careless server). */
  | 'server_error'
  /** Holds the response until the server is closed. */
  | 'slow'
  /** 302 to the foreign origin. */
  | 'redirect'
  /** 200 with HTML instead of JSON. */
  | 'not_json'
  /** 404. */
  | 'not_found'
  /** 200 with a body far larger than any sane profile. */
  | 'huge';

export interface RecordedRequest {
  method: string;
  path: string;
  authorization?: string;
}

export interface FakeServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export interface FakePlatform extends FakeServer {
  mode: FakePlatformMode;
  validKeys: Set<string>;
  profile: Record<string, unknown>;
  /** The foreign origin that redirects point to. */
  foreign: FakeServer;
}

async function listen(handler: http.RequestListener): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}` };
}

function closer(server: http.Server): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

function record(req: http.IncomingMessage, into: RecordedRequest[]): void {
  into.push({ method: req.method ?? '', path: req.url ?? '', authorization: req.headers.authorization });
}

export async function startFakePlatform(
  opts: { validKeys?: string[]; profile?: Record<string, unknown> } = {},
): Promise<FakePlatform> {
  const foreignRequests: RecordedRequest[] = [];
  const foreignSrv = await listen((req, res) => {
    record(req, foreignRequests);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: 'foreign', name: 'should never be reached' }));
  });
  const foreign: FakeServer = { url: foreignSrv.url, requests: foreignRequests, close: closer(foreignSrv.server) };

  const requests: RecordedRequest[] = [];
  const state = {
    mode: 'auth' as FakePlatformMode,
    validKeys: new Set(opts.validKeys ?? []),
    profile: opts.profile ?? { id: 'agent-42', name: 'Test Agent', email: 'private@example.org' },
  };
  const { server, url } = await listen((req, res) => {
    record(req, requests);
    const auth = req.headers.authorization;
    switch (state.mode) {
      case 'auth': {
        const key = auth?.startsWith('Bearer ') ? auth.slice(7) : undefined;
        if (req.url !== '/api/agents/me') {
          res.writeHead(404).end();
        } else if (key && state.validKeys.has(key)) {
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(state.profile));
        } else {
          res
            .writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' })
            .end('{"error":"invalid key"}');
        }
        return;
      }
      case 'forbidden':
        res.writeHead(403, { 'content-type': 'application/json' }).end('{"error":"forbidden"}');
        return;
      case 'server_error':
        res
          .writeHead(500, { 'content-type': 'text/plain', 'x-request-id': 'req-1', 'set-cookie': 'session=abc' })
          .end(`internal error while handling ${auth ?? '(no header)'}`);
        return;
      case 'slow':
        // Never answers; the client must give up on its own.
        return;
      case 'redirect':
        res.writeHead(302, { location: `${foreign.url}/api/agents/me` }).end();
        return;
      case 'not_json':
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html>login</html>');
        return;
      case 'not_found':
        res.writeHead(404).end('not found');
        return;
      case 'huge':
        res.writeHead(200, { 'content-type': 'application/json' }).end(`{"id":"x","pad":"${'a'.repeat(1024 * 1024)}"}`);
        return;
    }
  });

  const close = closer(server);
  return {
    url,
    requests,
    foreign,
    get mode() {
      return state.mode;
    },
    set mode(m: FakePlatformMode) {
      state.mode = m;
    },
    validKeys: state.validKeys,
    get profile() {
      return state.profile;
    },
    set profile(p: Record<string, unknown>) {
      state.profile = p;
    },
    async close() {
      await Promise.all([close(), foreign.close()]);
    },
  };
}
