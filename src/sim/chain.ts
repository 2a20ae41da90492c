// One simulated chain per network. Heights derive from the clock (no timers), and every
// account, validator and miner derives from the network name, so nodes of one network agree.
import { Ledger } from './ledger.js';
import { ledgerSeed } from './ledger-seed.js';
import { hex32, randInt, seededRandom, hash32 } from './rng.js';

export const NATIVE_DECIMALS = 9;
const UNIT = 10n ** BigInt(NATIVE_DECIMALS);
/** Blocks per epoch on real networks, and the unbonding period (~7 days at 3 s blocks). */
export const DEFAULT_EPOCH_BLOCKS = 100;
export const DEFAULT_UNBONDING_BLOCKS = 201_600;

export interface SimChainOptions {
  blockTimeMs: number;
  startMs: number;
  /** The clock the ledger follows (its tip is the height at this clock's time). */
  now?: () => number;
  epochBlocks?: number;
  unbondingBlocks?: number;
}

export interface ValidatorRecord {
  address: string;
  stake: bigint;
  selfStake: bigint;
  weight: number;
  agentScore: number;
  commission: number; // basis points
}
export interface DelegationRecord {
  delegator: string;
  validator: string;
  amount: bigint;
}
export interface MinerRecord {
  address: string;
  registeredAt: number;
  totalRewards: bigint;
}
export interface AgentRecord {
  address: string;
  name: string;
  registeredAt: number;
  serviceType: string;
}
export interface TokenRecord {
  tokenId: string;
  name: string;
  symbol: string;
  decimals: number;
  totalSupply: bigint;
  issuer: string;
}
export interface Receipt {
  txHash: string;
  blockHeight: number;
  transactionIndex: number;
  success: boolean;
}

const SERVICE_TYPES = ['inference', 'storage', 'compute', 'oracle'] as const;
const MAX_RECEIPTS = 10_000;

export class SimChain {
  readonly network: string;
  readonly chainId: string;
  readonly genesisHash: string;
  readonly blockTimeMs: number;
  /** Clock time of block 0. */
  readonly genesisMs: number;
  readonly validators: ValidatorRecord[];
  readonly delegations: DelegationRecord[];
  readonly miners: MinerRecord[];
  readonly agents: AgentRecord[];
  readonly tokens: TokenRecord[];
  readonly miningUpgradeHeight: number;
  readonly baseBlockReward: bigint;
  readonly genesisSupply: bigint;
  readonly faucetEnabled: boolean;
  readonly epochBlocks: number;
  readonly unbondingBlocks: number;
  /** The height at the simulation's start: the ledger's state begins here. */
  readonly startHeight: number;
  private readonly now: () => number;
  private readonly balances = new Map<string, bigint>();
  private readonly receipts = new Map<string, Receipt>();
  private readonly activeBase: number;
  private _ledger: Ledger | undefined;

  constructor(network: string, opts: SimChainOptions) {
    this.network = network;
    this.blockTimeMs = opts.blockTimeMs;
    this.epochBlocks = Math.max(1, Math.floor(opts.epochBlocks ?? DEFAULT_EPOCH_BLOCKS));
    this.unbondingBlocks = Math.max(1, Math.floor(opts.unbondingBlocks ?? DEFAULT_UNBONDING_BLOCKS));
    this.now = opts.now ?? Date.now;
    const rand = seededRandom(`chain:${network}`);
    this.chainId = `claw-${network}`;
    this.genesisHash = hex32(`genesis:${network}`);
    // Chains start well past genesis, as real networks do when a monitor first sees them.
    const startHeight = randInt(rand, 20_000, 200_000);
    this.startHeight = startHeight;
    this.genesisMs = opts.startMs - startHeight * opts.blockTimeMs;
    this.miningUpgradeHeight = startHeight + randInt(rand, 5_000, 50_000);
    this.baseBlockReward = BigInt(randInt(rand, 5, 50)) * UNIT;
    this.genesisSupply = BigInt(randInt(rand, 500, 2_000)) * 1_000_000n * UNIT;
    this.faucetEnabled = !/mainnet/i.test(network);

    // The draws keep this order: every run of a network yields the same chain.
    ({ validators: this.validators, delegations: this.delegations } = drawValidators(rand, network));
    this.miners = drawMiners(rand, network, startHeight);
    this.activeBase = Math.floor(this.miners.length * (0.6 + rand() * 0.3));
    this.agents = drawAgents(rand, network, startHeight);
    this.tokens = drawTokens(rand, network, this.agents);

    for (const v of this.validators) this.balances.set(v.address, BigInt(randInt(rand, 1, 1_000_000)) * UNIT + 123n);
    for (const m of this.miners) this.balances.set(m.address, m.totalRewards);
    for (const a of this.agents) this.balances.set(a.address, BigInt(randInt(rand, 0, 100_000)) * UNIT);
    for (const d of this.delegations) this.balances.set(d.delegator, BigInt(randInt(rand, 1, 9_999)) * UNIT);
  }

