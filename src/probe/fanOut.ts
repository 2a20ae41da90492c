// Runs the fan-out probes: each interval, one call per entity (a watched address, a network),
// through the up nodes of the entity's own network (servingNodes.ts), spread over them by a hash
// of the entity, at most `perNode` calls in flight per node, and on another node when one fails.
// Its own HTTP client and in-flight accounting: fan-out reads never take a node poll's socket or
// place in the scheduler's bound, so they cannot delay node polling.
import type { EntityReadView, FailureReason, FanOutEntity, FleetSnapshot, NodeTarget } from '../domain.js';
import type { ExporterConfig } from '../config/exporterConfig.js';
import { SYSTEM_CLOCK } from '../clock/clock.js';
import type { HttpClient } from '../http/client.js';
import type { Logger } from '../logger.js';
import { ProbeError } from '../probes/errors.js';
import { fanOutProbes } from '../probes/registry.js';
// The watch kinds' reads join the probe registry with their kinds: loaded wherever fan-out runs.
import '../watch/kinds/registry.js';
import type { FanOutProbe, RpcParams } from '../probes/types.js';
import type { EntityReads } from '../state/entityReads.js';
import { endpointFor, type Endpoint, type ProbeRequest } from './http.js';
import { prepareRpcPost, rpcCall, rpcRequestOf, rpcTail } from './jsonrpc.js';
import { scrubNodeData } from './nodeText.js';
import { servingNodes, type ServingNode } from './servingNodes.js';
import { Slots } from './slots.js';

export interface FanOutOptions {
  /** A client of its own (see above). */
  client: HttpClient;
  reads: EntityReads;
  config(): ExporterConfig;
  /** The fleet as last seen (nodes up, namespaces, heights). */
  fleet(): FleetSnapshot;
  logger: Logger;
  /** Calls in flight per node (real nodes serve at most 100 at once). Default 8. */
  perNode?: number;
  /** Calls in flight in all. Default 64. */
  concurrency?: number;
  /** Nodes tried per read. Default 3. */
  attempts?: number;
  /** How often due probes are looked for. Default 1 s. */
  tickMs?: number;
  now?: () => number;
}

/** Time between the batches a round's reads start in. */
const PACE_MS = 250;

type CallResult = { ok: true; data: unknown } | { ok: false; reason: FailureReason; message: string };

/** A node's requests, built once per node target: a fan-out call only adds its body. */
interface NodeRequests {
  /** The target they were built for: another target of the same name (a reload) builds them again. */
  target: NodeTarget;
  maxBytes: number;
  endpoint: Endpoint;
  posts: Map<string, ProbeRequest>;
}

/** Entries beyond this in the tails cache start it over (entries removed by reloads leave with it). */
const MAX_TAILS = 200_000;

export class FanOutReader {
  private timer: NodeJS.Timeout | undefined;
  private readonly due = new Map<string, number>();
  private readonly rounds = new Map<string, Promise<void>>();
  private readonly slots: Slots;
  /** By node name. */
  private readonly requests = new Map<string, NodeRequests>();
  /** By method and entity key; the params they were built from are kept to tell a change. */
  private readonly tails = new Map<string, { params: RpcParams; tail: string }>();
  private readonly now: () => number;
  private stopped = false;

  constructor(private readonly opts: FanOutOptions) {
    this.slots = new Slots(opts.perNode ?? 8, opts.concurrency ?? 64);
    this.now = opts.now ?? (() => SYSTEM_CLOCK.mono());
  }

  /** The most calls this reader had in flight to one node at once. */
  get maxInFlightPerNode(): number {
    return this.slots.maxPerKey;
  }

  start(): void {
    const tick = () => {
      this.tick();
      if (!this.stopped) this.timer = setTimeout(tick, this.opts.tickMs ?? 1_000).unref();
    };
    tick();
  }

  /** Stops starting rounds; resolves when the rounds in flight finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await Promise.all(this.rounds.values());
  }

  /** Starts the round of every probe that is due and not still reading its last round. */
  tick(): void {
    const now = this.now();
    const probes = fanOutProbes();
    const names = new Set(probes.map(([name]) => name));
    for (const name of this.due.keys()) {
      if (names.has(name)) continue;
      this.due.delete(name);
      this.opts.reads.drop(name);
    }
    // One snapshot for the rounds this tick starts, taken only when one starts: building one walks
    // the whole fleet, and the built-in probes (the watch's) are all due together.
    let fleet: FleetSnapshot | undefined;
    const fleetNow = () => (fleet ??= this.opts.fleet());
    for (const [name, probe] of probes) {
      if (this.rounds.has(name) || now < (this.due.get(name) ?? 0)) continue;
      this.due.set(name, now + probe.intervalMs(this.opts.config()));
      const round = this.round(name, probe, fleetNow()).finally(() => this.rounds.delete(name));
      this.rounds.set(name, round);
    }
  }

