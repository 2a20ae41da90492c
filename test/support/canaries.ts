// Recognisable secret values ("canaries") and a search for them in every form a leak could take:
// raw, URL-encoded (either hex case, also double-encoded), and base64 / base64url at any byte
// alignment (a secret inside a larger encoded blob, such as `user:password` in a Basic header).
import { randomBytes } from 'node:crypto';

export interface Canary {
  label: string;
  value: string;
}

/**
 * A fresh canary. `+`, `/` and `=` are in it on purpose: they change under URL encoding, so the
 * encoded form differs from the raw one and is searched separately.
 */
export function makeCanary(label: string): Canary {
  return { label, value: `CNRY-${label}-${randomBytes(9).toString('hex')}${SUFFIX}` };
}

const SUFFIX = '+k/q=';
const RANDOM_RE = /-([0-9a-f]{18})\+k\/q=$/;

export interface CanaryForm {
  form: string;
  text: string;
  /** Percent-encoding may use either hex case. */
  caseInsensitive: boolean;
}

/**
 * Base64 of `value` embedded at each of the three byte alignments: the characters that depend on
 * `value` alone (not on the bytes around it) are what any encoding of a larger text must contain.
 */
function base64Fragments(value: string, url: boolean): string[] {
  const out: string[] = [];
  const bytes = Buffer.from(value, 'utf8');
  for (let offset = 0; offset < 3; offset++) {
    const padded = Buffer.concat([Buffer.alloc(offset, 0x41), bytes, Buffer.alloc(3, 0x41)]);
    const enc = padded.toString(url ? 'base64url' : 'base64');
    // Characters fully determined by the canary's bytes: skip the group touching the prefix and the tail.
    const start = offset === 0 ? 0 : 4;
    const fullGroups = Math.floor((offset + bytes.length) / 3);
    const end = fullGroups * 4;
    const frag = enc.slice(start, end);
    if (frag.length >= 16) out.push(frag);
  }
  return out;
}

export function canaryForms(c: Canary): CanaryForm[] {
  const forms: CanaryForm[] = [{ form: 'raw', text: c.value, caseInsensitive: false }];
  // A secret cut in two (a bounded field truncated mid-secret) leaks its head or its tail.
  const random = RANDOM_RE.exec(c.value)?.[1];
  if (random) {
    forms.push({
      form: 'partial-head',
      text: c.value.slice(0, c.value.length - SUFFIX.length - random.length + 8),
      caseInsensitive: false,
    });
    forms.push({ form: 'partial-tail', text: random.slice(-8) + SUFFIX, caseInsensitive: false });
  }
  const enc = encodeURIComponent(c.value);
  if (enc !== c.value) {
    forms.push({ form: 'url-encoded', text: enc, caseInsensitive: true });
    forms.push({ form: 'double-url-encoded', text: encodeURIComponent(enc), caseInsensitive: true });
  }
  for (const f of base64Fragments(c.value, false)) forms.push({ form: 'base64', text: f, caseInsensitive: false });
  for (const f of base64Fragments(c.value, true)) forms.push({ form: 'base64url', text: f, caseInsensitive: false });
  return forms;
}

export interface CanaryHit {
  output: string;
  canary: string;
  form: string;
}

/** Every canary form found in `text` (named `output` in the hits). */
export function findCanaries(output: string, text: string, canaries: Canary[]): CanaryHit[] {
  const hits: CanaryHit[] = [];
  const lower = text.toLowerCase();
  for (const c of canaries) {
    for (const f of canaryForms(c)) {
      const found = f.caseInsensitive ? lower.includes(f.text.toLowerCase()) : text.includes(f.text);
      if (found) hits.push({ output, canary: c.label, form: f.form });
    }
  }
  return hits;
}
