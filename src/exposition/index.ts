// Prometheus text-format parsing and the upstream (`ledger_upstream_*`) re-export renderer.
export { DEFAULT_UPSTREAM_BUDGET, type UpstreamBudget } from './budget.js';
export { ExpositionError, parseExposition, type ParseOptions, type ParsedExposition } from './parse.js';
export {
  DEFAULT_UPSTREAM_PREFIX,
  prepareUpstream,
  renderUpstream,
  renderUpstreamWithStats,
  type PreparedFamily,
  type PreparedUpstream,
  type UpstreamConflict,
  type UpstreamRender,
} from './upstream.js';
export { FleetUpstream, type UpstreamNode } from './fleetUpstream.js';
