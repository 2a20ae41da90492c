// `ledger-fleet-exporter evidence ...`: what the on-call engineer runs to see what a node answered.
import { parseArgs } from 'node:util';
import { readEvidence } from './files.js';
import { isValidNodeName, MAX_QUERY_LIMIT, parseLimit, parseSince } from './query.js';
import type { EvidenceRecord } from './record.js';

export const EVIDENCE_USAGE =
  `usage: ledger-fleet-exporter evidence --dir <evidence.dir> [--node <name>] [--since ` +
  `<time>] [--limit <n>] [--summary] [--json]
  --dir      the evidence directory (evidence.dir of the config)
  --node     only this node
  --since    ISO 8601 time with zone, or epoch seconds
  --limit    the newest n records (1-${MAX_QUERY_LIMIT}, default 100), printed oldest first
  --summary  per node: record count, first and last time, HTTP status counts (all matching records)
  --json     one JSON record per line instead of text`;

const BODY_PREVIEW_CHARS = 160;

interface CliArgs {
  dir: string;
  node?: string;
  since?: Date;
  limit: number;
  summary: boolean;
  json: boolean;
}

/**
 * Runs the subcommand; `argv` are the arguments after `evidence`. Returns the exit code:
 * 0 done (also when there is nothing to show), 1 the directory cannot be read, 2 bad usage.
 */
export async function runEvidenceCli(
  argv: string[],
  out: (line: string) => void,
  err: (line: string) => void = out,
): Promise<number> {
  const args = parseCliArgs(argv, out, err);
  if (typeof args === 'number') return args;
  let result;
  try {
    result = await readEvidence(args.dir, {
      node: args.node,
      since: args.since,
      limit: args.summary ? Number.POSITIVE_INFINITY : args.limit,
    });
  } catch (e) {
    err(`evidence: cannot read ${args.dir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    return 1;
  }

  const { records, skippedLines } = result;
  if (args.summary) {
    for (const line of summarize(records)) out(line);
  } else if (args.json) {
    for (const r of [...records].reverse()) out(JSON.stringify(r));
  } else {
    for (const r of [...records].reverse()) out(formatRecord(r));
  }
  if (records.length === 0 && !args.json) out('no evidence records');
  if (skippedLines > 0) err(`evidence: skipped ${skippedLines} unreadable line(s) (torn writes or foreign text)`);
  return 0;
}

/** The arguments, or the exit code when there is nothing to read (help, bad usage). */
function parseCliArgs(argv: string[], out: (line: string) => void, err: (line: string) => void): CliArgs | number {
  const usage = (msg: string) => {
    err(`evidence: ${msg}`);
    err(EVIDENCE_USAGE);
    return 2;
  };
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        dir: { type: 'string' },
        node: { type: 'string' },
        since: { type: 'string' },
        limit: { type: 'string' },
        summary: { type: 'boolean' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    return usage((e as Error).message);
  }
  if (values.help) {
    out(EVIDENCE_USAGE);
    return 0;
  }
  if (!values.dir) return usage('--dir is required');
  if (values.node !== undefined && !isValidNodeName(values.node)) return usage('--node is not a valid node name');
  const since = values.since === undefined ? undefined : parseSince(values.since);
  if (since === null) return usage('--since must be an ISO 8601 time with zone or epoch seconds');
  const limit = values.limit === undefined ? 100 : parseLimit(values.limit);
  if (limit === null) return usage(`--limit must be an integer from 1 to ${MAX_QUERY_LIMIT}`);
  return {
    dir: values.dir,
    node: values.node,
    since,
    limit,
    summary: values.summary ?? false,
    json: values.json ?? false,
  };
}

/** One line per record, for a terminal. */
export function formatRecord(r: EvidenceRecord): string {
  const body = r.body.length > BODY_PREVIEW_CHARS ? `${r.body.slice(0, BODY_PREVIEW_CHARS)}...` : r.body;
  const lastOk = r.runnerStatus.lastSuccess ?? 'never';
  return (
    `${r.time} ${r.node} (${r.network}) ${r.probe} ${r.method} -> ${r.status} attempt=${r.attempt} ` +
    `${r.durationMs}ms failures=${r.runnerStatus.consecutiveFailures} lastSuccess=${lastOk} ${r.url} ` +
    `body=${JSON.stringify(body)}` +
    (r.bodyTruncated ? ' (truncated)' : '')
  );
}

export interface NodeSummary {
  node: string;
  count: number;
  first: string;
  last: string;
  statuses: Map<number, number>;
}

/** Per node: count, first and last time, and how often each HTTP status was seen. */
export function summarizeRecords(records: EvidenceRecord[]): NodeSummary[] {
  const byNode = new Map<string, NodeSummary>();
  for (const r of records) {
    let s = byNode.get(r.node);
    if (!s) {
      s = { node: r.node, count: 0, first: r.time, last: r.time, statuses: new Map() };
      byNode.set(r.node, s);
    }
    s.count++;
    if (Date.parse(r.time) < Date.parse(s.first)) s.first = r.time;
    if (Date.parse(r.time) > Date.parse(s.last)) s.last = r.time;
    s.statuses.set(r.status, (s.statuses.get(r.status) ?? 0) + 1);
  }
  return [...byNode.values()].sort((a, b) => a.node.localeCompare(b.node));
}

function summarize(records: EvidenceRecord[]): string[] {
  return summarizeRecords(records).map((s) => {
    const statuses = [...s.statuses.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([status, n]) => `${status}=${n}`)
      .join(' ');
    return `${s.node}: ${s.count} record(s) from ${s.first} to ${s.last}; status ${statuses}`;
  });
}
