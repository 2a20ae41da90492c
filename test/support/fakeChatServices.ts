// Fakes of the chat and paging services over loopback, answering as each documented API does:
// Telegram's Bot API, Discord webhooks, ntfy, Teams Workflows and Opsgenie's Alert API. Each service has a script of
// answers for the posts it gets (then it answers success): a status with the service's own body, a hang, a reset.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Service = 'telegram' | 'discord' | 'ntfy' | 'msteams' | 'opsgenie';
export type Answer = 'ok' | 'bad' | 'limited' | 'limited-body' | '5xx' | 'refused' | 'hang' | 'reset';

export interface Seen {
  service: Service;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

type Reply = { status: number; headers?: Record<string, string>; body?: string };

/** What each service answers, from its documentation. */
const REPLIES: Record<Service, Partial<Record<Answer, Reply>>> = {
  telegram: {
    ok: {
      status: 200,
      body: '{"ok":true,"result":{"message_id":42,"chat":{"id":-1001234567890,"type":"supergroup"},"date":1764244800,"text":"x"}}',
    },
    bad: { status: 400, body: '{"ok":false,"error_code":400,"description":"Bad Request: chat not found"}' },
    limited: {
      status: 429,
      body:
        '{"ok":false,"error_code":429,"description":"Too Many Requests: retry after ' +
        '1","parameters":{"retry_after":1}}',
    },
    refused: { status: 401, body: '{"ok":false,"error_code":401,"description":"Unauthorized"}' },
  },
  discord: {
    ok: { status: 204 },
    bad: {
      status: 400,
      body:
        '{"message":"Invalid Form ' +
        'Body","code":50035,"errors":{"content":{"_errors":[{"code":"BASE_TYPE_MAX_LENGTH","message":"Must be 2000 ' +
        'or fewer in length."}]}}}',
    },
    limited: {
      status: 429,
      headers: { 'retry-after': '1' },
      body: '{"message":"You are being rate limited.","retry_after":1.0,"global":false}',
    },
    // Some webhooks give the body's retry_after in milliseconds: 900 would be 15 minutes.
    'limited-body': { status: 429, body: '{"message":"You are being rate limited.","retry_after":900,"global":false}' },
    refused: { status: 404, body: '{"message":"Unknown Webhook","code":10015}' },
  },
  ntfy: {
    ok: {
      status: 200,
      body: '{"id":"hwQ2YpKdmg","time":1764244800,"expires":1764288000,"event":"message","topic":"ops","message":"x"}',
    },
    bad: {
      status: 400,
      body:
        '{"code":40024,"http":400,"error":"invalid request: priority ' +
        'invalid","link":"https://ntfy.sh/docs/publish/#message-priority"}',
    },
    limited: {
      status: 429,
      headers: { 'retry-after': '1' },
      body: '{"code":42901,"http":429,"error":"limit reached: too many requests"}',
    },
    refused: { status: 403, body: '{"code":40301,"http":403,"error":"forbidden"}' },
  },
  msteams: {
    ok: { status: 202 },
    bad: {
      status: 400,
      body:
        '{"error":{"code":"TriggerInputSchemaMismatch","message":"The input body for trigger \'manual\' of type ' +
        "'Request' did not match its schema definition.\"}}",
    },
    limited: {
      status: 429,
      headers: { 'retry-after': '1' },
      body: '{"error":{"code":"WorkflowTriggeredTooFrequently","message":"Rate limit is exceeded."}}',
    },
    refused: {
      status: 401,
      body: '{"error":{"code":"DirectApiAuthorizationRequired","message":"The request must be authenticated."}}',
    },
  },
  opsgenie: {
    ok: {
      status: 202,
      body: '{"result":"Request will be processed","took":0.302,"requestId":"43a29c5c-3dbf-4fa4-9c26-f4f71023e120"}',
    },
    bad: {
      status: 422,
      body:
        '{"message":"Request body is not processable. Please check the errors.","errors":{"message":"Message can ' +
        'not be empty."},"took":0.001,"requestId":"1"}',
    },
    // Opsgenie documents no Retry-After: the queue's own backoff applies.
    limited: {
      status: 429,
      body:
        '{"message":"You are making too many requests! To avoid errors, we recommend you limit ' +
        'requests.","took":0.0,"requestId":"2"}',
    },
    refused: { status: 401, body: '{"message":"Key format is not valid!","took":0.0,"requestId":"3"}' },
  },
};

const SERVICE_OF: Record<string, Service> = {
  tg: 'telegram',
  discord: 'discord',
  ntfy: 'ntfy',
  teams: 'msteams',
  opsgenie: 'opsgenie',
};

export class FakeChatServices {
  readonly seen: Seen[] = [];
  private readonly scripts = new Map<Service, Answer[]>();
  /** Answers for dry checks (GETs): 'ok' or 'refused'. */
  readonly checks: Partial<Record<Service, Answer>> = {};
  private server: Server | undefined;
  base = '';

  /** The next posts `service` gets are answered so, in order; then it answers success. */
  script(service: Service, answers: Answer[]): void {
    this.scripts.set(service, [...answers]);
  }

  of(service: Service, method = 'POST'): Seen[] {
    return this.seen.filter((s) => s.service === service && s.method === method);
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        const path = req.url ?? '/';
        const service = SERVICE_OF[path.split('/')[1] ?? ''];
        if (!service) return res.writeHead(404).end();
        this.seen.push({ service, method: req.method ?? '', path, headers: req.headers, body, at: Date.now() });
        const answer =
          req.method === 'POST' ? (this.scripts.get(service)?.shift() ?? 'ok') : (this.checks[service] ?? 'ok');
        if (answer === 'hang') return; // the client's deadline ends it
        if (answer === 'reset') return req.socket.destroy();
        const reply =
          answer === '5xx'
            ? { status: 502, body: '<html>502 Bad Gateway</html>' }
            : (REPLIES[service][answer] ?? REPLIES[service].ok!);
        res
          .writeHead(reply.status, { ...(reply.body ? { 'content-type': 'application/json' } : {}), ...reply.headers })
          .end(reply.body);
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise((r) => this.server!.close(r));
  }
}
