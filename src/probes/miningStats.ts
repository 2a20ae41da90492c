// <ns>_getMiningStats: registered and active miners, the block reward and the mining upgrade.
import type { MiningStats } from '../domain.js';
import { parseMiningStats, sameMiningStats } from './parse.js';
import type { NodeProbe } from './types.js';

export type MiningStatsProbeData = { probe: 'miningStats'; value: MiningStats };

export const miningStatsProbe: NodeProbe<MiningStatsProbeData> = {
  target: 'node',
  request: { kind: 'rpc', method: 'getMiningStats' },
  parse: (result) => ({ probe: 'miningStats', value: parseMiningStats(result) }),
  // The same answer keeps the held object (see sameValidators).
  apply: (node, d) => (sameMiningStats(node.mining, d.value) || (node.mining = d.value), false),
  clear: (node) => void (node.mining = undefined),
  metrics: [
    {
      per: 'node',
      name: 'ledger_node_miners_active',
      help: 'Active miners this node reports.',
      value: (v) => v.mining?.activeMiners,
    },
    { per: 'network', name: 'ledger_mining_miners', help: 'Registered miners.', value: (n) => n.mining?.miners },
    { per: 'network', name: 'ledger_mining_miners_active', help: 'Active miners.', value: (n) => n.mining?.active },
    {
      per: 'network',
      name: 'ledger_mining_block_reward_tokens',
      help: 'Current block reward, in tokens.',
      value: (n) => n.mining?.rewardTokens,
    },
    {
      per: 'network',
      name: 'ledger_mining_upgrade_height',
      help: 'Block height of the mining upgrade.',
      value: (n) => n.mining?.upgradeHeight,
    },
    {
      per: 'network',
      name: 'ledger_mining_upgraded',
      help: 'Whether the mining upgrade is active (1) or not (0).',
      value: (n) => (n.mining ? (n.mining.upgraded ? 1 : 0) : undefined),
    },
    {
      per: 'network',
      name: 'ledger_mining_blocks_until_upgrade',
      help: 'Blocks left until the mining upgrade height (0 once reached).',
      value: (n) => n.mining?.blocksUntilUpgrade,
    },
  ],
};
