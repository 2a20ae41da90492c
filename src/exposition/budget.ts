// What one node may make the exporter hold from its /metrics answer. Enforced while parsing:
// the parser stops at the first limit reached and counts what it left unread, so a hostile or
// broken node costs at most its budget in memory and a bounded slice of CPU per poll.
//
// Memory: a node keeps its prepared output lines until its next poll; the parsed families live
// only until those are made (at most `polling.concurrency` answers at once). See README
// "Upstream budget"; header lines shared across nodes are bounded separately by
// HEADER_CACHE_MAX_CHARS.

/** Configured as polling.maxUpstreamSeries, maxUpstreamBytes, maxUpstreamFamilies, maxUpstreamHelpChars. */
export interface UpstreamBudget {
  /** Samples kept (whole histogram/summary series at a time). */
  maxSeries: number;
  /** Characters learned (names, label names and values, HELP) plus a fixed cost per sample and family. */
  maxBytes: number;
  /** Families, including those with only HELP/TYPE lines and no samples. */
  maxFamilies: number;
  /** HELP text beyond this many characters is cut (it is free text for humans). */
  maxHelpChars: number;
}

/** Accounted per sample beyond its strings: the sample and label objects and the output line's fixed part. */
export const SAMPLE_OVERHEAD = 120;
/** Accounted per family beyond its name and HELP: the family object and its header lines. */
export const FAMILY_OVERHEAD = 300;

export const DEFAULT_UPSTREAM_BUDGET: UpstreamBudget = {
  maxSeries: 2000,
  maxBytes: 512 * 1024,
  maxFamilies: 1000,
  maxHelpChars: 1024,
};

/** Shared HELP/TYPE header cache bound, in characters over all entries (across every node). */
export const HEADER_CACHE_MAX_CHARS = 4 * 1024 * 1024;
