// What a probe is: one module (src/probes/<name>.ts) that owns its request (with JSON-RPC params),
// its parse, its data, how a success applies to what the exporter knows and a failure clears,
// and the metric families its values feed. A probe targets each node (scheduled per node, stored
// on the node) or each entity of a list (fan-out: one call per entity with the entity's params,
// e.g. per watched address, spread over the nodes of the entity's network).
import type {
  FanOutEntity,
  FleetSnapshot,
  NetworkSettings,
  NetworkView,
  NodeTarget,
  NodeValues,
  NodeView,
  PollingSettings,
  ProbeData,
} from '../domain.js';
import type { WatchSettings } from '../watch/types.js';

export type { FanOutEntity };
import type { NodeBudget } from './budget.js';

/** JSON-RPC params: positional, as real nodes take them. */
export type RpcParams = readonly unknown[];

/** A GET of a path under the node's base URL, or a JSON-RPC method called in the node's namespace. */
export type ProbeAsk =
  { kind: 'get'; path: string; accept: string } | { kind: 'rpc'; method: string; params?: RpcParams };

export interface ParseContext {
  /** What the node may make the exporter hold (polling settings, defaults filled in). */
  budget: NodeBudget;
}

/**
 * A family of one sample per entity of a network (labels network and `label`, e.g. `validator`,
 * `miner`, `account`, with the entity's id as value). Methods, so a family of any entity type fits.
 */
export interface EntityFamily<E> {
  per: 'entity';
  name: string;
  help: string;
  /** The label naming the entity. */
  label: string;
  entities(network: NetworkView): readonly E[] | undefined;
  id(entity: E): string;
  value(entity: E): number | undefined;
}

/**
 * A gauge family a node probe's values feed, one sample per node (labels node, network), per network
 * (network) or per entity of a network (network and the entity label). No value, no sample.
 */
export type ProbeFamily =
  | { per: 'node'; name: string; help: string; value(values: Readonly<NodeValues>, node: NodeView): number | undefined }
  | { per: 'network'; name: string; help: string; value(network: NetworkView): number | undefined }
  | EntityFamily<unknown>;

/** Keeps an entity family's types checked where it is declared. */
export function entityFamily<E>(f: EntityFamily<E>): ProbeFamily {
  return f;
}

export interface NodeProbe<D extends ProbeData = ProbeData> {
  target: 'node';
  request: ProbeAsk;
  /**
   * Its data is scrubbed of secrets where it is rendered instead of when kept (probe/nodeText.ts):
   * re-exposed series drop a sample holding a secret whole, since redacting a label value could
   * make two series one.
   */
  scrubbedWhenRendered?: true;
  /** The answer (body text for a GET, the JSON-RPC result) as the probe's data; throws a ProbeError. */
  parse(answer: unknown, ctx: ParseContext): D;
  /** Stores a success on the node; true when the answer shows a new process (restart, new build). */
  apply(node: NodeValues, data: D, at: number): boolean;
  /** Forgets what the probe provided, after a failure or when the node lacks it. */
  clear(node: NodeValues): void;
  /**
   * The families only this probe feeds, rendered by metrics/fleetText.ts. Height, liveness, identity
   * and the per-probe families come from several probes and are rendered there.
   */
  metrics: readonly ProbeFamily[];
}

/** A per-entity family of a fan-out probe: labels network, the entity's labels and its label. */
export interface FanOutFamily<D> {
  name: string;
  help: string;
  value(data: D, entity: FanOutEntity): number | undefined;
}

/** What a fan-out probe reads of the config (the whole config is one; these sections sit below it). */
export interface FanOutConfig {
  nodes: readonly NodeTarget[];
  /** The limits a read's answer is held to (e.g. polling.maxValidators). */
  polling: Pick<PollingSettings, 'maxValidators'>;
  networks: Readonly<Record<string, NetworkSettings>>;
  watch?: WatchSettings;
}

export interface FanOutProbe<D = unknown> {
  target: 'entities';
  /** The method called once per entity, with the entity's params. */
  method: string;
  /**
   * The entities to read now (from the config and the fleet as last seen). Return the same entity
   * objects while nothing changed: requests are built once per entity.
   */
  entities(config: FanOutConfig, fleet: FleetSnapshot): readonly FanOutEntity[];
  /** How often each entity is read. */
  intervalMs(config: FanOutConfig): number;
  /**
   * Fields of the result whose JSON numbers may exceed 2^53 (u128): read from the raw text,
   * exactly, as decimal strings.
   */
  exactNumbers?: readonly string[];
  /**
   * Data that never changes once read (a token's decimals): an entity whose last read answered
   * such data is not read again; one whose read failed is, at the next interval.
   */
  keep?(data: D): boolean;
  /** Params that depend on the node asked (e.g. its newest height); default: the entity's own. */
  paramsFor?(entity: FanOutEntity, node: { height?: number }): RpcParams;
  /** The JSON-RPC result as the probe's data; throws a ProbeError (the read fails, for this entity only). */
  parse(result: unknown, entity: FanOutEntity, call: { params: RpcParams; config: FanOutConfig }): D;
  metrics: readonly FanOutFamily<D>[];
}

export type Probe = NodeProbe | FanOutProbe;
