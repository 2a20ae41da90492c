// The agent profile returned by GET /api/agents/me. Its fields are not specified, so only a few
// harmless identifiers are picked (id, name), bounded, and looked for where APIs usually put them.
import { Secrets } from '../redact.js';

export interface AgentProfile {
  id?: string;
  name?: string;
}

/** Longest label value we expose from the profile. */
export const MAX_PROFILE_FIELD = 128;

/** Parses the body of a 2xx answer; undefined when it is not a JSON object. */
export function parseAgentProfile(body: Uint8Array, secrets: Secrets = new Secrets()): AgentProfile | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(new TextDecoder('utf-8', { fatal: false }).decode(body));
  } catch {
    return undefined;
  }
  if (!isObject(doc)) return undefined;
  // Top level first, then the usual envelopes ({agent: {...}}, {data: {...}}).
  const candidates = [doc, doc.agent, doc.data, doc.profile, isObject(doc.data) ? doc.data.agent : undefined].filter(
    isObject,
  );
  const profile: AgentProfile = {};
  for (const c of candidates) {
    profile.id ??= field(c.id, secrets);
    profile.name ??= field(c.name, secrets);
  }
  return profile;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function field(v: unknown, secrets: Secrets): string | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v !== 'string') return undefined;
  // Control characters have no place in a label; length is bounded so a label cannot bloat.
  // Scrubbed before the cut: a secret cut in two would no longer be recognised, and half survive.
  const clean = secrets.scrub(v.replace(/[\u0000-\u001f\u007f]/g, '')).trim();
  if (!clean) return undefined;
  return [...clean].slice(0, MAX_PROFILE_FIELD).join('');
}
