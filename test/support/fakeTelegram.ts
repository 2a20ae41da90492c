// A fake Telegram Bot API on loopback for the commands: getMe, getUpdates with long-poll
// semantics (held until an update at or after `offset` is queued, or `timeout` seconds pass;
// asking with an offset confirms every earlier update, which is then dropped), sendMessage,
// answerCallbackQuery, a wrong token answered 401, and a "second consumer" mode answering 409
// Conflict as Telegram does when two programs read one bot.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BotCallSeen {
  method: string;
  body: Record<string, unknown>;
  at: number;
}

export interface FakeTelegram {
  url: string;
  token: string;
  /** Every call but getUpdates, in order. */
  calls: BotCallSeen[];
  /** Times getUpdates was asked. */
  polls(): number;
  /** Queues an update (its update_id is assigned); resolves at once. Returns the update_id. */
  push(update: Record<string, unknown>): number;
  /** Answer getUpdates with 409 (another consumer) until set back to false. */
  setConflict(on: boolean): void;
  /** Resolves once a call of this method matching `match` is seen, or rejects after timeoutMs. */
  waitForCall(method: string, match: (c: BotCallSeen) => boolean, timeoutMs: number): Promise<BotCallSeen>;
  close(): Promise<void>;
}

export async function startFakeTelegram(token = '123456:FAKE-token_abcdefghijkl'): Promise<FakeTelegram> {
  const calls: BotCallSeen[] = [];
  let queue: Array<Record<string, unknown> & { update_id: number }> = [];
  let nextId = 1000;
  let polls = 0;
  let conflict = false;
  let nextMessageId = 500;
  const waiting = new Set<() => void>();
  const notify = () => {
    for (const w of [...waiting]) w();
  };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c));
    req.on('end', () => {
      const m = /^\/bot([^/]+)\/(\w+)$/.exec(req.url ?? '');
      const send = (status: number, body: unknown) => {
        if (!res.writableEnded) res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      };
      if (!m) return send(404, { ok: false, error_code: 404, description: 'Not Found' });
      if (m[1] !== token) return send(401, { ok: false, error_code: 401, description: 'Unauthorized' });
      let body: Record<string, unknown> = {};
      try {
        body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      } catch {
        return send(400, { ok: false, error_code: 400, description: 'Bad Request: invalid JSON' });
      }
      const method = m[2]!;
      if (method === 'getUpdates') return getUpdates(body, send);
      calls.push({ method, body, at: performance.now() });
      notify();
      if (method === 'getMe')
        return send(200, { ok: true, result: { id: 123456, is_bot: true, username: 'LedgerTestBot' } });
      if (method === 'sendMessage')
        return send(200, {
          ok: true,
          result: { message_id: nextMessageId++, chat: { id: body.chat_id }, date: 1764244800, text: body.text },
        });
      if (method === 'answerCallbackQuery') return send(200, { ok: true, result: true });
      return send(404, { ok: false, error_code: 404, description: 'Not Found: method not found' });
    });
  });

  function getUpdates(body: Record<string, unknown>, send: (s: number, b: unknown) => void): void {
    polls++;
    if (conflict)
      return send(409, {
        ok: false,
        error_code: 409,
        description:
          'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
      });
    const offset = typeof body.offset === 'number' ? body.offset : undefined;
    if (offset !== undefined) queue = queue.filter((u) => u.update_id >= offset);
    const timeoutS = typeof body.timeout === 'number' ? body.timeout : 0;
    const answer = () => {
      waiting.delete(answer);
      clearTimeout(timer);
      send(200, { ok: true, result: queue.slice(0, 100) });
    };
    const timer = setTimeout(answer, timeoutS * 1000);
    if (queue.length > 0) return answer();
    waiting.add(() => {
      if (queue.length > 0 || conflict) answer();
    });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    token,
    calls,
    polls: () => polls,
    push(update) {
      const id = nextId++;
      queue.push({ ...update, update_id: id });
      notify();
      return id;
    },
    setConflict(on) {
      conflict = on;
      notify();
    },
    waitForCall(method, match, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = calls.find((c) => c.method === method && match(c));
          if (!hit) return false;
          waiting.delete(check);
          clearTimeout(timer);
          resolve(hit);
          return true;
        };
        const timer = setTimeout(() => {
          waiting.delete(check);
          reject(
            new Error(`no ${method} call seen within ${timeoutMs} ms; calls: ${JSON.stringify(calls).slice(0, 2000)}`),
          );
        }, timeoutMs);
        if (!check()) waiting.add(check);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
