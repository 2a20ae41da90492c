// One simulated node: its state (fault, uptime, request count), request routing, and in the
// port-per-node layout its own listening server. Replies are computed by pure modules.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { SimChain } from './chain.js';
import { effectiveFault, garbleJson, json500Reply, proxyReply } from './faults.js';
import { handleRpc } from './jsonrpc.js';
import { callMethod, DEFAULT_NAMESPACE, DEFAULT_VERSION } from './methods.js';
import { METRICS_CONTENT_TYPE, renderMetrics } from './metrics-text.js';
import { jsonReply, textReply, type Reply } from './reply.js';
import { ConcurrencyGate } from './gate.js';
import { closeServer, HeldResponses, listen, methodNotAllowed, pathOf, readBody, send } from './serve.js';
import { hash32 } from './rng.js';
import { healthBody, peersBody, versionBody, type NodeSnapshot } from './status.js';
import { isSimFault, type SimBuild, type SimFault, type SimNodeSpec } from './types.js';

/** Settings a node shares with its fleet. */
export interface SimEnv {
  host: string;
  layout: 'port-per-node' | 'shared-port';
  now: () => number;
  flapPeriodMs: number;
  slowBodyBytes: number;
  slowBodyTickMs: number;
  /** Idle keep-alive of the node's server, in ms (Node's default when absent). */
  keepAliveTimeoutMs?: number;
}

const PLAIN_PATHS = new Set(['/health', '/metrics', '/peers', '/version']);
const socketOwner = new WeakMap<Socket, SimNode>();

export class SimNode {
  readonly name: string;
  readonly network: string;
  readonly build: SimBuild;
  readonly namespace: string;
  /** version, heightOffset, missingValidators, latencyMs: changed at run time by adjust(). */
  version: string;
  heightOffset: number;
  missingValidators: number;
  latencyMs: number;
  readonly peers: number;
  private _url = '';
  private port = 0;
  private currentFault: SimFault = 'none';
  private faultSinceMs: number;
  private stall: { height: number; lastBlockMs: number } | undefined;
  private startedMs: number;
  private startHeight: number;
  private requests = 0;
  private server: http.Server | undefined;
  /** Responses kept open by `hang` or trickled by `slow_body`, ended on fault change. */
  private readonly held = new HeldResponses();
  /** Sockets that carried requests for this node (shared-port: destroyed on kill). */
  private readonly sockets = new Set<Socket>();
  /** Serialises kill/revive so the listener is never opened and closed concurrently. */
  private transitions: Promise<void> = Promise.resolve();
  private metricsCache: { key: string; text: string } | undefined;
  /** Requests served now, the most at once (at most 100 run at once, as on real nodes). */
  readonly gate = new ConcurrencyGate();

  constructor(
    spec: SimNodeSpec,
    private readonly chain: SimChain,
    private readonly env: SimEnv,
  ) {
    this.name = spec.name;
    this.network = chain.network;
    this.build = spec.build ?? 'current';
    this.namespace = spec.namespace ?? DEFAULT_NAMESPACE[this.build];
    this.version = spec.version ?? DEFAULT_VERSION[this.build];
    this.heightOffset = Math.max(0, Math.floor(spec.heightOffset ?? 0));
    this.missingValidators = Math.max(0, Math.floor(spec.missingValidators ?? 0));
    this.latencyMs = Math.max(0, spec.latencyMs ?? 0);
    this.peers = spec.peers ?? 3 + (hash32(`peers:${spec.name}`) % 10);
    const now = env.now();
    this.faultSinceMs = now;
    this.startedMs = now;
    this.startHeight = this.liveHeight(now);
  }

  /** Base URL: what an exporter would be configured with. */
  get url(): string {
    return this._url;
  }

  fault(): SimFault {
    return this.currentFault;
  }

  setFault(f: SimFault): void {
    // Failures of the listener are reported by kill()/revive(); here they only must not go unhandled.
    this.applyFault(f).catch(() => undefined);
  }

