// The YAML configuration as written (input form). Defaults shown here are what an omitted
// key means; per-node inheritance from `defaults` and unit conversion happen in resolve.ts.

import * as z from 'zod';
import { PROBE_NAMES } from '../domain.js';
import { byteSizeReason, parseByteSize } from './byteSize.js';
import { durationReason, parseDuration } from './duration.js';
import {
  ENV_NAME_RE,
  NAMESPACE_RE,
  agentUrlReason,
  headerNameReason,
  labelNameReason,
  listenReason,
  nameReason,
  nodeUrlReason,
} from './rules.js';

/** A string checked by a `...Reason` rule; the rule's text becomes the problem message. */
function checked(rule: (s: string) => string | undefined, prefix = '', typeError?: string) {
  // A missing key keeps zod's message (mapped to "missing required key"); a wrong type gets ours.
  const error = typeError ? (iss: { input?: unknown }) => (iss.input === undefined ? undefined : typeError) : undefined;
  return z.string(error ? { error } : undefined).superRefine((s, ctx) => {
    const reason = rule(s);
    if (reason) ctx.addIssue({ code: 'custom', message: prefix + reason });
  });
}

const MAX_DURATION_MS = 24 * 3_600_000; // timers stay far below setTimeout's 24.8-day limit

// No JSON-schema pattern: the file may hold ${VAR} where a duration goes.
function duration(description: string) {
  return checked((s) => {
    const reason = durationReason(s);
    if (reason) return `invalid duration: ${reason}`;
    const ms = parseDuration(s);
    if (ms <= 0) return 'duration must be greater than 0';
    if (ms > MAX_DURATION_MS) return 'duration must be at most 24h';
    return undefined;
  }, '', 'invalid duration: expected a number with a unit (ns, us, ms, s, m, h), e.g. 500ms, 15s, 2m, 1h30m').meta({ description: `${description} Go-style duration, e.g. 500ms, 15s, 2m, 1h30m.` });
}

function byteSize(description: string, min: number, max: number) {
  return z
    .union([z.number(), z.string()], { error: 'expected a byte size such as 256MiB, or a number of bytes' })
    .superRefine((v, ctx) => {
      const reason = byteSizeReason(v);
      if (reason) return ctx.addIssue({ code: 'custom', message: `invalid byte size: ${reason}` });
      const bytes = parseByteSize(v);
      if (bytes < min || bytes > max) ctx.addIssue({ code: 'custom', message: `must be between ${min} and ${max} bytes` });
    })
    .meta({ description: `${description} A number of bytes, or a size with unit: KB, MB, GB (1000-based), KiB, MiB, GiB (1024-based).` });
}

const nameOf = (what: string) => checked(nameReason, `${what} `);

const probesSchema = z
  .array(z.enum(PROBE_NAMES, { error: `unknown probe: expected one of ${PROBE_NAMES.join(', ')}` }))
  // Duplicates are checked in crossChecks.ts, so they are reported next to unknown probe names.
  .min(1, 'at least one probe is required')
  .meta({ description: `Probes to run: ${PROBE_NAMES.join(', ')}.` });

const rpcNamespaceSchema = z
  .string()
  .regex(NAMESPACE_RE, 'rpcNamespace must be "auto" or a lowercase word such as chain, claw, clw')
  .max(32)
  .meta({ description: 'JSON-RPC method namespace word: "auto" probes chain, claw, clw; or a fixed word.' });

const headerValueSchema = z.union([z.string(), z.strictObject({ file: z.string().min(1, 'file must not be empty') })], {
  error: 'header value must be a string or { file: <path> }',
});

const headersSchema = z
  // Case-insensitive duplicates and line breaks in values are checked in crossChecks.ts.
  .record(checked(headerNameReason), headerValueSchema)
  .meta({ description: 'Extra request headers (secrets): a value, or { file: <path> } read at request time.' });

