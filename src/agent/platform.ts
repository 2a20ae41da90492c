// Checks the agent platform key: GET {baseUrl}/api/agents/me with the Bearer key, classified into
// a small set of reasons. The key goes to that one URL only (checked before every request),
// redirects are never followed, bodies are bounded, and nothing the checker returns, logs or
// hands to the evidence store carries the key.
import { request, type Dispatcher } from 'undici';
import type { AgentPlatformSettings } from '../domain.js';
import type { Logger } from '../logger.js';
import { scrubber, SECRET_HEADER_NAMES } from '../redact.js';
import { agentApiUrl, agentBaseUrlProblem, keyMayBeSentTo } from './confinement.js';
import { ApiKeySource } from './keySource.js';
import { parseAgentProfile } from './profile.js';
import { readBounded } from './boundedBody.js';
import { STATUS_CLASSES, type AgentKeyReason, type AgentPlatformCheck, type StatusClass } from './types.js';

export * from './types.js';
export { agentPlatformCollectors } from './metrics.js';

export interface AgentServerErrorInfo {
  /** The requested URL (never carries credentials). */
  url: string;
  status: number;
  durationMs: number;
  /** Response headers without secret-bearing ones, values scrubbed. */
  headers: Record<string, string | string[] | undefined>;
  /** First bytes of the body (bounded), scrubbed of known secrets. */
  body: Uint8Array;
}

export interface AgentPlatformDeps {
  dispatcher?: Dispatcher;
  env?: NodeJS.ProcessEnv;
  logger: Logger;
  /** Called on each 5xx answer; the lead wires this to the evidence store. */
  onServerError?: (info: AgentServerErrorInfo) => void;
  /** Cap on the response body read (default 64 KiB). */
  maxBodyBytes?: number;
}

const DEFAULT_MAX_BODY = 64 * 1024;

export class AgentPlatformChecker {
  /** The only URL the key is ever sent to. */
  readonly url: URL;
  private readonly keys: ApiKeySource;
  private readonly maxBody: number;
  private inflight?: Promise<AgentPlatformCheck>;
  private lastCheck?: AgentPlatformCheck;
  private lastVerdictCheck?: AgentPlatformCheck;
  private readonly classCounts = new Map<string, number>(STATUS_CLASSES.map((c) => [c, 0]));

  /** Throws when baseUrl is unusable (not http(s), credentials, plain http off loopback). */
  constructor(
    private readonly settings: AgentPlatformSettings,
    private readonly deps: AgentPlatformDeps,
  ) {
    const problem = agentBaseUrlProblem(settings.baseUrl);
    if (problem) throw new Error(problem);
    this.url = agentApiUrl(settings.baseUrl, 'agents/me');
    this.keys = new ApiKeySource({ apiKeyEnv: settings.apiKeyEnv, apiKeyFile: settings.apiKeyFile, env: deps.env });
    this.maxBody = deps.maxBodyBytes ?? DEFAULT_MAX_BODY;
  }

  /** Runs one check (concurrent callers share the one in flight). Never throws. */
  check(): Promise<AgentPlatformCheck> {
    this.inflight ??= this.run()
      .catch((err: unknown): AgentPlatformCheck => {
        // Defensive: run() handles its own errors; this keeps the "never throws" promise.
        this.deps.logger.error({ err: scrubber.scrub(String(err)) }, 'agent platform check failed unexpectedly');
        return { at: Date.now(), durationMs: 0, up: false, keyValid: null, reason: 'connect' };
      })
      .then((result) => {
        this.record(result);
        return result;
      })
      .finally(() => {
        this.inflight = undefined;
      });
    return this.inflight;
  }

  /** The latest check, whatever its outcome. */
  last(): AgentPlatformCheck | undefined {
    return this.lastCheck;
  }

  /**
   * The latest check that told something about the key (keyValid not null). A timeout or a 5xx
   * says nothing about the key, so the key_valid metric keeps this verdict through outages.
   */
  lastKeyVerdict(): AgentPlatformCheck | undefined {
    return this.lastVerdictCheck;
  }

  /** Requests sent, by status class (2xx, 3xx, 4xx, 5xx, error). */
  counts(): Map<string, number> {
    return new Map(this.classCounts);
  }

