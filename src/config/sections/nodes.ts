// defaults + nodes: the polled fleet. Owns the node schema, the inheritance from `defaults`, the
// checks across nodes (unique names, probes, headers, timeout <= interval) and the node secrets.
import { resolve as resolvePath } from 'node:path';
import * as z from 'zod';
import { PROBE_NAMES, type NodeTarget, type SecretValue } from '../../domain.js';
import { urlCredentials } from '../../redact.js';
import { parseDuration } from '../duration.js';
import type { PathProblem, PathSegment } from '../problems.js';
import { headerNameReason, headerValueReason, labelNameReason, NAMESPACE_RE, nodeUrlReason } from '../rules.js';
import { checked, duration, effectiveTimeout, firstSet, isObj, nameOf, timeoutProblem, type Obj } from './fields.js';
import { defineSection } from './section.js';
import { resolveTls, sharedOriginProblems, tlsProblems, tlsSchema } from './tls.js';

export const NODE_DEFAULTS = {
  interval: '15s',
  timeout: '5s',
  rpcNamespace: 'auto',
  probes: [...PROBE_NAMES],
} as const;
export const PROBE_DEFAULTS = [...NODE_DEFAULTS.probes];

const probesSchema = z
  .array(z.enum(PROBE_NAMES, { error: `unknown probe: expected one of ${PROBE_NAMES.join(', ')}` }))
  // Duplicates are checked below, so they are reported next to unknown probe names.
  .min(1, 'at least one probe is required')
  .meta({ description: `Probes to run: ${PROBE_NAMES.join(', ')}.` });

const rpcNamespaceSchema = z
  .string()
  .regex(NAMESPACE_RE, 'rpcNamespace must be "auto" or a lowercase word such as chain, claw, clw')
  .max(32)
  .meta({ description: 'JSON-RPC method namespace word: "auto" probes chain, claw, clw; or a fixed word.' });

const headerValueSchema = z.union(
  [
    z.string(),
    z.strictObject({
      file: z
        .string()
        .min(1, 'file must not be empty')
        .meta({ description: 'File holding the value, read at request time (rotation needs no restart).' }),
    }),
  ],
  {
    error: 'header value must be a string or { file: <path> }',
  },
);

const headersSchema = z
  // Case-insensitive duplicates and line breaks in values are checked below.
  .record(checked(headerNameReason), headerValueSchema)
  .meta({ description: 'Extra request headers (secrets): a value, or { file: <path> } read at request time.' });

const labelsSchema = z
  .record(checked(labelNameReason), z.string({ error: 'label values must be strings (quote numbers, e.g. "12")' }))
  .meta({ description: 'Extra labels exposed on ledger_node_info.' });

// Kept in step with config/sections/stallWindow.ts, which refuses the longer intervals.
const INTERVAL_HELP =
  'How often each probe runs; with built-in alerting, at most half the LedgerNodeHeightStalled threshold (1m by ' +
  'default), so its window spans two polls.';
const TIMEOUT_HELP =
  `Timeout of one probe request; at most interval. Unset: the inherited one (${NODE_DEFAULTS.timeout} built in), ` +
  `lowered to interval when longer.`;

const defaultsSchema = z
  .strictObject({
    interval: duration(INTERVAL_HELP).default(NODE_DEFAULTS.interval),
    // No zod default: an unset timeout is min(inherited, interval), which needs to know it was unset.
    timeout: duration(TIMEOUT_HELP).optional(),
    rpcNamespace: rpcNamespaceSchema.default(NODE_DEFAULTS.rpcNamespace),
    probes: probesSchema.default(PROBE_DEFAULTS),
    headers: headersSchema.default({}),
    tls: tlsSchema.optional(),
  })
  .prefault({})
  .meta({ description: 'Every node inherits these; any may be overridden per node.' });

const nodeSchema = z
  .strictObject({
    name: nameOf('node name').meta({ description: 'Unique; becomes the `node` label.' }),
    url: checked(nodeUrlReason).meta({
      description: 'Base URL (http or https); may carry a path prefix and user:password.',
    }),
    network: nameOf('network name')
      .default('default')
      .meta({ description: 'Network the node belongs to: groups the per-network aggregates and alerts.' }),
    labels: labelsSchema.default({}),
    interval: duration(INTERVAL_HELP).optional(),
    timeout: duration(TIMEOUT_HELP).optional(),
    rpcNamespace: rpcNamespaceSchema.optional(),
    probes: probesSchema.optional(),
    headers: headersSchema.optional(),
    tls: tlsSchema.optional(),
  })
  .meta({ description: 'One ledger node.' });

type RawHeaders = Record<string, string | { file: string }>;

/** Defaults first, then the node's own; header names compare case-insensitively. */
function mergeHeaders(base: RawHeaders, own: RawHeaders | undefined, baseDir: string): Record<string, SecretValue> {
  const merged = new Map<string, [string, string | { file: string }]>();
  for (const [name, value] of [...Object.entries(base), ...Object.entries(own ?? {})])
    merged.set(name.toLowerCase(), [name, value]);
  const out: Record<string, SecretValue> = {};
  for (const [name, value] of merged.values())
    out[name] = typeof value === 'string' ? { value } : { file: resolvePath(baseDir, value.file) };
  return out;
}

