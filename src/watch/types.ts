// What the `watch:` section reads about the operator's own validators, miners and accounts, as
// the rest of the pipeline sees it (metrics view, alert engine, status page, /api/v1/watch).
// Every chain value is optional: absent means "not known yet" (never read, or the last read
// failed), which alerts treat as "no change" so a restart, reload or node switch decides nothing.

/** A kind's word (`validator`, `miner`, ...): its address label too; the registered kinds are in kinds/registry.ts. */
export type WatchKind = string;

/**
 * One configured watch entry, defaults applied. `address`: 64 lowercase hex characters. The fields
 * beyond the first four are its kind's settings (kinds/<kind>.ts resolves them; a kind registered
 * at run time adds its own beside them).
 */
export interface WatchEntry {
  kind: WatchKind;
  name: string;
  address: string;
  network: string;
  /** validators: warn when own weight is within this fraction of the lowest seat (0.1 = 10%). */
  seatMarginBelow?: number;
  /** validators: the commission (basis points) it should charge. */
  commissionBps?: number;
  /** accounts: tokens (network decimals). */
  minBalance?: number;
  /** delegators: a validator delegated to charging more (basis points) alerts. */
  maxCommissionBps?: number;
  /** agents: a total score (basis points, 0..10000) below it alerts. */
  minScore?: number;
  /** accounts: custom tokens held (ids 64 hex); minBalance in the token's own decimals. */
  tokens?: ReadonlyArray<{ tokenId: string; minBalance?: number }>;
  /** accounts: what a spender may move of a token; above `max` (token's decimals) alerts. */
  allowances?: ReadonlyArray<{ spender: string; tokenId: string; max: number }>;
  /** services (address = the provider): only services of this type. */
  serviceType?: string;
  /** services: GET each registered endpoint. */
  probeEndpoint?: boolean;
  /** services: endpoints at loopback, private, link-local or metadata addresses may be probed. */
  allowPrivateEndpoints?: boolean;
}

/** The `watch:` section, resolved: every entry of every kind, in config order. */
export interface WatchSettings {
  intervalMs: number;
  entries: WatchEntry[];
}

/** How reading an entry goes, whatever its kind. */
export interface WatchReadView {
  /** Seconds since the epoch of the last complete successful read. */
  lastSuccessSeconds?: number;
  /** Reads failed in a row (0 after a success). */
  consecutiveFailures: number;
  /** Failed reads by reason (the probes' FailureReason words), since the entry was added. */
  failures: Record<string, number>;
  /** The node that answered the last successful read. */
  servedBy?: string;
  intervalMs: number;
}

export interface WatchedValidatorView extends WatchEntry, WatchReadView {
  kind: 'validator';
  /** getValidatorDetail answered non-null (has stake). */
  registered?: boolean;
  active?: boolean;
  /** 1 = heaviest; only while active. */
  rank?: number;
  /** Size of the active set. */
  setSize?: number;
  stakeTokens?: number;
  weight?: number;
  agentScore?: number;
  commissionRatio?: number;
  jailed?: boolean;
  /** Paid in the newest block read; false when active and unpaid (offline this epoch). */
  rewarded?: boolean;
  /** The height of the newest block whose rewards were read. */
  rewardsHeight?: number;
  epochBlocks?: { expected: number; produced: number; signed: number };
  /** (own weight - lowest active weight) / own weight while the set is full; 1 while seats are free. */
  seatMarginRatio?: number;
}

export interface WatchedMinerView extends WatchEntry, WatchReadView {
  kind: 'miner';
  registered?: boolean;
  active?: boolean;
  consecutiveMisses?: number;
  epochsSinceCheckin?: number;
  /** Check-ins among the last 12 epochs. */
  attendanceEpochs?: number;
  /** 1, 0.8, 0.5 or 0, as the node pays it. */
  rewardMultiplier?: number;
  reputationRatio?: number;
  pendingRewardsTokens?: number;
  /** The network's current epoch when read. */
  epoch?: number;
}

export interface WatchedAccountView extends WatchEntry, WatchReadView {
  kind: 'account';
  balanceTokens?: number;
  unbondingPendingTokens?: number;
  unbondingClaimableTokens?: number;
  /** Blocks until the next pending unbonding entry is released; absent when nothing is pending. */
  nextReleaseBlocks?: number;
  /** One per configured token (accounts[].tokens), in config order. */
  tokenBalances?: TokenBalanceView[];
  /** One per configured allowance, in config order. */
  tokenAllowances?: TokenAllowanceView[];
}