  /** Port-per-node: stop listening (connection refused). Shared-port: drop this node's connections. */
  kill(): Promise<void> {
    return this.applyFault('down');
  }

  /**
   * Listen again on the same port, as a restarted process: uptime and counters restart.
   * Rejects if the port was taken meanwhile. When not down: waits for pending transitions only.
   */
  revive(): Promise<void> {
    return this.currentFault === 'down' ? this.applyFault('none') : this.transitions;
  }

  private applyFault(f: SimFault): Promise<void> {
    if (!isSimFault(f)) throw new Error(`unknown fault: ${String(f)}`);
    const prev = this.currentFault;
    if (f === prev) return this.transitions;
    const now = this.env.now();
    if (f === 'stalled') {
      const h = this.liveHeight(now);
      this.stall = { height: h, lastBlockMs: this.chain.blockTimestampMs(h + this.heightOffset) };
    } else {
      this.stall = undefined;
    }
    this.currentFault = f;
    this.faultSinceMs = now;
    this.held.release();
    if (f === 'down') return this.enqueue(() => this.stop());
    if (prev === 'down') return this.enqueue(() => this.start());
    return this.transitions;
  }

  /**
   * Changes what the node runs and sees, as an operator's action would: another version (an
   * upgrade), a distance behind its network (falling behind, catching up), a stale validator set.
   */
  adjust(change: Pick<SimNodeSpec, 'version' | 'heightOffset' | 'missingValidators' | 'latencyMs'>): void {
    if (change.latencyMs !== undefined) this.latencyMs = Math.max(0, change.latencyMs);
    if (change.version !== undefined) this.version = change.version;
    if (change.heightOffset !== undefined) this.heightOffset = Math.max(0, Math.floor(change.heightOffset));
    if (change.missingValidators !== undefined)
      this.missingValidators = Math.max(0, Math.floor(change.missingValidators));
    this.metricsCache = undefined;
  }

  height(): number {
    return this.stall ? this.stall.height : this.liveHeight(this.env.now());
  }

  requestCount(): number {
    return this.requests;
  }

  // ---- fleet-facing (not for users of the simulator) ----

  /** Port-per-node: first listen on an ephemeral port. */
  /** @internal */
  async listenInitial(): Promise<void> {
    this.server = http.createServer((req, res) => this.handle(req, res, pathOf(req.url)));
    if (this.env.keepAliveTimeoutMs !== undefined) this.server.keepAliveTimeout = this.env.keepAliveTimeoutMs;
    await listen(this.server, 0, this.env.host);
    this.port = (this.server.address() as AddressInfo).port;
    this._url = `http://${this.env.host}:${this.port}`;
  }

  /** Shared-port: the fleet's server routes requests here. */
  /** @internal */
  attachShared(baseUrl: string): void {
    this._url = `${baseUrl}/n/${encodeURIComponent(this.name)}`;
  }

  /** @internal */
  async shutdown(): Promise<void> {
    await this.transitions;
    this.held.release();
    for (const s of this.sockets) s.destroy();
    if (this.server?.listening) await closeServer(this.server);
  }

  /** @internal */
  handle(req: http.IncomingMessage, res: http.ServerResponse, path: string): void {
    if (this.currentFault === 'down') {
      // Shared-port layout: a dead process answers nothing.
      req.socket.destroy();
      return;
    }
    this.requests++;
    this.track(req.socket);
    this.gate.admit(res, () => this.serve(req, res, path));
  }

  private serve(req: http.IncomingMessage, res: http.ServerResponse, path: string): void {
    const now = this.env.now();
    const fault = effectiveFault(this.currentFault, this.faultSinceMs, now, this.env.flapPeriodMs);
    if (fault === 'hang') {
      this.held.hang(res);
      return;
    }
    if (fault === 'proxy_502' || fault === 'proxy_503' || fault === 'proxy_504') {
      req.resume();
      send(res, proxyReply(Number(fault.slice(6)) as 502 | 503 | 504));
      return;
    }
    if (fault === 'json_500') {
      req.resume();
      send(res, json500Reply());
      return;
    }
    this.route(req, path, now)
      .then((reply) => {
        if (fault === 'garbage_json' && (path === '/' || path === '/health') && reply.status === 200)
          reply = garbleJson(reply);
        if (fault === 'slow_body') this.held.trickle(res, reply, this.env.slowBodyBytes, this.env.slowBodyTickMs);
        else send(res, reply);
      })
      .catch(() => res.destroy());
  }

