// The one place a node's answers are scrubbed of that node's own secrets before anything keeps them:
// a node (or its proxy) may echo what it was sent (the x-api-key header, the URL's password, the
// Basic token) into any field of any answer (/health `version`, `chain_id`, a label of its
// /metrics, a JSON-RPC result), and what a probe parses is stored, exported as labels and shown on
// the status page. Every string of the parsed data is scrubbed, whatever field it came in.
import { Secrets } from '../redact.js';

/** Deep enough for any probe's data; deeper parts are kept as they are (no probe makes them). */
const MAX_DEPTH = 32;

/** The secrets a node is sent: its URL's credentials and its header values (header files add theirs as read). */
export function nodeSecrets(url: string, headerValues: Iterable<string>): Secrets {
  const secrets = new Secrets();
  secrets.addUrlCredentials(url);
  secrets.addAll(headerValues);
  return secrets;
}

/** `data` with every string in it scrubbed of `secrets`; the same object when nothing changed (most answers). */
export function scrubNodeData<T>(data: T, secrets: Secrets): T {
  if (secrets.size === 0) return data;
  return scrubValue(data, (s) => secrets.scrub(s), 0) as T;
}

/** Copy on write: only the containers on the path to a changed string are copied; shared parts are never mutated. */
function scrubValue(value: unknown, scrub: (s: string) => string, depth: number): unknown {
  if (typeof value === 'string') return scrub(value);
  if (value === null || typeof value !== 'object' || depth >= MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      const s = scrubValue(v, scrub, depth + 1);
      if (s !== v) (out ??= value.slice())[i] = s;
    }
    return out ?? value;
  }
  if (value instanceof Map) {
    let changed = false;
    const entries = [...(value as Map<unknown, unknown>)].map(([k, v]) => {
      const sk = scrubValue(k, scrub, depth + 1);
      const sv = scrubValue(v, scrub, depth + 1);
      changed ||= sk !== k || sv !== v;
      return [sk, sv] as const;
    });
    return changed ? new Map(entries) : value;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  let out: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(value)) {
    const sk = scrub(k);
    const sv = scrubValue(v, scrub, depth + 1);
    if (sk === k && sv === v) continue;
    out ??= { ...(value as Record<string, unknown>) };
    if (sk !== k) delete out[k];
    out[sk] = sv;
  }
  return out ?? value;
}
