// Runs one probe against one node and classifies the outcome. Owns the node's RPC namespace:
// fixed by config, or found by probing `<ns>_blockNumber` and remembered until reset.
import { SYSTEM_CLOCK } from '../clock/clock.js';
import type { HttpClient } from '../http/client.js';
import { KNOWN_NAMESPACES, type NodeTarget, type ProbeName, type ProbeResult } from '../domain.js';
import { BLOCK_NUMBER_METHOD, blockNumberProbe } from '../probes/blockNumber.js';
import { nodeBudget, type BudgetSettings } from '../probes/budget.js';
import { ProbeError } from '../probes/errors.js';
import { nodeProbe } from '../probes/registry.js';
import type { ParseContext, ProbeAsk } from '../probes/types.js';
import {
  answerOf,
  decodeUtf8,
  endpointFor,
  prepareRequest,
  sendProbe,
  type Endpoint,
  type ProbeRequest,
  type RequestLimits,
} from './http.js';
import { prepareRpc, rpcCall, type RpcAnswer, type RpcRequest } from './jsonrpc.js';
import { scrubNodeData } from './nodeText.js';

type RpcAsk = ProbeAsk & { kind: 'rpc' };

/**
 * How the runner finds a node's namespace: every build offers blockNumber (the probe's own ask, so one request serves
 * both).
 */
const DETECT = blockNumberProbe.request as RpcAsk;

export interface ProberOptions extends BudgetSettings {
  /** Carries the run's secrets: every message of a result is scrubbed with them. */
  client: HttpClient;
  maxResponseBytes: number;
  /** Monotonic ms (results start times: backoff, restarts, stalls). */
  now?: () => number;
}

/** Thrown inside a run when the node does not offer the method: the probe is unsupported. */
class Unsupported extends Error {}

const systemNow = (): number => SYSTEM_CLOCK.mono();

/**
 * What every node probed with the same options shares instead of a copy each: the budget and the
 * request limits per timeout (a fleet has a few timeouts).
 */
interface Shared {
  budget: ParseContext['budget'];
  limits: Map<number, RequestLimits>;
}
const sharedByOptions = new WeakMap<ProberOptions, Shared>();

function sharedFor(opts: ProberOptions): Shared {
  let s = sharedByOptions.get(opts);
  if (!s) sharedByOptions.set(opts, (s = { budget: nodeBudget(opts), limits: new Map() }));
  return s;
}

function limitsFor(opts: ProberOptions, timeoutMs: number): RequestLimits {
  const byTimeout = sharedFor(opts).limits;
  let l = byTimeout.get(timeoutMs);
  if (!l) byTimeout.set(timeoutMs, (l = { timeoutMs, maxBytes: opts.maxResponseBytes }));
  return l;
}

export class NodeProber {
  readonly endpoint: Endpoint;
  private detected: string | undefined;
  private detecting: Promise<string> | undefined;
  private readonly now: () => number;
  private readonly ctx: ParseContext;
  private readonly limits: RequestLimits;
  /**
   * Requests built once, per ask: GET ones, and RPC ones for the namespace `rpcNamespace` (another
   * namespace, tried while detecting, gets its requests anew). One table per node, not three.
   */
  private readonly requests = new Map<ProbeAsk, ProbeRequest | RpcRequest>();
  private rpcNamespace: string | undefined;

  constructor(
    readonly target: NodeTarget,
    private readonly opts: ProberOptions,
  ) {
    this.endpoint = endpointFor(target);
    this.now = opts.now ?? systemNow;
    // A context of its own (the budget shared): probes keep what they read last by context (the
    // /metrics reader's shape, the validator list), which must be this node's, not the last node's.
    this.ctx = { budget: sharedFor(opts).budget };
    this.limits = limitsFor(opts, target.timeoutMs);
    if (target.rpcNamespace !== 'auto') this.detected = target.rpcNamespace;
  }

  /** The namespace in use, if known. */
  namespace(): string | undefined {
    return this.detected;
  }

  /** Forget a detected namespace (node restarted or changed build). No-op for a fixed one. */
  resetNamespace(): void {
    if (this.target.rpcNamespace === 'auto') this.detected = undefined;
  }

