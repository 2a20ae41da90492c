// Secrets never leave the process: URLs lose their credentials, known secret values are
// scrubbed from any text before it reaches a log, an error message, a label or evidence.
// There is no process-wide registry: each run builds a `Secrets` from its resolved config
// (config/secrets.ts) and hands it to the logger, the HTTP client and the evidence writer.

/** The URL without user info; unparsable input is replaced, never echoed. */
export function redactUrl(raw: string): string {
  try {
    const u = new URL(raw);
    if (u.username || u.password) {
      u.username = '';
      u.password = '';
    }
    return u.toString();
  } catch {
    return '<invalid url>';
  }
}

/** Header names whose values are secrets wherever they appear. */
export const SECRET_HEADER_NAMES = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
]);

/**
 * The secret values one run knows (API keys, header values, URL passwords), so free text (error
 * messages from libraries, bodies echoed by a server) can be scrubbed. Values learnt at request
 * time (a header file, the agent key file) are added by the code that reads them.
 */
export class Secrets {
  private readonly values = new Set<string>();

  add(secret: string | undefined): void {
    this.addOne(secret);
    // "<scheme> <credential>" (Bearer, Basic, Token, ...): a server may echo the credential alone,
    // whatever source the value came from (a header file is only read at request time).
    this.addOne(secret && /^\S+[ \t]+(\S+)$/.exec(secret)?.[1]);
  }

  addAll(secrets: Iterable<string>): void {
    for (const s of secrets) this.add(s);
  }

  private addOne(secret: string | undefined): void {
    // Very short values would scrub ordinary words; such a "secret" offers no protection anyway.
    if (secret && secret.length >= 4) {
      this.values.add(secret);
      const encoded = encodeURIComponent(secret);
      if (encoded !== secret) this.values.add(encoded);
    }
  }

  /** Registers the user info of a URL (both raw and percent-decoded forms). */
  addUrlCredentials(raw: string): void {
    this.addAll(urlCredentials(raw));
  }

  /** How many values are known (tests: a rejected config registers none). */
  get size(): number {
    return this.values.size;
  }

  scrub(text: string): string {
    let out = text;
    for (const s of this.values) {
      if (out.includes(s)) out = out.split(s).join('[REDACTED]');
    }
    // Credentials embedded in any URL-looking text.
    // Anchored on "://", not on the scheme: a scheme pattern first backtracks over every run of
    // letters (quadratic: a 4 KB body of letters from a node cost ~50 ms per scrub).
    return out.replace(/:\/\/[^\s/@]+@/g, '://[REDACTED]@');
  }

  /** Scrubs raw bytes; latin1 maps bytes 1:1 so binary content survives. */
  scrubBytes(body: Uint8Array): Uint8Array {
    const text = Buffer.from(body).toString('latin1');
    const clean = this.scrub(text);
    return clean === text ? body : new Uint8Array(Buffer.from(clean, 'latin1'));
  }

  /** Response headers minus secret-bearing ones, the rest scrubbed (a server may echo a key). */
  scrubHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | string[] | undefined> {
    const out: Record<string, string | string[] | undefined> = {};
    for (const [name, value] of Object.entries(headers)) {
      if (SECRET_HEADER_NAMES.has(name.toLowerCase())) continue;
      out[name] = Array.isArray(value)
        ? value.map((v) => this.scrub(v))
        : value === undefined
          ? undefined
          : this.scrub(value);
    }
    return out;
  }
}

/**
 * The parts of a secret URL a server may echo without the rest, raw and percent-decoded: its path
 * with its query, its path, its query and its last path segment (8 characters or more), chosen by
 * what they are (the user gave the URL as a secret), not by what they look like. Other segments ("services",
 * "hooks") are not registered here: the set is shared by the whole process and scrubs every text
 * it sees. A receiver kind adds the segments it knows are secret (Slack's team, bot and token),
 * and a receiver's own answer is scrubbed of every part of its URL (urlEveryPart).
 */
export function urlSecretParts(raw: string): string[] {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return [];
  }
  const query = u.search.slice(1);
  const last = u.pathname.split('/').pop() ?? '';
  // Longest first: scrub() replaces in this order, and a part replaced first hides the whole.
  // 8 characters at least: a shorter part ("/hook") would scrub ordinary words from every text.
  const raws = [u.pathname + u.search, u.pathname, query, last].filter((part) => part.length >= 8);
  return [...new Set(raws.flatMap((part) => [part, safeDecode(part)]))];
}

/** The path segments after `after` (Slack: /services/<team>/<bot>/<token>), raw and decoded. */
export function urlSegmentsAfter(raw: string, after: string): string[] {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return [];
  }
  const segments = u.pathname.split('/');
  const at = segments.indexOf(after);
  return at < 0
    ? []
    : segments
        .slice(at + 1)
        .filter((s) => s.length > 0)
        .flatMap((s) => [s, safeDecode(s)]);
}

/** Every part of a URL's path and query (each segment of 4 characters or more), longest first. */
export function urlEveryPart(raw: string): string[] {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return [];
  }
  const parts = [
    u.pathname + u.search,
    u.pathname,
    u.search.slice(1),
    ...u.pathname.split('/'),
    ...u.search.slice(1).split(/[&=]/),
  ];
  // Shorter parts would cut ordinary words out of the answer and protect nothing.
  const all = parts.filter((p) => p.length >= 4).flatMap((p) => [p, safeDecode(p)]);
  return [...new Set(all)].sort((x, y) => y.length - x.length);
}

/** `text` with every one of `parts` replaced (urlEveryPart's order: longest first). */
export function scrubParts(text: string, parts: readonly string[]): string {
  let out = text;
  for (const p of parts) if (out.includes(p)) out = out.split(p).join('[REDACTED]');
  return out;
}

/** User and password of a URL, raw and percent-decoded, plus the Basic token built from them. */
export function urlCredentials(raw: string): string[] {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return []; // invalid URLs are reported by config validation
  }
  const out: string[] = [];
  for (const part of [u.username, u.password]) {
    if (!part) continue;
    out.push(part);
    try {
      out.push(decodeURIComponent(part));
    } catch {
      /* keep the raw form only */
    }
  }
  if (u.username || u.password) out.push(basicToken(u));
  return out;
}

/** The `Basic` credential for a URL's user info. */
export function basicToken(u: URL): string {
  return basicCredential(safeDecode(u.username), safeDecode(u.password));
}

/** The `Basic` credential (RFC 7617) for a user and password. */
export function basicCredential(username: string, password: string): string {
  return Buffer.from(`${username}:${password}`).toString('base64');
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
