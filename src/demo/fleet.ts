// `ledger-fleet-exporter demo`: a small simulated fleet (current builds, one earliest build, a
// lagging node, failing ones) plus the exporter polling it. No config file needed.
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { ListenAddress, NodeTarget } from '../domain.js';
import type { ExporterConfig } from '../config/exporterConfig.js';
import { PROBE_NAMES } from '../domain.js';
import { SimFleet, type SimNodeSpec } from '../sim/index.js';
import { agentScore, agentTarget } from '../sim/ledger-agents.js';
import { delegatorTarget } from '../sim/ledger-delegations.js';
import type { WatchEntry } from '../watch/types.js';

export const DEMO_SPECS: SimNodeSpec[] = [
  { name: 'val-eu-1', network: 'mainnet', build: 'current', peers: 12 },
  { name: 'val-us-1', network: 'mainnet', build: 'current', peers: 9 },
  { name: 'miner-ap-1', network: 'mainnet', build: 'current', heightOffset: 3, peers: 5 },
  { name: 'rpc-legacy', network: 'mainnet', build: 'earliest', peers: 4 },
  { name: 'rpc-flaky', network: 'mainnet', build: 'current', fault: 'flapping' },
  { name: 'test-val-1', network: 'testnet', build: 'staking', namespace: 'chain', peers: 3 },
  { name: 'test-proxy', network: 'testnet', build: 'current', fault: 'proxy_502' },
];

const ROLES: Record<string, string> = { val: 'validator', miner: 'miner', rpc: 'rpc', test: 'validator' };

/** Demo epochs: 20 blocks (a minute at 3 s blocks), so watched entries change state within minutes. */
export const DEMO_EPOCH_BLOCKS = 20;
/** The network of the watched entries (the simulator's picks: ChainControl.watchTargets). */
export const DEMO_WATCH_NETWORK = 'mainnet';

/** One validator, miner, account, delegator and agent of the demo fleet, read every 10 s. */
function demoWatch(fleet: SimFleet): NonNullable<ExporterConfig['watch']> {
  const chain = fleet.chain(DEMO_WATCH_NETWORK);
  const t = chain.watchTargets();
  const network = DEMO_WATCH_NETWORK;
  // The commission it charges now: a change would alert.
  const commissionBps = chain.ledger().validators.get(t.validator)?.commissionBps;
  // Half its score now: a fall that deep would alert.
  const agent = agentTarget(chain.simChain)!;
  const minScore = Math.floor(agentScore(chain.simChain, agent).total! / 2);
  return {
    intervalMs: 10_000,
    entries: [
      { kind: 'validator', name: 'val-main', address: t.validator, network, seatMarginBelow: 0.1, commissionBps },
      { kind: 'miner', name: 'rig-01', address: t.miner, network },
      { kind: 'account', name: 'hot-wallet', address: t.account, network, minBalance: 25, ...demoTokens(fleet) },
      // The hot wallet is an agent's: its services (no endpoint probe: the simulator's endpoints are not real hosts).
      { kind: 'provider', name: 'agent-services', address: t.account, network },
      {
        kind: 'delegator',
        name: 'my-stake',
        address: delegatorTarget(chain.simChain)!,
        network,
        maxCommissionBps: 2_000,
      },
      { kind: 'agent', name: 'arena-bot', address: agent, network, minScore },
    ],
  };
}

/** The hot wallet's first custom token (minimum 100) and the validator's allowance on it (at most 1,000). */
function demoTokens(fleet: SimFleet): Pick<WatchEntry, 'tokens' | 'allowances'> {
  const chain = fleet.chain(DEMO_WATCH_NETWORK);
  const tokenId = chain.simChain.tokens[0]!.tokenId;
  return {
    tokens: [{ tokenId, minBalance: 100 }],
    allowances: [{ spender: chain.watchTargets().validator, tokenId, max: 1_000 }],
  };
}

export interface SimulatedFleetOptions {
  listen: ListenAddress;
  intervalMs: number;
  timeoutMs: number;
  evidenceDir: string;
  concurrency?: number;
  labels?: (name: string) => Record<string, string>;
}

/** An exporter config polling simulated nodes with every probe (demo, benchmark). */
export function simulatedFleetConfig(
  nodes: ReadonlyArray<{ name: string; url: string; network: string }>,
  opts: SimulatedFleetOptions,
): ExporterConfig {
  const targets: NodeTarget[] = nodes.map((n) => ({
    name: n.name,
    url: n.url,
    network: n.network,
    labels: opts.labels?.(n.name) ?? {},
    intervalMs: opts.intervalMs,
    timeoutMs: opts.timeoutMs,
    rpcNamespace: 'auto',
    probes: [...PROBE_NAMES],
    headers: {},
  }));
  return {
    listen: opts.listen,
    polling: { concurrency: opts.concurrency ?? 64, maxResponseBytes: 4 * 1024 * 1024, maxUpstreamSeries: 2000 },
    nodes: targets,
    networks: Object.fromEntries([...new Set(nodes.map((n) => n.network))].map((net) => [net, { decimals: 9 }])),
    evidence: { dir: opts.evidenceDir, maxBytes: 64 * 1024 * 1024, maxAgeDays: 7 },
  };
}

/** The exporter config for the demo fleet. */
export function demoConfig(
  fleet: SimFleet,
  opts: { listen: ListenAddress; intervalMs?: number; evidenceDir?: string },
): ExporterConfig {
  const intervalMs = opts.intervalMs ?? 5_000;
  const config = simulatedFleetConfig(fleet.nodes, {
    listen: opts.listen,
    intervalMs,
    timeoutMs: Math.min(2_000, intervalMs - 1),
    evidenceDir: opts.evidenceDir ?? join(tmpdir(), 'ledger-fleet-exporter-demo', 'evidence'),
    labels: (name) => ({ role: ROLES[name.split('-')[0] ?? ''] ?? 'rpc', region: name.split('-')[1] ?? 'none' }),
  });
  const networks = Object.fromEntries(
    Object.entries(config.networks).map(([n, s]) => [n, { ...s, epochBlocks: DEMO_EPOCH_BLOCKS }]),
  );
  return { ...config, networks, watch: demoWatch(fleet) };
}

export interface DemoFleetOptions {
  blockTimeMs?: number;
  /** The simulator's control API port (0: any free port; false: none). Default: any free port. */
  controlPort?: number | false;
  /** Where the control API listens. Default 127.0.0.1. */
  controlHost?: string;
  /** Period of rpc-flaky's healthy + failing phases. Default the simulator's 6 s. */
  flapPeriodMs?: number;
}

export async function startDemoFleet(opts: DemoFleetOptions = {}): Promise<SimFleet> {
  return SimFleet.start(DEMO_SPECS, {
    host: '127.0.0.1',
    ...(opts.controlHost !== undefined && { controlHost: opts.controlHost }),
    layout: 'port-per-node',
    blockTimeMs: opts.blockTimeMs,
    epochBlocks: DEMO_EPOCH_BLOCKS,
    controlPort: opts.controlPort ?? 0,
    ...(opts.flapPeriodMs !== undefined && { flapPeriodMs: opts.flapPeriodMs }),
  });
}
