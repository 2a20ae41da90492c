// The one place outbound connection pools are made, so the pool policy is decided here only.
import { isDeepStrictEqual } from 'node:util';
import type { buildConnector as BuildConnector, Client as ClientTypes, Dispatcher } from 'undici';
import { buildConnector, DispatcherBase, errors, type Client, type Pool } from '../deps/undici.js';
import type { TlsSettings } from '../domain.js';
import { CertExpiries } from './certRecheck.js';
import { OriginClient, OriginPool, type ConnectionEvent } from './originDispatchers.js';
import { trimFinished } from './queueTrim.js';
import { originConnector, sharedConnectOptions } from './tls.js';

/** How often idle dispatchers drop the finished requests they still list (queueTrim.ts). */
const TRIM_EVERY_MS = 30_000;

/** An idle socket's life when the server names none (undici's default), and its bounds. */
const IDLE_KEEP_MIN_MS = 30_000;
const IDLE_KEEP_MAX_MS = 600_000;
/** The longest Keep-Alive timeout a server may give that is followed, unless keepIdleFor asks for longer. */
const SERVER_KEEP_MAX_MS = 120_000;

export interface DispatcherOptions {
  connectTimeoutMs?: number;
  /** ms: the clock certificate re-checks are scheduled on (tests); default performance.now. */
  now?: () => number;
}

/** One origin's dispatcher, the sockets it may hold, and how many are open now. */
interface OriginEntry {
  origin: string;
  dispatcher: Client | Pool;
  connections: number;
  open: number;
  tls?: TlsSettings;
}

/**
 * Sockets per origin, as undici's Agent keeps them, with a size per origin that a config sets:
 * one socket per node behind the origin (setConnectionsPerOrigin), one for any other origin.
 *
 * A node on an origin of its own gets a single Client with one socket (a pool of one would open a
 * second socket whenever a request arrives before the previous one's socket is marked free, i.e.
 * on every back-to-back request). The scheduler sends a node's probes one after another, so such
 * a node has exactly one socket and one request in flight: 10,000 nodes hold 10,000 sockets and
 * open none once warm. Nodes behind one origin (a gateway routing by path) get a pool of as many
 * sockets as there are of them: still at most one per node, and a node that hangs holds only one
 * of them, so its neighbours' requests never wait (and time out) behind it.
 *
 * Sequence rather than HTTP/1.1 pipelining (pipelining: 1): a pipelined request waits behind a
 * slow answer anyway, a timeout must destroy the socket and with it every request queued on it
 * (the node's other probes would fail as `connect` and their deadlines would run while they
 * wait), and proxies in front of nodes often mishandle pipelining. Nor did it pay off: sending a
 * node's five requests pipelined on its socket, also with the socket corked, cost the same CPU
 * per node-poll as sending them in sequence (1,000 nodes paced over 2 s: 0.58 against 0.61 ms,
 * within noise), because undici writes each request on its own (the first one on an idle socket
 * only after a check-phase turn) and the node answers each on its own.
 */
export class NodeDispatcher extends DispatcherBase {
  private options: ClientTypes.Options;
  private readonly origins = new Map<string, OriginEntry>();
  /** Dispatchers replaced by a new size, finishing what they were sent. */
  private readonly retired = new Set<Client | Pool>();
  private perOrigin: ReadonlyMap<string, number> = new Map();
  private tlsPerOrigin: ReadonlyMap<string, TlsSettings> = new Map();
  /** The earliest certificate expiry each origin's newest TLS handshake showed, and its re-checks. */
  private readonly expiries: CertExpiries;
  private readonly connectBase: BuildConnector.BuildOptions;
  private readonly sharedConnect: BuildConnector.connector;
  /** The shared connector without session resumption, for certificate re-checks. */
  private readonly freshConnect: BuildConnector.connector;
  private state: 'open' | 'closed' | 'destroyed' = 'open';
  private readonly trimTimer: NodeJS.Timeout;

  constructor(opts: DispatcherOptions = {}) {
    super();
    this.trimTimer = setInterval(() => this.trimFinished(), TRIM_EVERY_MS).unref();
    this.connectBase = sharedConnectOptions(opts.connectTimeoutMs ?? 5_000);
    // One connector for every origin without TLS settings: undici otherwise builds one per
    // origin's client, each with its own TLS session cache (a Map and a FinalizationRegistry,
    // ~0.5 KB per node: 5 MB of heap at 10,000 nodes, most of them plain HTTP). Sessions stay keyed
    // by server name, so each TLS node still resumes its own; they are held weakly, so the bound
    // is on names, not on memory. Each origin wraps it (originConnector) to read certificates.
    this.sharedConnect = buildConnector(this.connectBase);
    this.freshConnect = buildConnector({ ...this.connectBase, maxCachedSessions: 0 });
    this.expiries = new CertExpiries(opts.now);
    this.options = {
      keepAliveTimeout: IDLE_KEEP_MIN_MS,
      keepAliveMaxTimeout: SERVER_KEEP_MAX_MS,
      pipelining: 1,
    };
  }

