// The secrets of one resolved configuration. Nothing is registered while parsing, so a rejected
// config leaves no trace; the daemon adds these to its Secrets once a config is accepted.
import type { AgentPlatformSettings, ExporterConfig, NodeTarget } from '../domain.js';
import { Secrets, urlCredentials } from '../redact.js';

/** A node's URL credentials (raw, decoded, as a Basic token) and its literal header values. */
export function nodeSecrets(target: Pick<NodeTarget, 'url' | 'headers'>): string[] {
  const out = urlCredentials(target.url);
  for (const v of Object.values(target.headers)) if ('value' in v) out.push(v.value);
  return out;
}

function agentPlatformSecrets(ap: AgentPlatformSettings | undefined): string[] {
  // The key itself is read at run time (agent/keySource.ts adds it); a baseUrl never has credentials.
  return ap ? urlCredentials(ap.baseUrl) : [];
}

// Each config section contributes its secrets here; a new section with secrets adds one line.
const SECTION_SECRETS: Array<(c: ExporterConfig) => string[]> = [
  (c) => c.nodes.flatMap(nodeSecrets),
  (c) => agentPlatformSecrets(c.agentPlatform),
];

/** Adds every secret of `config` to `into` (a new Secrets when omitted) and returns it. */
export function secretsOf(config: ExporterConfig, into: Secrets = new Secrets()): Secrets {
  for (const contribute of SECTION_SECRETS) into.addAll(contribute(config));
  return into;
}
