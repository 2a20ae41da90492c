// Public types of the ledger node simulator.

export type SimBuild = 'earliest' | 'staking' | 'current';

export const SIM_FAULTS = [
  'none',
  'proxy_502',
  'proxy_503',
  'proxy_504',
  'json_500',
  'hang',
  'garbage_json',
  'slow_body',
  'stalled',
  'flapping',
  'down',
] as const;
export type SimFault = (typeof SIM_FAULTS)[number];

export function isSimFault(v: unknown): v is SimFault {
  return typeof v === 'string' && (SIM_FAULTS as readonly string[]).includes(v);
}

export interface SimNodeSpec {
  name: string;
  /** Nodes of one network share one chain. Default 'simnet'. */
  network?: string;
  build?: SimBuild;
  /** Method namespace word; default by build ('clw' for earliest, else 'claw'). */
  namespace?: string;
  version?: string;
  /** Blocks behind its network. */
  heightOffset?: number;
  peers?: number;
  fault?: SimFault;
  /** This node's view of the validator set lacks the last N validators (a node on a stale set). */
  missingValidators?: number;
  /** Milliseconds each JSON-RPC request takes (makes concurrency observable). Default 0. */
  latencyMs?: number;
}

export interface SimFleetOptions {
  host?: string;
  layout?: 'port-per-node' | 'shared-port';
  /** shared-port: the one port (0 = ephemeral). port-per-node: ignored (ephemeral ports). */
  port?: number;
  blockTimeMs?: number;
  /** Port of the HTTP control API (0 = ephemeral); absent or false = no control API. */
  controlPort?: number | false;
  /** Where the control API listens; default `host` (a container's demo publishes it on 0.0.0.0). */
  controlHost?: string;
  /** Period of one healthy + one failing phase of the `flapping` fault. Default 6000. */
  flapPeriodMs?: number;
  /** slow_body: bytes written per tick and tick length. Defaults 8 bytes / 500 ms. */
  slowBodyBytes?: number;
  slowBodyTickMs?: number;
  /**
   * Idle keep-alive of each node's server, in ms. Default Node's (5 s); axum (hyper) keeps idle
   * connections open, so a fleet polled every 15 s reuses its sockets only with a longer value.
   */
  keepAliveTimeoutMs?: number;
  /** Blocks per epoch of every network (real nodes: 100); small values make epochs quick in tests. */
  epochBlocks?: number;
  /** Blocks from unbonding to release (real nodes: 201,600, about 7 days). */
  unbondingBlocks?: number;
  /** Clock in ms since the epoch; injectable so tests can move time without waiting. */
  now?: () => number;
}