const labelsSchema = z
  .record(checked(labelNameReason), z.string({ error: 'label values must be strings (quote numbers, e.g. "12")' }))
  .meta({ description: 'Extra labels exposed on ledger_node_info.' });

export const PROBE_DEFAULTS = [...PROBE_NAMES];

const defaultsSchema = z
  .strictObject({
    interval: duration('How often each probe runs.').default('15s'),
    timeout: duration('Timeout of one probe request; must be less than interval.').default('5s'),
    rpcNamespace: rpcNamespaceSchema.default('auto'),
    probes: probesSchema.default(PROBE_DEFAULTS),
    headers: headersSchema.default({}),
  })
  .prefault({})
  .meta({ description: 'Every node inherits these; any may be overridden per node.' });

const nodeSchema = z
  .strictObject({
    name: nameOf('node name').meta({ description: 'Unique; becomes the `node` label.' }),
    url: checked(nodeUrlReason).meta({ description: 'Base URL (http or https); may carry a path prefix and user:password.' }),
    network: nameOf('network name').default('default'),
    labels: labelsSchema.default({}),
    interval: duration('How often each probe runs.').optional(),
    timeout: duration('Timeout of one probe request; must be less than interval.').optional(),
    rpcNamespace: rpcNamespaceSchema.optional(),
    probes: probesSchema.optional(),
    headers: headersSchema.optional(),
  })
  .meta({ description: 'One ledger node.' });

const networkSchema = z.strictObject({
  decimals: z.number().int().min(0).max(36).default(9).meta({ description: 'Decimals of the native token base units.' }),
});

const pollingSchema = z
  .strictObject({
    concurrency: z.number().int().min(1).max(10_000).default(64).meta({ description: 'Probe requests in flight across the fleet.' }),
    maxResponseBytes: byteSize('Cap on a response body read from a node.', 1024, 2 ** 30).default('4MiB'),
    maxUpstreamSeries: z.number().int().min(1).max(1_000_000).default(2000).meta({ description: 'Upstream /metrics series kept per node.' }),
  })
  .prefault({});

const evidenceSchema = z
  .strictObject({
    dir: z.string().min(1).default('./data/evidence').meta({ description: 'Relative paths are resolved against the config file directory.' }),
    maxBytes: byteSize('Bound on the evidence directory size.', 1024, Number.MAX_SAFE_INTEGER).default('256MiB'),
    maxAgeDays: z.number().int().min(1).max(3650).default(30),
  })
  .prefault({});

const agentPlatformSchema = z
  .strictObject({
    baseUrl: checked(agentUrlReason).meta({ description: 'https, or http on a loopback host only.' }),
    apiKeyEnv: z.string().regex(ENV_NAME_RE, 'apiKeyEnv must be an environment variable name').default('AGENT_API_KEY'),
    apiKeyFile: z.string().min(1).optional().meta({ description: 'File holding the API key (instead of apiKeyEnv).' }),
    interval: duration('How often the platform is checked.').default('5m'),
    timeout: duration('Timeout of one platform request.').default('10s'),
  })
  .optional();

export const rawConfigSchema = z
  .strictObject({
    listen: checked(listenReason).default('0.0.0.0:9715').meta({ description: 'host:port of the exporter HTTP server; IPv6 as [::1]:9715.' }),
    defaults: defaultsSchema,
    polling: pollingSchema,
    networks: z.record(nameOf('network name'), networkSchema).default({}).meta({ description: 'Per-network settings; unlisted networks get decimals 9.' }),
    nodes: z
      .array(nodeSchema, { error: (iss) => (iss.input === undefined ? 'no nodes configured: at least one node is required' : undefined) })
      .min(1, 'no nodes configured: at least one node is required'),
    evidence: evidenceSchema,
    agentPlatform: agentPlatformSchema,
  })
  .meta({ title: 'ledger-fleet-exporter configuration' });

export type RawConfigInput = z.input<typeof rawConfigSchema>;
export type RawConfig = z.output<typeof rawConfigSchema>;
