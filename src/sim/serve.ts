// The HTTP plumbing of simulated nodes: listening and closing, bounded request bodies, replies,
// and the responses a fault holds open (hang) or trickles (slow_body) until it changes.
import type http from 'node:http';
import type { Reply } from './reply.js';

/** axum's default request body limit. */
const MAX_BODY_BYTES = 2 * 1024 * 1024;

export class HeldResponses {
  private readonly held = new Map<http.ServerResponse, NodeJS.Timeout | undefined>();

  /** Keeps the response open, unanswered, until released. */
  hang(res: http.ServerResponse): void {
    this.held.set(res, undefined);
    res.on('close', () => this.held.delete(res));
  }

  /** Headers at once, then a few bytes per tick: a client without a body timeout waits forever. */
  trickle(res: http.ServerResponse, reply: Reply, bytesPerTick: number, tickMs: number): void {
    const body = Buffer.from(reply.body);
    res.writeHead(reply.status, { ...reply.headers, 'content-length': String(body.length) });
    res.flushHeaders();
    let offset = 0;
    const timer = setInterval(() => {
      const chunk = body.subarray(offset, offset + bytesPerTick);
      offset += chunk.length;
      if (offset >= body.length) {
        clearInterval(timer);
        this.held.delete(res);
        res.end(chunk);
      } else {
        res.write(chunk);
      }
    }, tickMs);
    this.held.set(res, timer);
    res.on('close', () => {
      clearInterval(timer);
      this.held.delete(res);
    });
  }

  /** Ends every held response (the fault changed or the node stops). */
  release(): void {
    for (const [res, timer] of this.held) {
      if (timer) clearInterval(timer);
      res.destroy();
    }
    this.held.clear();
  }
}

export function pathOf(url: string | undefined): string {
  const p = (url ?? '/').split('?')[0]!;
  return p === '' ? '/' : p;
}

export function methodNotAllowed(allow: string): Reply {
  return { status: 405, headers: { allow }, body: '' };
}

export function send(res: http.ServerResponse, reply: Reply): void {
  res.writeHead(reply.status, { ...reply.headers, 'content-length': String(Buffer.byteLength(reply.body)) });
  res.end(reply.body);
}

/** The body as text, or undefined past the size limit. */
export function readBody(req: http.IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        req.removeAllListeners('data');
        req.resume();
        resolve(undefined);
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export function listen(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (e: Error) => reject(e);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

export function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
