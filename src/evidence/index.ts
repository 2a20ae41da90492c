// Local runner status evidence: one JSON line per 5xx answer, durable, bounded and free of secrets.
export {
  buildEvidenceRecord,
  EVIDENCE_HEADERS,
  DEFAULT_MAX_BODY_BYTES,
  type EvidenceInput,
  type EvidenceRecord,
  type RunnerIdentity,
} from './record.js';
export { EvidenceStore, type EvidenceStats, type EvidenceStoreOptions } from './store.js';
export { checkEvidenceDir } from './check.js';
export { readEvidence, type EvidenceQuery, type ReadResult } from './files.js';
export {
  parseEvidenceQuery,
  isValidNodeName,
  DEFAULT_QUERY_LIMIT,
  MAX_QUERY_LIMIT,
  type ParsedQuery,
} from './query.js';
export {
  createEvidenceApi,
  evidenceApiResponse,
  DEFAULT_EVIDENCE_API_LIMITS,
  type EvidenceApi,
  type EvidenceApiLimits,
  type EvidenceApiResponse,
  type LimitedEvidenceReader,
} from './api.js';
export { runEvidenceCli, summarizeRecords, formatRecord, EVIDENCE_USAGE, type NodeSummary } from './cli.js';
export { evidenceCollectors } from './metrics.js';
