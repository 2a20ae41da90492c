// A reverse proxy on 127.0.0.1 in front of one simulated node: it records the request headers
// every request carried (so a test can prove the credentials did arrive) and, when asked, plays
// a careless proxy that echoes the request's credentials into its 5xx answers (body and the
// x-request-id / via headers that evidence records keep), so scrubbing is put to the test.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
}

export interface RecordingProxy {
  url: string;
  port: number;
  requests: ProxiedRequest[];
  close(): Promise<void>;
}

const ECHOED = ['authorization', 'x-api-key', 'x-proxy-token'];
const MAX_BODY = 1 << 20;

export async function startRecordingProxy(
  target: string,
  opts: { echoCredentialsOn5xx?: boolean } = {},
): Promise<RecordingProxy> {
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: false });
  const requests: ProxiedRequest[] = [];
  const server = http.createServer((req, res) => {
    requests.push({ method: req.method ?? '', path: req.url ?? '', headers: { ...req.headers } });
    const out = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: upstream.pathname.replace(/\/+$/, '') + (req.url ?? '/'),
        headers: { ...req.headers, host: upstream.host },
        agent,
      },
      (up) => {
        const status = up.statusCode ?? 502;
        if (!opts.echoCredentialsOn5xx || status < 500) {
          res.writeHead(status, up.headers);
          up.pipe(res);
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        up.on('data', (c: Buffer) => {
          size += c.length;
          if (size <= MAX_BODY) chunks.push(c);
        });
        up.on('end', () => {
          const echo = ECHOED.map((h) => `${h}=${String(req.headers[h] ?? '')}`).join('; ');
          const body = Buffer.concat([...chunks, Buffer.from(`\n<!-- proxy debug: ${echo} -->\n`)]);
          const headers = { ...up.headers };
          delete headers['content-length'];
          delete headers['transfer-encoding'];
          res.writeHead(status, {
            ...headers,
            'content-length': String(body.length),
            'x-request-id': `dbg ${String(req.headers['x-api-key'] ?? '')}`,
            via: `1.1 proxy (${String(req.headers.authorization ?? '')})`,
          });
          res.end(body);
        });
      },
    );
    out.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end('proxy: upstream failed\n');
    });
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
        agent.destroy();
      }),
  };
}
