// Raw loopback servers that misbehave on purpose, for the probe layer's bad-input tests.
// One node:http (or node:https) server per test whose behaviour is swapped at run time through
// `handler`; a well-behaved ledger node handler to start from; handlers for every kind of bad
// answer (a certificate to serve https with is testCa.ts's makeSelfSignedCert). 127.0.0.1 only,
// every timer and socket released by close().
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  /** The JSON-RPC method of a POST, when its body parsed. */
  rpcMethod?: string;
  authorization?: string;
}

/** Called once the request body has been read (bounded). */
export type RawHandler = (
  req: http.IncomingMessage,
  res: http.ServerResponse,
  body: string,
  ctx: HandlerContext,
) => void;

export interface HandlerContext {
  /** Registers a timer so close() can clear it. */
  setInterval(fn: () => void, ms: number): NodeJS.Timeout;
}

export interface RawServer {
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Current behaviour; replace it to switch the node from good to bad. */
  handler: RawHandler;
  close(): Promise<void>;
}

const MAX_REQUEST_BODY = 64 * 1024;

function rpcMethodOf(body: string): string | undefined {
  try {
    const m = (JSON.parse(body) as { method?: unknown }).method;
    return typeof m === 'string' ? m : undefined;
  } catch {
    return undefined;
  }
}

