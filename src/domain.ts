// Domain types shared by every stage of the pipeline:
// config -> schedule -> probe -> state -> (metrics view, alerts, evidence) -> HTTP.
import type { UpstreamAnswer } from './exposition/upstream.js';
import type { WatchSnapshot } from './watch/types.js';

// The parsed text format is the exposition module's own (it must not depend on this file).
export type { MetricFamily, MetricType, Sample } from './exposition/types.js';
export type { UpstreamAnswer } from './exposition/upstream.js';

/** The node probes a config may name (the `probe` label values); each is a module of src/probes/. */
export const PROBE_NAMES = ['health', 'metrics', 'blockNumber', 'miningStats', 'validators'] as const;
export type ProbeName = (typeof PROBE_NAMES)[number];

export const FAILURE_REASONS = ['timeout', 'connect', 'http_5xx', 'http_4xx', 'invalid_response', 'rpc_error'] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

/** Namespace words seen in the field, in the order `auto` tries them (newest builds first). */
export const KNOWN_NAMESPACES = ['claw', 'chain', 'clw'] as const;

/** A header value sent to a node: literal (after ${VAR} expansion) or read from a file. */
export type SecretValue = { value: string } | { file: string };

/** TLS client settings of a node (Prometheus's tls_config); file paths absolute. */
export interface TlsSettings {
  /** CA certificates (PEM) the node's certificate must chain to, instead of the system's. */
  caFile?: string;
  /** Client certificate and its key (PEM) for mutual TLS; set together. */
  certFile?: string;
  keyFile?: string;
  /** Name the certificate must carry (and sent as SNI), instead of the URL's host. */
  serverName?: string;
  /** Accept any certificate: no chain or name check (the expiry is still read). */
  insecureSkipVerify?: boolean;
}

/** One configured node, with defaults already applied. */
export interface NodeTarget {
  name: string;
  /** Base URL as configured; may hold credentials and a path prefix. Never log it: use `redactUrl`. */
  url: string;
  network: string;
  labels: Record<string, string>;
  intervalMs: number;
  timeoutMs: number;
  /** 'auto' or a fixed namespace word. */
  rpcNamespace: string;
  probes: ProbeName[];
  /** Extra request headers (nodes behind an authenticating proxy). Values are secrets. */
  headers: Record<string, SecretValue>;
  /** TLS client settings for an https URL; absent: the system's CAs, the URL's host. */
  tls?: TlsSettings;
}

/** Decimals of a network's token when the config names none (real nodes use 9). */
export const DEFAULT_DECIMALS = 9;

/** Blocks per epoch when the config names none (real nodes: 100). */
export const DEFAULT_EPOCH_BLOCKS = 100;

export interface NetworkSettings {
  /** Decimals of the native token's base units (9 on real nodes). */
  decimals: number;
  /** Blocks per epoch, for validators and miners alike; default DEFAULT_EPOCH_BLOCKS. */
  epochBlocks?: number;
}

export interface EvidenceSettings {
  dir: string;
  maxBytes: number;
  maxAgeDays: number;
}

export interface AgentPlatformSettings {
  baseUrl: string;
  apiKeyEnv: string;
  apiKeyFile?: string;
  intervalMs: number;
  timeoutMs: number;
}

export interface PollingSettings {
  /** At most this many probe requests in flight across the fleet. */
  concurrency: number;
  /** Cap on any response body we read from a node. */
  maxResponseBytes: number;
  /** Per-node budget: upstream (/metrics) series kept. */
  maxUpstreamSeries: number;
  // The rest of the per-node budget (config/sections/polling.ts); a resolved config sets them
  // all, absent means the default (probe/budget.ts).
  maxUpstreamBytes?: number;
  maxUpstreamFamilies?: number;
  maxUpstreamHelpChars?: number;
  maxValidators?: number;
}

// The resolved config as a whole, which composes these with each feature's own settings, is
// ExporterConfig (config/exporterConfig.ts).

export interface ListenAddress {
  host: string;
  port: number;
}

// ---- What probes learn ----

/** GET /health, tolerant: every field is optional. */
export interface HealthData {
  status?: string;
  version?: string;
  chainId?: string;
  genesisHash?: string;
  height?: number;
  epoch?: number;
  peerCount?: number;
  mempoolSize?: number;
  lastBlockAgeSecs?: number;
  uptimeSecs?: number;
}

export interface ValidatorInfo {
  address: string;
  /** Base units, exact. */
  stake: bigint;
  weight?: number;
  agentScore?: number;
}

export interface MiningStats {
  totalMiners: number;
  activeMiners: number;
  /** Base units, exact. */
  currentBlockReward: bigint;
  miningUpgradeHeight: number;
  upgraded: boolean;
}

/** A probe's successful answer as its module parsed it; each probe's own data type narrows it. */
export interface ProbeData {
  probe: string;
  value: unknown;
}