  private async run(): Promise<AgentPlatformCheck> {
    const at = Date.now();
    const t0 = performance.now();
    const elapsed = () => Math.round((performance.now() - t0) * 1000) / 1000;

    const lookup = await this.keys.current();
    if (lookup.kind === 'none') {
      this.note('no_key', { why: lookup.why });
      // No key means the platform would answer 401: the key is as good as rejected.
      return { at, durationMs: elapsed(), up: false, keyValid: false, reason: 'no_key' };
    }
    // Belt and braces: the URL is fixed at construction, but the key must never go elsewhere.
    if (!keyMayBeSentTo(this.settings.baseUrl, this.url)) {
      throw new Error('refusing to send the agent key outside {baseUrl}/api/');
    }

    let res: Dispatcher.ResponseData<unknown>;
    try {
      res = await request(this.url, {
        method: 'GET',
        headers: { authorization: `Bearer ${lookup.key}`, accept: 'application/json' },
        dispatcher: this.deps.dispatcher,
        signal: AbortSignal.timeout(this.settings.timeoutMs),
        headersTimeout: this.settings.timeoutMs,
        bodyTimeout: this.settings.timeoutMs,
        // 0 also disables a redirect interceptor composed into a caller's dispatcher.
        maxRedirections: 0,
      } as Parameters<typeof request>[1]);
    } catch (err) {
      return this.failed(at, elapsed(), err);
    }

    const status = res.statusCode;
    this.count(statusClass(status));
    let body: Uint8Array;
    try {
      body = (await readBounded(res.body, this.maxBody)).bytes;
    } catch (err) {
      return this.failed(at, elapsed(), err, status);
    }
    const durationMs = elapsed();
    const base = { at, durationMs, status, up: status < 500 };

    if (status >= 200 && status < 300) {
      const profile = parseAgentProfile(body);
      if (!profile) {
        this.note('invalid_response', { status });
        return { ...base, keyValid: true, reason: 'invalid_response' };
      }
      this.note('ok', { status });
      return { ...base, keyValid: true, reason: 'ok', profile };
    }
    if (status >= 300 && status < 400) {
      // Not followed: the Location could be any origin, and the key must stay with baseUrl.
      this.note('redirect', { status });
      return { ...base, keyValid: null, reason: 'redirect' };
    }
    if (status === 401 || status === 403) {
      const reason = status === 401 ? 'unauthorized' : 'forbidden';
      this.note(reason, { status });
      return { ...base, keyValid: false, reason };
    }
    if (status >= 500) {
      this.note('server_error', { status });
      this.reportServerError({ url: this.url.toString(), status, durationMs, headers: safeHeaders(res.headers), body: scrubBytes(body) });
      return { ...base, keyValid: null, reason: 'server_error' };
    }
    this.note('client_error', { status });
    return { ...base, keyValid: null, reason: status < 200 ? 'invalid_response' : 'client_error' };
  }

  private failed(at: number, durationMs: number, err: unknown, status?: number): AgentPlatformCheck {
    if (status === undefined) this.count('error');
    const reason = isTimeout(err) ? 'timeout' : status === undefined ? 'connect' : 'invalid_response';
    this.note(reason, { status, code: errorCode(err) });
    return { at, durationMs, up: false, keyValid: null, reason, ...(status === undefined ? {} : { status }) };
  }

  private reportServerError(info: AgentServerErrorInfo): void {
    try {
      this.deps.onServerError?.(info);
    } catch (err) {
      this.deps.logger.error({ err: scrubber.scrub(String(err)) }, 'agent platform evidence hook failed');
    }
  }

  private count(cls: StatusClass): void {
    this.classCounts.set(cls, (this.classCounts.get(cls) ?? 0) + 1);
  }

  private record(result: AgentPlatformCheck): void {
    this.lastCheck = result;
    if (result.keyValid !== null) this.lastVerdictCheck = result;
  }

  /** One log line per check; warn when the outcome changes to a bad one, so logs stay quiet. */
  private note(reason: AgentKeyReason, fields: Record<string, unknown>): void {
    const changed = this.lastCheck?.reason !== reason;
    const line = { url: this.url.toString(), reason, keySource: this.keys.describe(), ...fields };
    if (!changed) this.deps.logger.debug(line, 'agent platform check');
    else if (reason === 'ok') this.deps.logger.info(line, 'agent platform key accepted');
    else this.deps.logger.warn(line, 'agent platform check not ok');
  }
}

function statusClass(status: number): StatusClass {
  if (status >= 200 && status < 300) return '2xx';
  if (status >= 300 && status < 400) return '3xx';
  if (status >= 400 && status < 500) return '4xx';
  if (status >= 500) return '5xx';
  return 'error';
}

function errorCode(err: unknown): string | undefined {
  if (err && typeof err === 'object') {
    const e = err as { code?: unknown; name?: unknown; cause?: { code?: unknown } };
    if (typeof e.code === 'string') return e.code;
    if (typeof e.cause?.code === 'string') return e.cause.code;
    if (typeof e.name === 'string') return e.name;
  }
  return undefined;
}

function isTimeout(err: unknown): boolean {
  const code = errorCode(err);
  return (
    code === 'TimeoutError' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    code === 'ETIMEDOUT'
  );
}

/** Response headers minus secret-bearing ones, the rest scrubbed (a server may echo a key). */
function safeHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | string[] | undefined> {
  const out: Record<string, string | string[] | undefined> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (SECRET_HEADER_NAMES.has(name.toLowerCase())) continue;
    out[name] = Array.isArray(value) ? value.map((v) => scrubber.scrub(v)) : value === undefined ? undefined : scrubber.scrub(value);
  }
  return out;
}

/** Scrubs known secrets from raw bytes; latin1 maps bytes 1:1 so binary content survives. */
function scrubBytes(body: Uint8Array): Uint8Array {
  const text = Buffer.from(body).toString('latin1');
  const clean = scrubber.scrub(text);
  return clean === text ? body : new Uint8Array(Buffer.from(clean, 'latin1'));
}
