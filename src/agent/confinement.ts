// Where the agent API key may go. The interface allows `{base_url}/api/*` only, so every URL the
// key is attached to is checked here first; plain http is allowed for loopback only, where no
// network path exists for an eavesdropper.

// One rule for check-config and the runtime check (the config section's), so they never disagree.
import { commonUrlReason, isLoopbackHost, parseUrl } from '../config/rules.js';

export { isLoopbackHost };

/** Why this baseUrl cannot be used, or undefined when it is acceptable. Never echoes credentials. */
export function agentBaseUrlProblem(baseUrl: string): string | undefined {
  const reason = agentUrlReason(baseUrl);
  return reason && `agentPlatform.baseUrl: ${reason}`;
}

/** Base path of the platform, without a trailing slash ("" for a bare origin). */
function basePath(base: URL): string {
  return base.pathname.replace(/\/+$/, '');
}

/** `{baseUrl}/api/<apiPath>`, e.g. agentApiUrl(base, 'agents/me'). */
export function agentApiUrl(baseUrl: string, apiPath: string): URL {
  const base = new URL(baseUrl);
  const out = new URL(base.origin);
  out.pathname = `${basePath(base)}/api/${apiPath.replace(/^\/+/, '')}`;
  return out;
}

/**
 * True only when `target` has the same origin (scheme, host, port) as baseUrl and its path lies
 * under `{basePath}/api/`. Dot segments are already resolved by URL parsing, so `/api/../x` fails.
 */
export function keyMayBeSentTo(baseUrl: string, target: URL | string): boolean {
  if (agentBaseUrlProblem(baseUrl)) return false;
  let t: URL;
  try {
    t = typeof target === 'string' ? new URL(target) : target;
  } catch {
    return false;
  }
  const base = new URL(baseUrl);
  if (t.username || t.password) return false;
  if (t.origin !== base.origin) return false;
  return t.pathname.startsWith(`${basePath(base)}/api/`);
}

/** The platform URL carries an API key in a header: https, or plain http only on loopback. */
export function agentUrlReason(raw: string): string | undefined {
  const u = parseUrl(raw);
  const common = commonUrlReason(raw, u);
  if (common || !u) return common;
  if (u.username || u.password)
    return 'URL must not contain credentials: the API key comes from apiKeyEnv or apiKeyFile';
  if (u.protocol === 'http:' && !isLoopbackHost(u.hostname)) {
    return (
      'plain http is allowed only for a loopback host (127.0.0.0/8, ::1, localhost): the API key would travel ' +
      'unencrypted; use https'
    );
  }
  return undefined;
}