  get closed(): boolean {
    return this.state !== 'open';
  }

  get destroyed(): boolean {
    return this.state === 'destroyed';
  }

  /**
   * Sockets each origin may hold (the nodes behind it; any origin not named: one). An origin whose
   * size changed gets a new pool for its next request; the old one finishes its requests and closes.
   */
  setConnectionsPerOrigin(perOrigin: ReadonlyMap<string, number>): void {
    this.perOrigin = perOrigin;
    for (const [origin, e] of this.origins) {
      if (e.connections === this.connectionsOf(origin)) continue;
      this.origins.delete(origin);
      this.retire(e.dispatcher);
    }
  }

  /**
   * TLS client settings per origin (the nodes' `tls`; origins not named: the system's CAs). An
   * origin whose settings changed gets a new pool for its next request, so no socket made under
   * the old settings is used again.
   */
  setTlsPerOrigin(perOrigin: ReadonlyMap<string, TlsSettings>): void {
    this.tlsPerOrigin = perOrigin;
    for (const [origin, e] of this.origins) {
      if (isDeepStrictEqual(e.tls, perOrigin.get(origin))) continue;
      this.origins.delete(origin);
      this.retire(e.dispatcher);
    }
    for (const origin of [...this.expiries.origins()])
      if (!this.origins.has(origin) && !this.perOrigin.has(origin)) this.expiries.forget(origin);
  }

  /** Unix seconds: the earliest certificate expiry the origin's newest TLS handshake showed. */
  certExpiry(origin: string): number | undefined {
    return this.expiries.get(origin);
  }

  /**
   * Starts a fresh handshake with the origin, on a connection of its own, when its certificate is
   * due a re-check (certRecheck.ts); the probes' keep-alive connections are left alone.
   */
  recheckCertificate(origin: string): void {
    if (this.state !== 'open') return;
    this.expiries.recheck(origin, () =>
      originConnector({
        shared: this.freshConnect,
        base: this.connectBase,
        settings: this.tlsPerOrigin.get(origin),
        fresh: true,
        onExpiry: (s) => this.expiries.note(origin, s),
      }),
    );
  }

  /**
   * How long a socket may sit idle when its server names no Keep-Alive timeout (hyper, in front of
   * the real nodes, names none; a server that does is followed up to this or 2 minutes, whichever
   * is longer). Past it the socket closes and the origin's next request connects anew: a node
   * polled every minute would connect for every poll under undici's 30 s. For origins made from
   * now on: an origin made before keeps its time until its socket closes, and is then made anew.
   */
  keepIdleFor(ms: number): void {
    this.options = { ...this.options, keepAliveTimeout: ms, keepAliveMaxTimeout: Math.max(ms, SERVER_KEEP_MAX_MS) };
  }

  /** How the pool is fitted now (diagnostics): the idle time of origins made from now on, and `origin`'s sockets. */
  fit(origin: string): { idleKeepMs: number; sockets: number } {
    return {
      idleKeepMs: this.options.keepAliveTimeout ?? IDLE_KEEP_MIN_MS,
      sockets: this.connectionsOf(new URL(origin).origin),
    };
  }

  /**
   * Drops the finished requests idle dispatchers still list (queueTrim.ts). Returns how many, or
   * undefined when undici's fields were not found (nothing was touched).
   */
  trimFinished(): number | undefined {
    let dropped = 0;
    for (const { dispatcher } of this.origins.values()) {
      const n = trimFinished(dispatcher);
      if (n === undefined) return undefined;
      dropped += n;
    }
    return dropped;
  }

