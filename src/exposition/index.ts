// Prometheus text-format parsing and the upstream (`ledger_upstream_*`) re-export renderer.
export { ExpositionError, parseExposition, applySeriesCap, type ParseOptions, type ParsedExposition } from './parse.js';
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
