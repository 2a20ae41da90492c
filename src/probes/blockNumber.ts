// <ns>_blockNumber: the node's height over JSON-RPC (with /health's, it feeds the shared height
// families). Every build offers it, so the runner also detects the namespace with it.
import { parseBlockNumber } from './parse.js';
import type { NodeProbe } from './types.js';

export type BlockNumberProbeData = { probe: 'blockNumber'; value: number };

export const BLOCK_NUMBER_METHOD = 'blockNumber';

export const blockNumberProbe: NodeProbe<BlockNumberProbeData> = {
  target: 'node',
  request: { kind: 'rpc', method: BLOCK_NUMBER_METHOD },
  parse: (result) => ({ probe: 'blockNumber', value: parseBlockNumber(result) }),
  apply: (node, d) => ((node.blockNumber = d.value), false),
  clear: (node) => void (node.blockNumber = undefined),
  metrics: [],
};
