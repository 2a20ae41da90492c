// agentPlatform: the optional agent platform key check. Owns its schema and defaults, the
// baseUrl rule (also the runtime guard in agent/confinement.ts), the timeout rule, resolution
// and its secrets.
import { resolve as resolvePath } from 'node:path';
import * as z from 'zod';
import type { AgentPlatformSettings } from '../../domain.js';
import { urlCredentials } from '../../redact.js';
import { parseDuration } from '../duration.js';
import { ENV_NAME_RE } from '../rules.js';
import { checked, duration, effectiveTimeout, firstSet, isObj, timeoutProblem } from './fields.js';
import { defineSection } from './section.js';
import { agentUrlReason } from '../../agent/confinement.js';

export const AGENT_PLATFORM_DEFAULTS = { apiKeyEnv: 'AGENT_API_KEY', interval: '5m', timeout: '10s' } as const;

const schema = z
  .strictObject({
    baseUrl: checked(agentUrlReason).meta({ description: 'https, or http on a loopback host only.' }),
    apiKeyEnv: z
      .string()
      .regex(ENV_NAME_RE, 'apiKeyEnv must be an environment variable name')
      .default(AGENT_PLATFORM_DEFAULTS.apiKeyEnv)
      .meta({ description: 'Environment variable holding the API key.' }),
    apiKeyFile: z.string().min(1).optional().meta({ description: 'File holding the API key (instead of apiKeyEnv).' }),
    interval: duration('How often the platform is checked.').default(AGENT_PLATFORM_DEFAULTS.interval),
    // No zod default: an unset timeout is min(10s, interval), which needs to know it was unset.
    timeout: duration(
      `Timeout of one platform request; at most interval. Default: ${AGENT_PLATFORM_DEFAULTS.timeout}, or ` +
        `interval when shorter.`,
    ).optional(),
  })
  .optional()
  .meta({ description: 'The agent platform whose API key the exporter checks. Absent: no check.' });

export const agentPlatformSection = defineSection({
  shape: { agentPlatform: schema },

  check(doc) {
    const ap = doc.agentPlatform;
    if (!isObj(ap)) return [];
    const interval = firstSet([[ap, 'interval', ['agentPlatform', 'interval']]]);
    const p = timeoutProblem(firstSet([[ap, 'timeout', ['agentPlatform', 'timeout']]]), {
      ms: interval ? interval.ms : parseDuration(AGENT_PLATFORM_DEFAULTS.interval),
      path: interval?.path,
      builtin: AGENT_PLATFORM_DEFAULTS.interval,
    });
    return p ? [p] : [];
  },

  resolve({ agentPlatform: ap }, { baseDir }) {
    if (!ap) return {};
    const intervalMs = parseDuration(ap.interval);
    const settings: AgentPlatformSettings = {
      baseUrl: ap.baseUrl,
      apiKeyEnv: ap.apiKeyEnv,
      ...(ap.apiKeyFile !== undefined ? { apiKeyFile: resolvePath(baseDir, ap.apiKeyFile) } : {}),
      intervalMs,
      timeoutMs: effectiveTimeout(
        ap.timeout === undefined ? undefined : parseDuration(ap.timeout),
        parseDuration(AGENT_PLATFORM_DEFAULTS.timeout),
        intervalMs,
      ),
    };
    return { agentPlatform: settings };
  },

  // The key itself is read at run time (agent/keySource.ts adds it); a valid baseUrl has no credentials.
  secrets: (c) => (c.agentPlatform ? urlCredentials(c.agentPlatform.baseUrl) : []),
});