  /** Height of the chain tip at a clock time. */
  tipHeight(nowMs: number): number {
    return Math.max(0, Math.floor((nowMs - this.genesisMs) / this.blockTimeMs));
  }

  /** Clock time at which a block was produced. */
  blockTimestampMs(height: number): number {
    return this.genesisMs + height * this.blockTimeMs;
  }

  /** Transactions in blocks 1..height: 2 or 3 per block, in closed form so counters are O(1). */
  txCount(height: number): number {
    return height <= 0 ? 0 : 2 * height + Math.floor(height / 3);
  }

  block(height: number): Record<string, unknown> {
    const n = this.txCount(height) - this.txCount(height - 1);
    const validator = this.validators[height % this.validators.length]!;
    return {
      height,
      hash: hex32(`${this.network}:block:${height}`),
      parentHash: height === 0 ? '0'.repeat(64) : hex32(`${this.network}:block:${height - 1}`),
      timestamp: this.blockTimestampMs(height),
      proposer: validator.address,
      transactions: Array.from({ length: n }, (_, i) => hex32(`${this.network}:tx:${height}:${i}`)),
    };
  }

  /**
   * The network's validators, miners, balances and unbonding as of the tip (built on first use,
   * from the start height, so it is the same whenever it is first asked for).
   */
  ledger(): Ledger {
    this._ledger ??= new Ledger(
      ledgerSeed({
        network: this.network,
        startHeight: this.startHeight,
        epochBlocks: this.epochBlocks,
        unbondingBlocks: this.unbondingBlocks,
        blockReward: (h) => this.blockReward(h),
        rewardChangeHeights: [this.miningUpgradeHeight],
        validators: this.validators,
        miners: this.miners,
        activeBase: this.activeBase,
        balances: this.balances,
      }),
    );
    this._ledger.advanceTo(this.tipHeight(this.now()));
    return this._ledger;
  }

  upgraded(height: number): boolean {
    return height >= this.miningUpgradeHeight;
  }

  blockReward(height: number): bigint {
    // The mining upgrade halves the reward: something visible for dashboards.
    return this.upgraded(height) ? this.baseBlockReward / 2n : this.baseBlockReward;
  }

  totalSupply(height: number): bigint {
    const pre = Math.min(height, this.miningUpgradeHeight);
    const post = Math.max(0, height - this.miningUpgradeHeight);
    return this.genesisSupply + BigInt(pre) * this.baseBlockReward + BigInt(post) * (this.baseBlockReward / 2n);
  }

  balance(address: string): bigint {
    return this.ledger().balance(address);
  }

  /** Nonces derive from the address so they stay stable across calls. */
  nonce(address: string): number {
    return this.balances.has(address) ? hash32(`${this.network}:nonce:${address}`) % 5_000 : 0;
  }

  validator(address: string): ValidatorRecord | undefined {
    return this.validators.find((v) => v.address === address);
  }

  miner(address: string): { record: MinerRecord; index: number } | undefined {
    const index = this.miners.findIndex((m) => m.address === address);
    return index < 0 ? undefined : { record: this.miners[index]!, index };
  }