/** A token as getTokenInfo answered it; `known: false` when it answered null (no such token). */
export type TokenInfoView = { known: false } | { known: true; symbol: string; decimals: number; name: string };

export interface TokenBalanceView {
  tokenId: string;
  info?: TokenInfoView;
  /** In the token's own decimals; absent until both its balance and its info were read. */
  balanceTokens?: number;
  minBalance?: number;
}

export interface TokenAllowanceView {
  tokenId: string;
  spender: string;
  info?: TokenInfoView;
  allowanceTokens?: number;
  max: number;
}

/** A service of a watched provider, as its registry entry says and its endpoint answered. */
export interface ServiceView {
  serviceType: string;
  /** In the registry at the last read (false: seen before, gone now; undefined: seen before, registry not read). */
  registered?: boolean;
  active?: boolean;
  endpoint?: string;
  /** With probeEndpoint: the last probe of its endpoint. */
  probe?: EndpointProbeView;
}

export interface EndpointProbeView {
  up: boolean;
  /** Why not up, in words ("endpoint refused: private address 10.0.0.5", "HTTP 503", "timeout"). */
  problem?: string;
  /** Refused before any request (not http/https, a private address): nothing was sent. */
  refused?: boolean;
  status?: number;
  durationSeconds?: number;
  /** Unix seconds when the https endpoint's certificate expires. */
  certExpirySeconds?: number;
}

export interface WatchedProviderView extends WatchEntry, WatchReadView {
  kind: 'provider';
  /** Services of the provider (of its type), registered now or seen before, by service type. */
  services?: ServiceView[];
}

/** One delegation of a watched delegator, as read (exact amount) and placed against the active set. */
export interface DelegationView {
  validator: string;
  /** Base units, exact, as a decimal string (alerts compare these; JSON keeps them); `tokens` for metrics. */
  amount: string;
  tokens: number;
  commissionRatio: number;
  /** In the active set read for the network; absent until the set was read. */
  active?: boolean;
  /** Paid in the newest block read; false when active and unpaid (offline this epoch); absent otherwise. */
  rewarded?: boolean;
}

export interface WatchedDelegatorView extends WatchEntry, WatchReadView {
  kind: 'delegator';
  /** Absent until the delegations were read (or while the last read failed). */
  delegations?: DelegationView[];
  /** The height of the newest block whose rewards were read. */
  rewardsHeight?: number;
}

export interface WatchedAgentView extends WatchEntry, WatchReadView {
  kind: 'agent';
  registered?: boolean;
  /** The agent's name on chain. */
  agentName?: string;
  registeredAt?: number;
  /** total and the five dimensions, as ratios (bps / 10000). */
  scores?: Record<string, number>;
  /** decay_factor / 10000. */
  decayRatio?: number;
  attestations?: number;
  attestationScoreSum?: number;
  /** Epochs until the decay factor halves next (every 2,880 epochs since registration). */
  epochsToNextHalving?: number;
  /** Blocks per epoch of the entry's network (for the words: about how long that is). */
  epochBlocks?: number;
}

/** Any entry's view, whatever its kind: the entry, how reading it goes, and its kind's values. */
export interface WatchedEntryView extends WatchEntry, WatchReadView {}

/** The built-in kinds' views, typed. */
export type WatchedView = WatchedValidatorView | WatchedMinerView | WatchedAccountView;

/** The state of an entry in words, as the status page and /api/v1/watch show it. */
export interface WatchState {
  /** The row's pill: down = losing money now, degraded = at risk (status/types.ts StatusKind). */
  status: 'up' | 'degraded' | 'down' | 'unknown';
  text: string;
}

/** FleetSnapshot.watch: the entries this exporter (this shard) reads, of every kind, in config order. */
export interface WatchSnapshot {
  entries: WatchedEntryView[];
}

interface BuiltInViews {
  validator: WatchedValidatorView;
  miner: WatchedMinerView;
  account: WatchedAccountView;
  delegator: WatchedDelegatorView;
  agent: WatchedAgentView;
  provider: WatchedProviderView;
}

/** The entries of one kind, in config order. */
export function entriesOf<K extends keyof BuiltInViews>(w: WatchSnapshot | undefined, kind: K): BuiltInViews[K][];
export function entriesOf(w: WatchSnapshot | undefined, kind: string): WatchedEntryView[];
export function entriesOf(w: WatchSnapshot | undefined, kind: string): WatchedEntryView[] {
  return (w?.entries ?? []).filter((e) => e.kind === kind);
}
