// Ready-made fleet compositions for the demo, the CLI and the benchmark.
import type { SimBuild, SimFault, SimNodeSpec } from './types.js';

export interface MixedFleetOptions {
  /** Network names; nodes are spread round-robin. Default ['simnet']. */
  networks?: string[];
  /** Give a few nodes a fault (one of each kind, among the later nodes). Default false. */
  faults?: boolean;
}

const DEMO_FAULTS: SimFault[] = [
  'stalled',
  'proxy_502',
  'hang',
  'flapping',
  'json_500',
  'garbage_json',
  'slow_body',
  'down',
];

/**
 * `count` nodes named node-1..node-N: mostly current builds, every 7th a staking build, every
 * 10th an earliest build (namespace `clw`), every 5th lagging a few blocks behind.
 */
export function mixedFleetSpecs(count: number, opts: MixedFleetOptions = {}): SimNodeSpec[] {
  const networks = opts.networks && opts.networks.length > 0 ? opts.networks : ['simnet'];
  const specs: SimNodeSpec[] = [];
  for (let i = 1; i <= count; i++) {
    const build: SimBuild = i % 10 === 0 ? 'earliest' : i % 7 === 0 ? 'staking' : 'current';
    const spec: SimNodeSpec = { name: `node-${i}`, network: networks[(i - 1) % networks.length]!, build };
    if (i % 5 === 0) spec.heightOffset = i % 3 === 0 ? 40 : 2;
    specs.push(spec);
  }
  if (opts.faults) {
    // Faults go to the last nodes so the first ones stay a healthy reference.
    DEMO_FAULTS.slice(0, Math.max(0, count - 2)).forEach((fault, k) => {
      specs[count - 1 - k]!.fault = fault;
    });
  }
  return specs;
}
