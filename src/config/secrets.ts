// The secrets of one resolved configuration. Nothing is registered while parsing, so a rejected
// config leaves no trace; the daemon adds these to its Secrets once a config is accepted.
import type { ExporterConfig } from './exporterConfig.js';
import { Secrets } from '../redact.js';
import { sectionSecrets } from './sections/index.js';

export { nodeSecrets } from './sections/nodes.js';

/** Adds every secret of `config` to `into` (a new Secrets when omitted) and returns it. */
export function secretsOf(config: ExporterConfig, into: Secrets = new Secrets()): Secrets {
  // Each section contributes through its own `secrets` (sections/section.ts).
  into.addAll(sectionSecrets(config));
  return into;
}