  /** Reads every entity of one probe once. */
  async round(name: string, probe: FanOutProbe, fleet = this.opts.fleet()): Promise<void> {
    const config = this.opts.config();
    const entities = probe.entities(config, fleet);
    this.opts.reads.sync(name, entities);
    if (entities.length === 0) return;
    const serving = servingNodes(fleet, new Map(config.nodes.map((t) => [t.name, t])));
    const polled = polledNetworks(fleet);
    // Until a node of its network was polled, nobody knows which nodes may serve: not a failed read.
    const kept = (e: FanOutEntity) => {
      const data = probe.keep ? this.opts.reads.get(name, e.key)?.data : undefined;
      return data !== undefined && probe.keep!(data);
    };
    const due = entities.filter((e) => polled.has(e.network) && !kept(e));
    // Started in batches over the first half of the interval, not as one burst: a burst of a
    // thousand reads held the event loop long enough to make node polls seconds late.
    const batches = Math.max(1, Math.min(due.length, Math.floor(probe.intervalMs(config) / 2 / PACE_MS)));
    const per = Math.ceil(due.length / batches);
    const reads: Array<Promise<void>> = [];
    for (let b = 0; b * per < due.length && !this.stopped; b++) {
      if (b > 0) await new Promise((r) => setTimeout(r, PACE_MS).unref());
      for (const e of due.slice(b * per, (b + 1) * per))
        reads.push(this.read(name, probe, e, serving.get(e.network) ?? [], config));
    }
    await Promise.all(reads);
  }

  private async read(
    name: string,
    probe: FanOutProbe,
    entity: FanOutEntity,
    nodes: ServingNode[],
    config: ExporterConfig,
  ): Promise<void> {
    if (nodes.length === 0) {
      this.opts.reads.failed(name, entity.key, 'connect');
      return;
    }
    const first = hashOf(entity.key) % nodes.length;
    let last: CallResult = { ok: false, reason: 'connect', message: '' };
    for (let a = 0; a < Math.min(this.opts.attempts ?? 3, nodes.length); a++) {
      const node = nodes[(first + a) % nodes.length]!;
      last = await this.slots.run(node.name, () => this.call(probe, entity, node, config));
      if (last.ok) {
        this.opts.reads.succeeded(name, entity.key, last.data, node.name, this.now());
        return;
      }
      this.opts.logger.debug(
        { probe: name, entity: entity.key, node: node.name, reason: last.reason },
        `fan-out read failed: ${last.message}`,
      );
    }
    this.opts.reads.failed(name, entity.key, last.reason);
  }

  private async call(
    probe: FanOutProbe,
    entity: FanOutEntity,
    node: ServingNode,
    config: ExporterConfig,
  ): Promise<CallResult> {
    const method = `${node.namespace}_${probe.method}`;
    const { endpoint, post } = this.requestOf(node.target, method, config);
    const params: RpcParams = probe.paramsFor ? probe.paramsFor(entity, node) : entity.params;
    const tail = probe.paramsFor ? rpcTail(method, params) : this.tailOf(entity, method);
    try {
      const answer = await rpcCall(this.opts.client, endpoint, rpcRequestOf(post, method, tail, probe.exactNumbers));
      if (!answer.ok)
        return {
          ok: false,
          reason: 'rpc_error',
          message: this.opts.client.secrets.scrub(`${method}: JSON-RPC error ${answer.code}: ${answer.message}`),
        };
      return {
        ok: true,
        data: scrubNodeData(probe.parse(answer.result, entity, { params, config }), endpoint.secrets),
      };
    } catch (err) {
      if (err instanceof ProbeError)
        return { ok: false, reason: err.reason, message: this.opts.client.secrets.scrub(err.message) };
      return { ok: false, reason: 'invalid_response', message: `unexpected error: ${(err as Error).name}` };
    }
  }

  private requestOf(
    target: NodeTarget,
    method: string,
    config: ExporterConfig,
  ): { endpoint: Endpoint; post: ProbeRequest } {
    const maxBytes = config.polling.maxResponseBytes;
    let r = this.requests.get(target.name);
    if (r?.target !== target || r.maxBytes !== maxBytes)
      this.requests.set(
        target.name,
        (r = { target, maxBytes, endpoint: endpointFor(target), posts: new Map<string, ProbeRequest>() }),
      );
    let post = r.posts.get(method);
    if (!post)
      r.posts.set(method, (post = prepareRpcPost(r.endpoint, method, { timeoutMs: target.timeoutMs, maxBytes })));
    return { endpoint: r.endpoint, post };
  }

  private tailOf(entity: FanOutEntity, method: string): string {
    const key = `${method}\u0000${entity.key}`;
    const kept = this.tails.get(key);
    if (kept && sameParams(kept.params, entity.params)) return kept.tail;
    if (this.tails.size >= MAX_TAILS) this.tails.clear();
    const tail = rpcTail(method, entity.params);
    this.tails.set(key, { params: entity.params, tail });
    return tail;
  }
}

/** The same params: the same array, or the same values (a copy of an entity keeps its request). */
function sameParams(a: RpcParams, b: RpcParams): boolean {
  return a === b || (a.length === b.length && a.every((x, i) => Object.is(x, b[i])));
}

/** Networks with a node whose every probe has finished once (its liveness and namespace are known). */
function polledNetworks(fleet: FleetSnapshot): Set<string> {
  const out = new Set<string>();
  for (const n of fleet.nodes) if (n.probes.every((p) => p.success !== undefined || !p.supported)) out.add(n.network);
  return out;
}

/** FNV-1a: a stable spread of entities over a network's nodes. */
function hashOf(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export type { EntityReadView };