  /** @internal */
  snapshot(now = this.env.now()): NodeSnapshot {
    const height = this.stall ? this.stall.height : this.liveHeight(now);
    const lastBlockMs = this.stall ? this.stall.lastBlockMs : this.chain.blockTimestampMs(this.chain.tipHeight(now));
    return {
      name: this.name,
      chain: this.chain,
      build: this.build,
      version: this.version,
      height,
      lastBlockMs,
      nowMs: now,
      startedMs: this.startedMs,
      startHeight: Math.min(this.startHeight, height),
      peers: this.peers,
    };
  }

  // ---- internals ----

  private liveHeight(now: number): number {
    return Math.max(0, this.chain.tipHeight(now) - this.heightOffset);
  }

  private async route(req: http.IncomingMessage, path: string, now: number): Promise<Reply> {
    if (path === '/') {
      if (req.method !== 'POST') return methodNotAllowed('POST');
      const body = await readBody(req);
      if (body === undefined) {
        const r = textReply(413, 'Failed to buffer the request body: length limit exceeded');
        return { ...r, headers: { ...r.headers, connection: 'close' } };
      }
      if (this.latencyMs > 0) await new Promise((r) => setTimeout(r, this.latencyMs));
      const height = this.height();
      return handleRpc(req.headers['content-type'], body, (method, params) =>
        callMethod(this.build, this.namespace, method, params, {
          chain: this.chain,
          height,
          missingValidators: this.missingValidators,
        }),
      );
    }
    req.resume();
    if (!PLAIN_PATHS.has(path) || (path === '/version' && this.build === 'earliest'))
      return { status: 404, headers: {}, body: '' };
    if (req.method !== 'GET' && req.method !== 'HEAD') return methodNotAllowed('GET,HEAD');
    const snap = this.snapshot(now);
    if (path === '/health') return jsonReply(healthBody(snap));
    if (path === '/peers') return jsonReply(peersBody(snap));
    if (path === '/version') return jsonReply(versionBody(snap));
    return { status: 200, headers: { 'content-type': METRICS_CONTENT_TYPE }, body: this.metricsText(snap) };
  }

  /** The exposition changes once per block at most: render it once per block. */
  private metricsText(snap: NodeSnapshot): string {
    const key = `${snap.height}:${snap.startHeight}`;
    if (this.metricsCache?.key !== key) this.metricsCache = { key, text: renderMetrics(snap) };
    return this.metricsCache.text;
  }

  /**
   * A socket belongs to the node it last served: one close listener per socket however many
   * nodes share it (shared-port keep-alive), and a kill spares sockets busy for other nodes.
   */
  private track(socket: Socket): void {
    const prev = socketOwner.get(socket);
    if (prev === this) return;
    if (prev) prev.sockets.delete(socket);
    else socket.once('close', () => socketOwner.get(socket)?.sockets.delete(socket));
    socketOwner.set(socket, this);
    this.sockets.add(socket);
  }

  /** Runs after earlier transitions; the returned promise rejects on failure, the queue goes on. */
  private enqueue(op: () => Promise<void>): Promise<void> {
    const run = this.transitions.then(op);
    this.transitions = run.catch(() => undefined);
    return run;
  }

  private async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    if (this.server?.listening) await closeServer(this.server);
  }

  private async start(): Promise<void> {
    const now = this.env.now();
    this.startedMs = now;
    this.startHeight = this.liveHeight(now);
    if (this.server && !this.server.listening) await listen(this.server, this.port, this.env.host);
  }
}