export async function startRawServer(handler: RawHandler, tls?: { key: string; cert: string }): Promise<RawServer> {
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<Socket>();
  const ctx: HandlerContext = {
    setInterval(fn, ms) {
      const t = setInterval(fn, ms);
      timers.add(t);
      return t;
    },
  };
  const state: RawServer = {
    url: '',
    port: 0,
    requests: [],
    handler,
    close: async () => undefined,
  };
  const listener: http.RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_REQUEST_BODY) chunks.push(c);
    });
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      state.requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        rpcMethod: req.method === 'POST' ? rpcMethodOf(body) : undefined,
        authorization: req.headers.authorization,
      });
      state.handler(req, res, body, ctx);
    });
  };
  const server = tls ? https.createServer({ key: tls.key, cert: tls.cert }, listener) : http.createServer(listener);
  server.on(tls ? 'secureConnection' : 'connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  // A client that gives up on a TLS handshake leaves an error we expect; never crash the test.
  server.on('tlsClientError', () => undefined);
  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  state.port = port;
  state.url = `${tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      for (const t of timers) clearInterval(t);
      timers.clear();
      for (const s of sockets) s.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

// ---- A well-behaved node ----

export interface NodeModel {
  /** RPC namespace word the node answers in (claw, chain, clw, ...). */
  namespace: string;
  height: number;
  version: string;
  validators: Array<{ address: string; stake: string; weight: number; agentScore: number }>;
  mining: {
    totalMiners: number;
    activeMiners: number;
    currentBlockReward: string;
    miningUpgradeHeight: number;
    upgraded: boolean;
  };
}

export function defaultModel(over: Partial<NodeModel> = {}): NodeModel {
  return {
    namespace: 'claw',
    height: 4242,
    version: '0.5.8',
    validators: [
      { address: 'ab'.repeat(32), stake: '1234567890123456789012', weight: 60, agentScore: 71 },
      { address: 'cd'.repeat(32), stake: '5000000000000', weight: 40, agentScore: 55 },
    ],
    mining: {
      totalMiners: 12,
      activeMiners: 9,
      currentBlockReward: '2000000000',
      miningUpgradeHeight: 10_000,
      upgraded: false,
    },
    ...over,
  };
}

export function sendJson(res: http.ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

export function rpcIdOf(body: string): unknown {
  try {
    return (JSON.parse(body) as { id?: unknown }).id ?? null;
  } catch {
    return null;
  }
}

/** The method-not-found answer of real nodes: code -32000 (not -32601), HTTP 200. */
export function methodNotFound(res: http.ServerResponse, id: unknown, method: string): void {
  sendJson(res, 200, { jsonrpc: '2.0', id, error: { code: -32000, message: `method not found: ${method}` } });
}

/** A node as the reference implementation answers: /health, /metrics and JSON-RPC in one namespace. */
export function ledgerNode(model: NodeModel): RawHandler {
  return (req, res, body) => {
    if (req.method === 'GET' && req.url === '/health') {
      return sendJson(res, 200, {
        status: 'ok',
        version: model.version,
        chain_id: 'clawnet-test',
        genesis_hash: 'ef'.repeat(32),
        height: model.height,
        epoch: 7,
        peer_count: 5,
        mempool_size: 3,
        last_block_age_secs: 2,
        uptime_secs: 3600,
      });
    }
    if (req.method === 'GET' && req.url === '/metrics') {
      const text =
        '# HELP block_height Current block height\n# TYPE block_height gauge\nblock_height ' + model.height + '\n';
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(text);
      return;
    }
    if (req.method === 'POST' && req.url === '/') {
      const id = rpcIdOf(body);
      const method = rpcMethodOf(body) ?? '';
      const prefix = `${model.namespace}_`;
      const name = method.startsWith(prefix) ? method.slice(prefix.length) : undefined;
      const result =
        name === 'blockNumber'
          ? model.height
          : name === 'getValidators'
            ? model.validators
            : name === 'getMiningStats'
              ? model.mining
              : undefined;
      if (result === undefined) return methodNotFound(res, id, method);
      return sendJson(res, 200, { jsonrpc: '2.0', id, result });
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  };
}

// ---- Bad answers ----

/** What nginx sends when the node behind it is down. */
export function nginxBadGateway(): RawHandler {
  return (_req, res) => {
    const html =
      '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n' +
      '<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.24.0</center>\r\n</body>\r\n</html>\r\n';
    res
      .writeHead(502, {
        server: 'nginx/1.24.0',
        'content-type': 'text/html',
        'content-length': Buffer.byteLength(html),
      })
      .end(html);
  };
}

/** Answers every request with this status, content type and body. */
export function fixed(
  status: number,
  contentType: string,
  body: string | Buffer,
  extraHeaders: Record<string, string> = {},
): RawHandler {
  return (_req, res) => {
    res
      .writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body), ...extraHeaders })
      .end(body);
  };
}

/** A JSON-RPC answer built from the request id, e.g. a result of the wrong shape. */
export function rpcAnswer(make: (id: unknown) => unknown, contentType = 'application/json'): RawHandler {
  return (_req, res, body) => {
    const text = JSON.stringify(make(rpcIdOf(body)));
    res.writeHead(200, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) }).end(text);
  };
}

/** A JSON-RPC answer whose raw text is given (for values JSON.stringify cannot produce, e.g. 1e400). */
export function rpcRawResult(resultText: string): RawHandler {
  return (_req, res, body) => {
    const text = `{"jsonrpc":"2.0","id":${JSON.stringify(rpcIdOf(body))},"result":${resultText}}`;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
  };
}

/** Never answers; the socket stays open until the client gives up or the server closes. */
export function hang(): RawHandler {
  return () => undefined;
}

/** Sends headers at once, then one small chunk every `everyMs`, `chunks` times (bounded), then ends. */
export function trickle(everyMs: number, chunks: number): RawHandler {
  return (_req, res, _body, ctx) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"status":"ok","pad":"');
    let sent = 0;
    const t = ctx.setInterval(() => {
      if (res.destroyed || sent >= chunks) {
        clearInterval(t);
        if (!res.destroyed) res.end('"}');
        return;
      }
      sent++;
      res.write('x');
    }, everyMs);
    res.on('close', () => clearInterval(t));
  };
}

/** Announces `length` bytes, sends `partial` of them, then resets the connection. */
export function resetMidBody(length: number, partial: string): RawHandler {
  return (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': length });
    res.write(partial, () => {
      // resetAndDestroy (RST) is newer than Node 20.18 in places; destroy() closes abruptly enough.
      req.socket.destroy();
    });
  };
}

/** Redirects every request to the same URL. */
export function redirectLoop(): RawHandler {
  return (req, res) => {
    res.writeHead(302, { location: req.url ?? '/', 'content-length': 0 }).end();
  };
}

/** Writes raw bytes that are not HTTP, then closes. */
export function garbageBytes(bytes: string): RawHandler {
  return (req) => {
    req.socket.end(bytes);
  };
}
