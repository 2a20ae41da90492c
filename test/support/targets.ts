import { PROBE_NAMES, type NodeTarget } from '../../src/domain.js';

/** A node target with test defaults; override what the test is about. */
export function target(name: string, over: Partial<NodeTarget> = {}): NodeTarget {
  return {
    name,
    url: `http://127.0.0.1:1/${name}`,
    network: 'mainnet',
    labels: {},
    intervalMs: 1000,
    timeoutMs: 500,
    rpcNamespace: 'auto',
    probes: [...PROBE_NAMES],
    headers: {},
    ...over,
  };
}
