// Prometheus text-format parsing and the upstream (`ledger_upstream_*`) re-export renderer.
export { DEFAULT_UPSTREAM_BUDGET, type UpstreamBudget } from './budget.js';
export { ExpositionError, parseExposition, type ParseOptions, type ParsedExposition } from './parse.js';
export { DEFAULT_UPSTREAM_PREFIX, prepareUpstream, type PreparedFamily, type PreparedUpstream } from './upstream.js';
export {
  renderUpstream,
  renderUpstreamWithStats,
  type UpstreamConflict,
  type UpstreamRender,
} from './upstreamMerge.js';
export { FleetUpstream, type UpstreamNode } from './fleetUpstream.js';
export { UpstreamReader, type UpstreamRead } from './reader.js';
