import { PROBE_NAMES, type NodeTarget } from '../../src/domain.js';
import type { ExporterConfig } from '../../src/config/exporterConfig.js';

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

/**
 * A daemon config for `nodes` with test defaults, for a daemon started with `evidence: false` (the evidence dir is
 * never used).
 */
export function daemonConfig(nodes: NodeTarget[]): ExporterConfig {
  return {
    listen: { host: '127.0.0.1', port: 0 },
    polling: { concurrency: 4, maxResponseBytes: 1 << 16, maxUpstreamSeries: 10 },
    nodes,
    networks: {},
    evidence: { dir: '/nonexistent-unused', maxBytes: 1 << 20, maxAgeDays: 1 },
  };
}