  override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    if (this.state !== 'open')
      throw this.state === 'closed' ? new errors.ClientClosedError() : new errors.ClientDestroyedError();
    const origin = opts.origin instanceof URL ? opts.origin.origin : String(opts.origin);
    const e = this.origins.get(origin) ?? this.add(origin);
    return e.dispatcher.dispatch(opts, handler);
  }

  override close(): Promise<void>;
  override close(callback: () => void): void;
  override close(callback?: () => void): Promise<void> | void {
    if (this.state === 'open') this.state = 'closed';
    clearInterval(this.trimTimer);
    return settle(
      this.all((d) => d.close()),
      callback,
    );
  }

  override destroy(err: Error | null, callback: () => void): void;
  override destroy(callback: () => void): void;
  override destroy(err: Error | null): Promise<void>;
  override destroy(): Promise<void>;
  override destroy(a?: Error | null | (() => void), b?: () => void): Promise<void> | void {
    const err = typeof a === 'function' ? null : (a ?? null);
    this.state = 'destroyed';
    clearInterval(this.trimTimer);
    return settle(
      this.all((d) => d.destroy(err)),
      typeof a === 'function' ? a : b,
    );
  }

  private connectionsOf(origin: string): number {
    return Math.max(1, this.perOrigin.get(origin) ?? 1);
  }

  private add(origin: string): OriginEntry {
    const connections = this.connectionsOf(origin);
    const tls = this.tlsPerOrigin.get(origin);
    // Plain HTTP has no certificate to read: the shared connector as it is, not a wrapper (three
    // closures kept per origin, ~2 MB at 10,000 nodes).
    const plain = tls === undefined && origin.startsWith('http:');
    const connect = plain
      ? this.sharedConnect
      : originConnector({
          shared: this.sharedConnect,
          base: this.connectBase,
          settings: tls,
          onExpiry: (s) => this.expiries.note(origin, s),
        });
    const options = { ...this.options, connect };
    const d =
      connections === 1 ? new OriginClient(origin, options) : new OriginPool(origin, { ...options, connections });
    const e: OriginEntry = { origin, dispatcher: d, connections, open: 0, tls };
    d.entry = e;
    d.sink = this;
    this.origins.set(origin, e);
    return e;
  }

  /** An origin's connection event (OriginClient, OriginPool): counted, and told as the NodeDispatcher's own. */
  onOriginEvent(entry: object, event: ConnectionEvent, args: unknown[]): void {
    const e = entry as OriginEntry;
    const [o, targets, error] = args as [URL, Dispatcher[], Error | undefined];
    if (event === 'drain') {
      this.emit('drain', o);
      return;
    }
    if (event === 'connect') e.open++;
    else {
      if (event === 'disconnect') e.open = Math.max(0, e.open - 1);
      this.dropIfUnused(e.origin, e);
    }
    (this.emit as (event: string, ...args: unknown[]) => boolean)(event, o, [this, ...targets], error);
  }

  /**
   * As undici's Agent: an origin's dispatcher goes once no socket is left, so origins seen once (receivers, removed
   * nodes) are not kept.
   */
  private dropIfUnused(origin: string, e: OriginEntry): void {
    if (e.open > 0 || this.origins.get(origin) !== e) return;
    this.origins.delete(origin);
    // Retired, not only closed: a request still queued on it keeps it alive, and destroy() must reach it.
    if (!e.dispatcher.destroyed) this.retire(e.dispatcher);
  }

  private retire(d: Client | Pool): void {
    this.retired.add(d);
    void d
      .close()
      .catch(() => undefined)
      .finally(() => this.retired.delete(d));
  }

  private all(f: (d: Client | Pool) => Promise<void>): Promise<unknown> {
    const ds = [...[...this.origins.values()].map((e) => e.dispatcher), ...this.retired];
    this.origins.clear();
    return Promise.all(ds.map((d) => f(d).catch(() => undefined)));
  }
}

function settle(p: Promise<unknown>, callback: (() => void) | undefined): Promise<void> | void {
  if (!callback) return p.then(() => undefined);
  void p.then(() => callback());
}

export function createDispatcher(opts: DispatcherOptions = {}): NodeDispatcher {
  return new NodeDispatcher(opts);
}

/**
 * How long an idle node socket is kept: past the longest gap between two of a node's polls (its
 * interval, and its timeout for a poll that took long), with a margin, within 30 s and 10 minutes.
 */
export function idleKeepMs(nodes: Iterable<{ intervalMs: number; timeoutMs: number }>): number {
  let longest = 0;
  for (const n of nodes) longest = Math.max(longest, n.intervalMs + n.timeoutMs);
  return Math.min(IDLE_KEEP_MAX_MS, Math.max(IDLE_KEEP_MIN_MS, longest + 5_000));
}

/** The TLS settings of each origin that nodes give some (config checks make nodes of one origin agree). */
export function tlsPerOrigin(nodes: Iterable<{ url: string; tls?: TlsSettings }>): Map<string, TlsSettings> {
  const out = new Map<string, TlsSettings>();
  for (const n of nodes) if (n.tls) out.set(new URL(n.url).origin, n.tls);
  return out;
}

/** Nodes per origin of their URLs (credentials and paths aside): the sockets each origin may hold. */
export function nodesPerOrigin(urls: Iterable<string>): Map<string, number> {
  const out = new Map<string, number>();
  for (const url of urls) {
    const origin = new URL(url).origin;
    out.set(origin, (out.get(origin) ?? 0) + 1);
  }
  return out;
}
