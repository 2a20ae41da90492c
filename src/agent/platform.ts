// Checks the agent platform key: GET {baseUrl}/api/agents/me with the Bearer key, classified into
// a small set of reasons. The key goes to that one URL only (checked before every request),
// redirects are never followed, bodies are bounded (the shared HTTP client does both), and
// nothing the checker returns, logs or hands to the evidence store carries the key.
import type { Dispatcher } from 'undici';
import type { AgentPlatformSettings } from '../domain.js';
import { HttpClient, type HttpOutcome } from '../http/client.js';
import type { Logger } from '../logger.js';
import { Secrets } from '../redact.js';
import { agentApiUrl, agentBaseUrlProblem, keyMayBeSentTo } from './confinement.js';
import { ApiKeySource } from './keySource.js';
import { parseAgentProfile } from './profile.js';
import {
  STATUS_CLASSES,
  type AgentCheckSource,
  type AgentKeyReason,
  type AgentPlatformCheck,
  type StatusClass,
} from './types.js';

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
  /** The run's HTTP client (its secrets learn the key). Default: one over `dispatcher` and `secrets`. */
  client?: HttpClient;
  dispatcher?: Dispatcher;
  secrets?: Secrets;
  env?: NodeJS.ProcessEnv;
  logger: Logger;
  /** Called on each 5xx answer; the daemon wires this to the evidence store. */
  onServerError?: (info: AgentServerErrorInfo) => void;
  /** Cap on the response body read (default 64 KiB). */
  maxBodyBytes?: number;
}

const DEFAULT_MAX_BODY = 64 * 1024;

export class AgentPlatformChecker implements AgentCheckSource {
  /** The only URL the key is ever sent to. */
  readonly url: URL;
  private readonly keys: ApiKeySource;
  private readonly client: HttpClient;
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
    this.client =
      deps.client ?? new HttpClient({ secrets: deps.secrets ?? new Secrets(), dispatcher: deps.dispatcher });
    this.keys = new ApiKeySource({
      apiKeyEnv: settings.apiKeyEnv,
      apiKeyFile: settings.apiKeyFile,
      env: deps.env,
      secrets: this.client.secrets,
    });
    this.maxBody = deps.maxBodyBytes ?? DEFAULT_MAX_BODY;
  }

  /** Runs one check (concurrent callers share the one in flight). Never throws. */
  check(): Promise<AgentPlatformCheck> {
    this.inflight ??= this.run()
      .catch((err: unknown): AgentPlatformCheck => {
        // Defensive: run() handles its own errors; this keeps the "never throws" promise.
        this.deps.logger.error(
          { err: this.client.secrets.scrub(String(err)) },
          'agent platform check failed unexpectedly',
        );
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
    const lookup = await this.keys.current();
    if (lookup.kind === 'none') {
      this.note('no_key', { why: lookup.why });
      // No key means the platform would answer 401: the key is as good as rejected.
      return { at, durationMs: 0, up: false, keyValid: false, reason: 'no_key' };
    }
    // Belt and braces: the URL is fixed at construction, but the key must never go elsewhere.
    if (!keyMayBeSentTo(this.settings.baseUrl, this.url)) {
      throw new Error('refusing to send the agent key outside {baseUrl}/api/');
    }
    const out = await this.client.send({
      method: 'GET',
      url: this.url,
      headers: { authorization: `Bearer ${lookup.key}`, accept: 'application/json' },
      timeoutMs: this.settings.timeoutMs,
      maxBytes: this.maxBody,
      // Not followed: the Location could be any origin, and the key must stay with baseUrl.
      redirect: 'none',
    });
    this.count(out.ok || out.status !== undefined ? statusClass(out.ok ? out.response.status : out.status!) : 'error');
    const result = this.classify(at, out);
    this.note(result.reason, { status: result.status, ...(out.ok ? {} : { detail: out.message }) });
    return result;
  }

  private classify(at: number, out: HttpOutcome): AgentPlatformCheck {
    const durationMs = Math.round(out.durationMs * 1000) / 1000;
    const status = out.ok ? out.response.status : out.status;
    if (status === undefined) {
      const reason =
        !out.ok && out.reason === 'timeout'
          ? 'timeout'
          : !out.ok && out.reason === 'invalid_response'
            ? 'invalid_response'
            : 'connect';
      return { at, durationMs, up: false, keyValid: null, reason };
    }
    if (!out.ok && !out.response) {
      // The status came, its body did not (cut off, too slow): nothing usable was answered.
      return {
        at,
        durationMs,
        up: false,
        keyValid: null,
        reason: out.reason === 'timeout' ? 'timeout' : 'invalid_response',
        status,
      };
    }
    const base = { at, durationMs, status, up: status < 500 };
    if (status >= 200 && status < 300) {
      // A body over the cap is no profile either: the key was accepted, the answer unusable.
      const profile = out.ok ? parseAgentProfile(out.response.body, this.client.secrets) : undefined;
      return profile
        ? { ...base, keyValid: true, reason: 'ok', profile }
        : { ...base, keyValid: true, reason: 'invalid_response' };
    }
    const reason = keyReason(status);
    if (reason === 'server_error' && !out.ok && out.response) {
      const r = out.response;
      this.reportServerError({
        url: this.url.toString(),
        status,
        durationMs,
        headers: this.client.secrets.scrubHeaders(r.headers),
        body: this.client.secrets.scrubBytes(r.body),
      });
    }
    return { ...base, keyValid: reason === 'unauthorized' || reason === 'forbidden' ? false : null, reason };
  }

  private reportServerError(info: AgentServerErrorInfo): void {
    try {
      this.deps.onServerError?.(info);
    } catch (err) {
      this.deps.logger.error({ err: this.client.secrets.scrub(String(err)) }, 'agent platform evidence hook failed');
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

function keyReason(status: number): AgentKeyReason {
  if (status >= 300 && status < 400) return 'redirect';
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status >= 500) return 'server_error';
  return status < 200 ? 'invalid_response' : 'client_error';
}

function statusClass(status: number): StatusClass {
  if (status >= 200 && status < 300) return '2xx';
  if (status >= 300 && status < 400) return '3xx';
  if (status >= 400 && status < 500) return '4xx';
  if (status >= 500) return '5xx';
  return 'error';
}