function duplicateProbes(probes: unknown, path: PathSegment[]): PathProblem[] {
  if (!Array.isArray(probes)) return [];
  return probes.flatMap((p, i) =>
    typeof p === 'string' && probes.indexOf(p) !== i
      ? [{ path: [...path, i], message: `probe "${p}" is listed twice` }]
      : [],
  );
}

/** Header names are case-insensitive on the wire; a value with a line break could smuggle headers. */
function headerProblems(headers: unknown, path: PathSegment[]): PathProblem[] {
  if (!isObj(headers)) return [];
  const out: PathProblem[] = [];
  const seen = new Set<string>();
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (seen.has(lower))
      out.push({
        path: [...path, name],
        at: 'key',
        message: `header "${name}" is set twice (names are case-insensitive)`,
      });
    seen.add(lower);
    const reason = typeof value === 'string' ? headerValueReason(value) : undefined;
    if (reason) out.push({ path: [...path, name], message: reason });
  }
  return out;
}

const BUILTIN_INTERVAL = { ms: parseDuration(NODE_DEFAULTS.interval), builtin: NODE_DEFAULTS.interval };

function nodeProblems(node: Obj, i: number, defaults: Obj, firstByName: Map<string, number>): PathProblem[] {
  const out = [
    ...duplicateProbes(node.probes, ['nodes', i, 'probes']),
    ...headerProblems(node.headers, ['nodes', i, 'headers']),
    ...tlsProblems(node.tls, ['nodes', i, 'tls'], node.url),
  ];
  if (typeof node.name === 'string') {
    // Case-insensitive: names become file names and label values that people compare by eye.
    const key = node.name.toLowerCase();
    const first = firstByName.get(key);
    if (first === undefined) firstByName.set(key, i);
    else
      out.push({
        path: ['nodes', i, 'name'],
        message: `duplicate node name "${node.name}" (already used by nodes[${first}])`,
      });
  }
  const interval = firstSet([
    [node, 'interval', ['nodes', i, 'interval']],
    [defaults, 'interval', ['defaults', 'interval']],
  ]);
  const p = timeoutProblem(
    firstSet([[node, 'timeout', ['nodes', i, 'timeout']]]),
    interval ? { ...interval, builtin: '' } : BUILTIN_INTERVAL,
  );
  return p ? [...out, p] : out;
}

export const nodesSection = defineSection({
  shape: {
    defaults: defaultsSchema,
    nodes: z
      .array(nodeSchema, {
        error: (iss) => (iss.input === undefined ? 'no nodes configured: at least one node is required' : undefined),
      })
      .min(1, 'no nodes configured: at least one node is required')
      .meta({ description: 'The nodes to poll; each inherits `defaults` and may override any of them.' }),
  },

  check(doc) {
    const defaults = isObj(doc.defaults) ? doc.defaults : {};
    const out = [
      ...duplicateProbes(defaults.probes, ['defaults', 'probes']),
      ...headerProblems(defaults.headers, ['defaults', 'headers']),
      ...tlsProblems(defaults.tls, ['defaults', 'tls']),
    ];
    const interval = firstSet([[defaults, 'interval', ['defaults', 'interval']]]);
    const p = timeoutProblem(
      firstSet([[defaults, 'timeout', ['defaults', 'timeout']]]),
      interval ? { ...interval, builtin: '' } : BUILTIN_INTERVAL,
    );
    if (p) out.push(p);
    const firstByName = new Map<string, number>();
    const nodes = Array.isArray(doc.nodes) ? doc.nodes : [];
    nodes.forEach((node, i) => {
      if (isObj(node)) out.push(...nodeProblems(node, i, defaults, firstByName));
    });
    out.push(...sharedOriginProblems(nodes, defaults));
    return out;
  },

  resolve({ defaults: d, nodes }, { baseDir }) {
    const defaultIntervalMs = parseDuration(d.interval);
    const defaultTimeoutMs = effectiveTimeout(
      d.timeout === undefined ? undefined : parseDuration(d.timeout),
      parseDuration(NODE_DEFAULTS.timeout),
      defaultIntervalMs,
    );
    const targets: NodeTarget[] = nodes.map((n) => {
      const intervalMs = parseDuration(n.interval ?? d.interval);
      const tls = n.url.startsWith('https:') ? resolveTls(d.tls, n.tls, baseDir) : undefined;
      return {
        name: n.name,
        url: n.url,
        network: n.network,
        labels: { ...n.labels },
        intervalMs,
        timeoutMs: effectiveTimeout(
          n.timeout === undefined ? undefined : parseDuration(n.timeout),
          defaultTimeoutMs,
          intervalMs,
        ),
        rpcNamespace: n.rpcNamespace ?? d.rpcNamespace,
        probes: [...(n.probes ?? d.probes)],
        headers: mergeHeaders(d.headers, n.headers, baseDir),
        ...(tls ? { tls } : {}),
      };
    });
    return { nodes: targets };
  },

  secrets: (c) => c.nodes.flatMap(nodeSecrets),
});

/** A node's URL credentials (raw, decoded, as a Basic token) and its literal header values. */
export function nodeSecrets(target: Pick<NodeTarget, 'url' | 'headers'>): string[] {
  const out = urlCredentials(target.url);
  for (const v of Object.values(target.headers)) if ('value' in v) out.push(v.value);
  return out;
}
