// `--web.config.file web.yml`: the Prometheus exporter-toolkit web config, so the file users
// already write for node_exporter (basic_auth_users, tls_server_config, http_server_config)
// protects our endpoints too. Loading validates everything up front (files read, key pair
// checked) so a bad file fails at start-up with file:line:col, never at the first request.
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import tls from 'node:tls';
import { LineCounter, parseDocument } from 'yaml';
import { webConfigSchema, type RawWebConfig } from './schema.js';
import { formatPath, locate, where } from './yamlLocate.js';
import { BasicAuthGuard, verifyBasicAuth, WWW_AUTHENTICATE } from './basicAuth.js';
import { closeIdleConnections } from './idleConnections.js';
import { secureContextOptions, tlsSettings, type WebConfigRefs, type WebTlsConfig } from './tlsSettings.js';
import { readUtf8File } from '../files/utf8.js';

export type { ClientAuthType } from './schema.js';
export type { WebTlsConfig } from './tlsSettings.js';
export { WWW_AUTHENTICATE } from './basicAuth.js';

export interface WebConfig {
  basicAuthUsers?: Map<string, string>;
  tls?: WebTlsConfig;
  headers?: Record<string, string>;
}

export class WebConfigError extends Error {
  override readonly name = 'WebConfigError';
}

/** Reads and validates a web config file; throws WebConfigError with file:line:col messages. */
export async function loadWebConfig(file: string): Promise<WebConfig> {
  const { raw, refs } = await readWebConfigFile(file);
  const out: WebConfig = {};
  if (raw.basic_auth_users && Object.keys(raw.basic_auth_users).length > 0) {
    out.basicAuthUsers = new Map(Object.entries(raw.basic_auth_users));
  }
  const headers = Object.entries(raw.http_server_config?.headers ?? {}).filter(
    (e): e is [string, string] => typeof e[1] === 'string',
  );
  if (headers.length > 0) out.headers = Object.fromEntries(headers);
  const tlsCfg = raw.tls_server_config && (await tlsSettings(raw.tls_server_config, refs));
  if (tlsCfg) out.tls = tlsCfg;
  return out;
}

/** The file parsed and checked against the schema, and how to report on and read what it names. */
async function readWebConfigFile(file: string): Promise<{ raw: RawWebConfig; refs: WebConfigRefs }> {
  let text: string;
  try {
    text = await readUtf8File(file);
  } catch (err) {
    throw new WebConfigError(
      `cannot read web config file ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
    );
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const msgs = doc.errors.map((e) => `${where(file, lines.linePos(e.pos[0]))}: ${e.message.split('\n')[0]}`);
    throw new WebConfigError(`invalid web config:\n${msgs.join('\n')}`);
  }
  const parsed = webConfigSchema.safeParse(doc.toJS());
  if (!parsed.success) {
    const msgs = parsed.error.issues.flatMap((issue) => {
      const keys = issue.code === 'unrecognized_keys' ? issue.keys : [undefined];
      return keys.map((key) => {
        const msg = key === undefined ? issue.message : 'unknown key';
        return `${where(file, locate(doc, lines, issue.path, key))}: ${formatPath(issue.path, key)}: ${msg}`;
      });
    });
    throw new WebConfigError(`invalid web config:\n${msgs.join('\n')}`);
  }
  const fail = (p: (string | number)[], msg: string): never => {
    throw new WebConfigError(`invalid web config:\n${where(file, locate(doc, lines, p))}: ${formatPath(p)}: ${msg}`);
  };
  // Relative paths resolve against the web config's own directory, as in exporter-toolkit.
  const dir = path.dirname(path.resolve(file));
  const readRef = async (p: (string | number)[], ref: string): Promise<Buffer> => {
    const abs = path.resolve(dir, ref);
    try {
      return await readFile(abs);
    } catch (err) {
      return fail(p, `cannot read ${abs}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
    }
  };
  return { raw: parsed.data ?? {}, refs: { fail, readRef } };
}

/** true when access is allowed; false -> answer 401 with WWW-Authenticate. */
export function checkBasicAuth(web: WebConfig, authorization: string | undefined): Promise<boolean> {
  return verifyBasicAuth(web.basicAuthUsers, authorization);
}