  agent(address: string): AgentRecord | undefined {
    return this.agents.find((a) => a.address === address);
  }

  token(tokenId: string): TokenRecord | undefined {
    return this.tokens.find((t) => t.tokenId === tokenId);
  }

  /** Records a submitted transaction as included in the next block; bounded memory. */
  submit(txHash: string, height: number): void {
    if (this.receipts.size >= MAX_RECEIPTS) {
      const oldest = this.receipts.keys().next().value;
      if (oldest !== undefined) this.receipts.delete(oldest);
    }
    this.receipts.set(txHash, {
      txHash,
      blockHeight: height + 1,
      transactionIndex: this.receipts.size % 50,
      success: true,
    });
  }

  receipt(txHash: string, height: number): Receipt | undefined {
    const r = this.receipts.get(txHash);
    // Not yet mined as seen by this node.
    return r && r.blockHeight <= height ? r : undefined;
  }
}

function drawValidators(
  rand: () => number,
  network: string,
): { validators: ValidatorRecord[]; delegations: DelegationRecord[] } {
  const nValidators = randInt(rand, 4, 21);
  const validators: ValidatorRecord[] = [];
  const delegations: DelegationRecord[] = [];
  for (let i = 0; i < nValidators; i++) {
    const address = hex32(`${network}:validator:${i}`);
    // 10-20 M tokens each: at most 21 validators stake less than the smallest genesis supply
    // (500 M), and every stake is over 2^53 base units, as in the field. Odd low digits on
    // purpose: any float64 parse of these strings loses precision.
    const selfStake = BigInt(randInt(rand, 10_000_000, 20_000_000)) * UNIT + BigInt(randInt(rand, 1, 999_999_999));
    let delegated = 0n;
    const nDelegators = randInt(rand, 0, 3);
    for (let d = 0; d < nDelegators; d++) {
      const amount = BigInt(randInt(rand, 1, 500)) * 1_000n * UNIT + BigInt(randInt(rand, 0, 999_999));
      delegated += amount;
      delegations.push({ delegator: hex32(`${network}:delegator:${(i + d) % 7}`), validator: address, amount });
    }
    const stake = selfStake + delegated;
    validators.push({
      address,
      stake,
      selfStake,
      weight: Number(stake / UNIT),
      agentScore: randInt(rand, 0, 10_000),
      commission: randInt(rand, 0, 2_000),
    });
  }
  validators.sort((a, b) => (a.stake > b.stake ? -1 : a.stake < b.stake ? 1 : 0));
  return { validators, delegations };
}

function drawMiners(rand: () => number, network: string, startHeight: number): MinerRecord[] {
  const nMiners = randInt(rand, 40, 400);
  const miners: MinerRecord[] = [];
  for (let i = 0; i < nMiners; i++) {
    miners.push({
      address: hex32(`${network}:miner:${i}`),
      registeredAt: randInt(rand, 1, startHeight),
      totalRewards: BigInt(randInt(rand, 0, 5_000_000)) * 10n ** 6n,
    });
  }
  return miners;
}

function drawAgents(rand: () => number, network: string, startHeight: number): AgentRecord[] {
  const agents: AgentRecord[] = [];
  for (let i = 0; i < 12; i++) {
    agents.push({
      address: hex32(`${network}:agent:${i}`),
      name: `agent-${i}`,
      registeredAt: randInt(rand, 1, startHeight),
      serviceType: SERVICE_TYPES[i % SERVICE_TYPES.length] as string,
    });
  }
  return agents;
}

function drawTokens(rand: () => number, network: string, agents: AgentRecord[]): TokenRecord[] {
  return ['Claw Credit:CCR', 'Agent Points:APT'].map((s, i) => {
    const [name, symbol] = s.split(':') as [string, string];
    return {
      tokenId: hex32(`${network}:token:${i}`),
      name,
      symbol,
      decimals: 6 + i * 3,
      totalSupply: BigInt(randInt(rand, 1, 100)) * 10n ** 24n,
      issuer: agents[i]!.address,
    };
  });
}