/** What the probes last learnt about a node; each field is owned by the probe module (src/probes/) that stores it. */
export interface NodeValues {
  health?: HealthData;
  blockNumber?: number;
  mining?: MiningStats;
  validators?: ValidatorInfo[];
  upstream?: UpstreamAnswer;
  /** Bumped on every metrics success or failure, so views can cache per-version work. */
  upstreamVersion: number;
  /** Samples of the last /metrics answer left out by the per-node budget. */
  upstreamDropped?: number;
  /** /metrics answers cut by the per-node budget since the node was added. */
  upstreamTruncations?: number;
  /** Identity of the process behind the URL, kept across failures to notice restarts. */
  process?: { version?: string; startedAt?: number };
  /** Unix seconds: earliest expiry in the certificate chain of the node's latest TLS connection. */
  tlsCertExpirySeconds?: number;
}

/** The request and answer behind a failed probe, for evidence records. */
export interface FailedResponse {
  /** e.g. 'GET /health' or 'POST claw_getValidators' */
  method: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Uint8Array;
  /** Only the start of the body arrived (cut at the size cap, or it failed midway). */
  truncated?: boolean;
}

/** Result of one probe run against one node. */
export type ProbeResult =
  | { kind: 'ok'; probe: ProbeName; startedAt: number; durationMs: number; data: ProbeData; namespace?: string }
  | {
      kind: 'failed';
      probe: ProbeName;
      startedAt: number;
      durationMs: number;
      reason: FailureReason;
      /** Safe to log: never holds credentials. */
      message: string;
      httpStatus?: number;
      /** What the node answered, kept for evidence when it answered with a status. */
      response?: FailedResponse;
    }
  | { kind: 'unsupported'; probe: ProbeName; startedAt: number; durationMs: number; message: string };

// ---- What the pipeline shows: one FleetSnapshot per scrape, evaluation or page ----

export interface ProbeView {
  probe: ProbeName;
  supported: boolean;
  /** Undefined until the probe first ran. */
  success?: boolean;
  durationSeconds?: number;
  lastSuccessSeconds?: number;
  failures: Record<FailureReason, number>;
  consecutiveFailures: number;
  backingOff: boolean;
}

export interface NodeView {
  name: string;
  /** The node state's revision: the same revision, the same view (lagBlocks and probes' backingOff aside). */
  revision?: number;
  network: string;
  labels: Record<string, string>;
  namespace?: string;
  up: boolean;
  health?: HealthData;
  /** From /health, else from blockNumber. */
  height?: number;
  lagBlocks?: number;
  validatorsCount?: number;
  minersActive?: number;
  probes: ProbeView[];
  /** What the probes last stored on the node, read by the per-node families of each probe module. */
  values?: Readonly<NodeValues>;
}

export interface ValidatorView {
  address: string;
  stakeTokens: number;
  weight?: number;
  agentScore?: number;
}

export interface NetworkView {
  network: string;
  decimals: number;
  nodes: number;
  nodesUp: number;
  heightMax?: number;
  heightMin?: number;
  versions: number;
  /** Node whose chain values (validators, mining) are shown: the node up with the highest height. */
  sourceNode?: string;
  validators?: { list: ValidatorView[]; totalStakeTokens: number };
  /** 1 when nodes up disagree on the validator set; undefined when fewer than one reports. */
  validatorSetMismatch?: 0 | 1;
  mining?: {
    miners: number;
    active: number;
    rewardTokens: number;
    upgradeHeight: number;
    upgraded: boolean;
    blocksUntilUpgrade: number;
  };
}

/** One entity a fan-out probe reads (a watched address, a network): its call's params and its series' labels. */
export interface FanOutEntity {
  /** Unique within the probe: what its read state is kept under. */
  key: string;
  /** Only nodes of this network serve it. */
  network: string;
  /** The label naming the entity (validator, miner, account) and its value (the address). */
  label: string;
  id: string;
  /** Labels between network and the entity label (e.g. the watch entry's `name`). */
  labels?: Readonly<Record<string, string>>;
  /** The JSON-RPC params of its call. */
  params: readonly unknown[];
}

/** How reading one entity goes, and what its last successful read answered. */
export interface EntityReadView {
  entity: FanOutEntity;
  /** The probe's data from the last read; absent when it failed or none finished yet. */
  data?: unknown;
  /** ms since the epoch. */
  lastSuccessAt?: number;
  consecutiveFailures: number;
  failures: Record<FailureReason, number>;
  /** The node that answered the last successful read. */
  servedBy?: string;
}

export interface FleetSnapshot {
  nodes: NodeView[];
  networks: NetworkView[];
  /** Each fan-out probe's reads, by probe name; absent when none runs. */
  fanOut?: ReadonlyMap<string, readonly EntityReadView[]>;
  /** The operator's own validators, miners and accounts (the `watch:` section); absent without one. */
  watch?: WatchSnapshot;
  /**
   * How far the wall clock is ahead of the monotonic one the snapshot's times are on (clock.ts
   * wallOffset): a time exported as a Unix timestamp is the time plus this. Absent: 0.
   */
  wallOffsetMs?: number;
}
