// Ledger node simulator: answers like real nodes (see spec/reference-node-facts.md), with
// switchable faults. Used by the demo, the tests and the benchmark.
export type { SimBuild, SimFault, SimNodeSpec, SimFleetOptions } from './types.js';
export { SIM_FAULTS, isSimFault } from './types.js';
export { SimFleet } from './fleet.js';
export { SimNode } from './node.js';
export { mixedFleetSpecs, type MixedFleetOptions } from './specs.js';
export { runSimulatorCli, SIMULATE_USAGE, type SimulatorCliIo } from './cli.js';
export { methodsOf, DEFAULT_NAMESPACE, DEFAULT_VERSION } from './methods.js';
export { BLOCK_TIME_BUCKETS, METRICS_CONTENT_TYPE } from './metrics-text.js';
export { NATIVE_DECIMALS, DEFAULT_EPOCH_BLOCKS, DEFAULT_UNBONDING_BLOCKS } from './chain.js';
export { ChainControl, type ValidatorChange, type MinerChange } from './ledger-control.js';
export { minerOutageScenario, type WatchScenario } from './scenario.js';