  async run(probe: ProbeName): Promise<ProbeResult> {
    const startedAt = this.now();
    const t0 = performance.now();
    try {
      // The request is awaited here, not in helpers: each async layer costs a promise and a turn per request.
      const d = nodeProbe(probe);
      const ask = d.request;
      let answer: unknown;
      if (ask.kind === 'get') {
        const req = this.getRequest(ask);
        answer = decodeUtf8(answerOf(await sendProbe(this.opts.client, this.endpoint, req), req).body, req.label);
      } else answer = await this.rpc(ask);
      // Whatever field the node echoed its credentials into: scrubbed before anything keeps it.
      const parsed = d.parse(answer, this.ctx);
      const data = d.scrubbedWhenRendered ? parsed : scrubNodeData(parsed, this.endpoint.secrets);
      return { kind: 'ok', probe, startedAt, durationMs: performance.now() - t0, data, namespace: this.detected };
    } catch (err) {
      const durationMs = performance.now() - t0;
      if (err instanceof Unsupported)
        return {
          kind: 'unsupported',
          probe,
          startedAt,
          durationMs,
          message: this.opts.client.secrets.scrub(err.message),
        };
      const e =
        err instanceof ProbeError
          ? err
          : new ProbeError('invalid_response', `unexpected error: ${(err as Error).name}`);
      // The request that really got the answer: namespace detection may have sent another method.
      const method = e.request ?? this.requestLine(nodeProbe(probe).request);
      return {
        kind: 'failed',
        probe,
        startedAt,
        durationMs,
        reason: e.reason,
        // A node may echo what it was sent (credentials, header values) in any text it returns.
        message: this.opts.client.secrets.scrub(e.message),
        httpStatus: e.response?.status,
        response: e.response && {
          method,
          status: e.response.status,
          headers: e.response.headers,
          body: e.response.body,
          ...(e.response.truncated ? { truncated: true } : {}),
        },
      };
    }
  }

  private requestLine(ask: ProbeAsk): string {
    return ask.kind === 'get' ? `GET ${ask.path}` : `POST ${this.detected ?? this.target.rpcNamespace}_${ask.method}`;
  }

  private getRequest(ask: ProbeAsk & { kind: 'get' }): ProbeRequest {
    let req = this.requests.get(ask) as ProbeRequest | undefined;
    if (!req)
      this.requests.set(
        ask,
        (req = prepareRequest(this.endpoint, 'GET', ask.path, { accept: ask.accept }, this.limits, `GET ${ask.path}`)),
      );
    return req;
  }

  private call(namespace: string, ask: RpcAsk): Promise<RpcAnswer> {
    if (namespace !== this.rpcNamespace) {
      // The RPC requests of the namespace used before go; the GET ones stay.
      for (const [a] of this.requests) if (a.kind === 'rpc') this.requests.delete(a);
      this.rpcNamespace = namespace;
    }
    let rpc = this.requests.get(ask) as RpcRequest | undefined;
    if (!rpc)
      this.requests.set(ask, (rpc = prepareRpc(this.endpoint, `${namespace}_${ask.method}`, this.limits, ask.params)));
    return rpcCall(this.opts.client, this.endpoint, rpc);
  }

  private async rpc(ask: RpcAsk): Promise<unknown> {
    const name = ask.method;
    let ns = this.detected ?? (await this.ensureNamespace());
    let answer = await this.call(ns, ask);
    if (
      !answer.ok &&
      answer.methodNotFound &&
      this.target.rpcNamespace === 'auto' &&
      (await this.namespaceGone(ns, name))
    ) {
      // The node changed namespace (upgrade); find it again, once.
      this.resetNamespace();
      ns = await this.ensureNamespace();
      answer = await this.call(ns, ask);
    }
    if (answer.ok) return answer.result;
    if (answer.methodNotFound) {
      // A pinned word the node no longer speaks (e.g. clw after an upgrade to claw) is an outage.
      if (this.target.rpcNamespace !== 'auto' && (await this.namespaceGone(ns, name))) {
        throw new ProbeError(
          'rpc_error',
          `namespace ${ns} not offered by the node (method not found: ${ns}_${BLOCK_NUMBER_METHOD})`,
        );
      }
      throw new Unsupported(`${ns}_${name} is not offered by this node`);
    }
    throw new ProbeError('rpc_error', `${ns}_${name}: JSON-RPC error ${answer.code}: ${answer.message}`);
  }

  /**
   * Every build offers blockNumber: a method missing while blockNumber still answers is truly
   * unsupported; blockNumber missing too means the namespace is gone, whichever probe saw it first.
   */
  private async namespaceGone(ns: string, method: string): Promise<boolean> {
    if (method === BLOCK_NUMBER_METHOD) return true;
    const check = await this.call(ns, DETECT);
    return !check.ok && check.methodNotFound;
  }

  private ensureNamespace(): Promise<string> {
    if (this.detected) return Promise.resolve(this.detected);
    // One detection at a time per node; concurrent RPC probes share it.
    this.detecting ??= this.detect().finally(() => {
      this.detecting = undefined;
    });
    return this.detecting;
  }

  private async detect(): Promise<string> {
    for (const ns of KNOWN_NAMESPACES) {
      const answer = await this.call(ns, DETECT);
      // Any answer other than "method not found" (even another error) means the namespace exists.
      if (answer.ok || !answer.methodNotFound) {
        this.detected = ns;
        return ns;
      }
    }
    throw new ProbeError(
      'rpc_error',
      `no known RPC namespace (${KNOWN_NAMESPACES.join(', ')}) answers blockNumber; set rpcNamespace`,
    );
  }
}
