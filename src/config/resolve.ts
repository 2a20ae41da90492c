// Validated raw config -> ExporterConfig: inheritance from `defaults`, units converted,
// relative paths resolved against the config file's directory.

import { resolve as resolvePath } from 'node:path';
import type { ExporterConfig, NetworkSettings, NodeTarget, SecretValue } from '../domain.js';
import { parseByteSize } from './byteSize.js';
import { parseDuration } from './duration.js';
import { parseListenAddress } from './rules.js';
import type { RawConfig } from './schema.js';

export const DEFAULT_DECIMALS = 9;

type RawHeaders = Record<string, string | { file: string }>;

/** Defaults first, then the node's own; header names compare case-insensitively. */
function mergeHeaders(base: RawHeaders, own: RawHeaders | undefined, baseDir: string): Record<string, SecretValue> {
  const merged = new Map<string, [string, string | { file: string }]>();
  for (const [name, value] of [...Object.entries(base), ...Object.entries(own ?? {})]) {
    merged.set(name.toLowerCase(), [name, value]);
  }
  const out: Record<string, SecretValue> = {};
  for (const [name, value] of merged.values()) {
    out[name] = typeof value === 'string' ? { value } : { file: resolvePath(baseDir, value.file) };
  }
  return out;
}

export function resolveConfig(raw: RawConfig, baseDir: string): ExporterConfig {
  const d = raw.defaults;
  const nodes: NodeTarget[] = raw.nodes.map((n) => ({
    name: n.name,
    url: n.url,
    network: n.network,
    labels: { ...n.labels },
    intervalMs: parseDuration(n.interval ?? d.interval),
    timeoutMs: parseDuration(n.timeout ?? d.timeout),
    rpcNamespace: n.rpcNamespace ?? d.rpcNamespace,
    probes: [...(n.probes ?? d.probes)],
    headers: mergeHeaders(d.headers, n.headers, baseDir),
  }));

  // Every network in use gets an entry, so consumers need no fallback of their own.
  const networks: Record<string, NetworkSettings> = {};
  for (const n of nodes) networks[n.network] = { decimals: DEFAULT_DECIMALS };
  for (const [name, s] of Object.entries(raw.networks)) networks[name] = { decimals: s.decimals };

  const config: ExporterConfig = {
    listen: parseListenAddress(raw.listen),
    polling: {
      concurrency: raw.polling.concurrency,
      maxResponseBytes: parseByteSize(raw.polling.maxResponseBytes),
      maxUpstreamSeries: raw.polling.maxUpstreamSeries,
    },
    nodes,
    networks,
    evidence: {
      dir: resolvePath(baseDir, raw.evidence.dir),
      maxBytes: parseByteSize(raw.evidence.maxBytes),
      maxAgeDays: raw.evidence.maxAgeDays,
    },
  };
  const ap = raw.agentPlatform;
  if (ap) {
    config.agentPlatform = {
      baseUrl: ap.baseUrl,
      apiKeyEnv: ap.apiKeyEnv,
      ...(ap.apiKeyFile !== undefined ? { apiKeyFile: resolvePath(baseDir, ap.apiKeyFile) } : {}),
      intervalMs: parseDuration(ap.interval),
      timeoutMs: parseDuration(ap.timeout),
    };
  }
  return config;
}
