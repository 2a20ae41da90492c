// Bodies of the plain endpoints GET /health, /peers and /version.
import type { SimChain } from './chain.js';
import { hash32, hex32 } from './rng.js';
import type { SimBuild } from './types.js';

/** What the plain endpoints see of a node at one instant. */
export interface NodeSnapshot {
  name: string;
  chain: SimChain;
  build: SimBuild;
  version: string;
  height: number;
  /** Clock time of the node's last block. */
  lastBlockMs: number;
  nowMs: number;
  startedMs: number;
  /** Height when the process (re)started: counters count from here. */
  startHeight: number;
  peers: number;
}

export const DEGRADED_AFTER_SECS = 60;

/** Mempool size wobbles with the height, deterministically. */
export function mempoolSize(s: NodeSnapshot): number {
  return hash32(`${s.name}:mempool:${s.height}`) % 40;
}

export function healthBody(s: NodeSnapshot): Record<string, unknown> {
  const age = Math.max(0, Math.floor((s.nowMs - s.lastBlockMs) / 1000));
  const body: Record<string, unknown> = {
    status: age >= DEGRADED_AFTER_SECS && s.height > 0 ? 'degraded' : 'ok',
    version: s.version,
  };
  // The earliest builds predate chain_id and genesis_hash.
  if (s.build !== 'earliest') {
    body.chain_id = s.chain.chainId;
    body.genesis_hash = s.chain.genesisHash;
  }
  Object.assign(body, {
    height: s.height,
    epoch: Math.floor(s.height / s.chain.epochBlocks),
    peer_count: s.peers,
    mempool_size: mempoolSize(s),
    last_block_age_secs: age,
    uptime_secs: Math.max(0, Math.floor((s.nowMs - s.startedMs) / 1000)),
  });
  return body;
}

export function peersBody(s: NodeSnapshot): Record<string, unknown> {
  const peers = Array.from({ length: s.peers }, (_, i) => ({
    peer_id: hex32(`${s.chain.network}:peer:${s.name}:${i}`),
    // Documentation addresses (TEST-NET-3): never dialled by anything.
    address: `/ip4/203.0.113.${(hash32(`${s.name}:${i}`) % 250) + 1}/tcp/9711`,
  }));
  return { count: s.peers, peers };
}

export function versionBody(s: NodeSnapshot): Record<string, unknown> {
  return {
    version: s.version,
    build: s.build,
    git_commit: hex32(`commit:${s.version}`).slice(0, 12),
    upgrade_manifest: { latest: '0.5.8', min_supported: '0.2.0', upgrade_height: s.chain.miningUpgradeHeight },
  };
}