export interface HttpServerLimits {
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  keepAliveTimeoutMs?: number;
  maxHeaderSize?: number;
  /** How often Node checks headersTimeout/requestTimeout (default 30s in Node). */
  connectionsCheckingIntervalMs?: number;
  /** Idle socket timeout. */
  socketIdleTimeoutMs?: number;
}

export const DEFAULT_HTTP_LIMITS: Required<HttpServerLimits> = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxHeaderSize: 16 * 1024,
  connectionsCheckingIntervalMs: 5_000,
  socketIdleTimeoutMs: 60_000,
};

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/**
 * An HTTP or HTTPS server per the web config. Basic auth (when configured) and the configured
 * response headers are applied before `handler` runs, for every path, as exporter-toolkit does.
 */
export function createHttpServer(
  web: WebConfig | undefined,
  handler: Handler,
  limits: HttpServerLimits = {},
): http.Server | https.Server {
  const l = { ...DEFAULT_HTTP_LIMITS, ...limits };
  const base: http.ServerOptions = {
    headersTimeout: l.headersTimeoutMs,
    requestTimeout: l.requestTimeoutMs,
    keepAliveTimeout: l.keepAliveTimeoutMs,
    maxHeaderSize: l.maxHeaderSize,
    connectionsCheckingInterval: l.connectionsCheckingIntervalMs,
  };
  const wrapped = wrapHandler(web, handler);
  let server: http.Server | https.Server;
  if (web?.tls) {
    const t = web.tls;
    server = https.createServer(
      {
        ...base,
        ...secureContextOptions(t),
        requestCert: t.requestClientCert,
        // Only RequireAndVerify lets the TLS layer refuse; the other policies are checked below.
        rejectUnauthorized: t.clientAuth === 'RequireAndVerifyClientCert',
      },
      wrapped,
    );
    server.on('secureConnection', (socket: tls.TLSSocket) => {
      const problem = clientCertProblem(t, socket);
      if (problem) socket.destroy();
    });
  } else {
    server = http.createServer(base, wrapped);
  }
  server.headersTimeout = l.headersTimeoutMs;
  server.requestTimeout = l.requestTimeoutMs;
  server.keepAliveTimeout = l.keepAliveTimeoutMs;
  server.setTimeout(l.socketIdleTimeoutMs);
  closeIdleConnections(server, l.headersTimeoutMs);
  return server;
}

/** Why this TLS connection breaks the client certificate policy, or undefined. */
function clientCertProblem(t: WebTlsConfig, socket: tls.TLSSocket): string | undefined {
  if (t.clientAuth === 'NoClientCert' || t.clientAuth === 'RequestClientCert') return undefined;
  const cert = socket.getPeerCertificate();
  const presented = Boolean(cert && Object.keys(cert).length > 0);
  if (!presented) {
    return t.clientAuth === 'VerifyClientCertIfGiven' ? undefined : 'no client certificate';
  }
  if (t.clientAuth === 'RequireAnyClientCert') return undefined;
  if (!socket.authorized) return 'client certificate not verified';
  if (t.clientAllowedSans?.length) {
    const sans = (cert.subjectaltname ?? '').split(',').map((s) => s.trim().replace(/^[^:]+:/, ''));
    if (!t.clientAllowedSans.some((allowed) => sans.includes(allowed))) return 'client certificate SAN not allowed';
  }
  return undefined;
}

function wrapHandler(web: WebConfig | undefined, handler: Handler): Handler {
  const headers = web?.headers;
  const users = web?.basicAuthUsers;
  if (!headers && !users) return handler;
  const guard = new BasicAuthGuard();
  return (req, res) => {
    if (headers) for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    if (!users) return handler(req, res);
    guard.check(users, req.headers.authorization, req.socket.remoteAddress ?? '').then(
      (verdict) => {
        if (verdict.status === 200) return handler(req, res);
        if (verdict.status === 401) {
          res.writeHead(401, { 'content-type': 'text/plain; charset=utf-8', 'www-authenticate': WWW_AUTHENTICATE });
          return res.end('Unauthorized\n');
        }
        res.writeHead(verdict.status, {
          'content-type': 'text/plain; charset=utf-8',
          'retry-after': String(verdict.retryAfterS),
        });
        res.end(verdict.status === 429 ? 'Too many failed sign-ins: try again later\n' : 'Busy: try again later\n');
      },
      () => {
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('Internal Server Error\n');
      },
    );
  };
}
