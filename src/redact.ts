// Secrets never leave the process: URLs lose their credentials, known secret values are
// scrubbed from any text before it reaches a log, an error message, a label or evidence.

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
export const SECRET_HEADER_NAMES = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key']);

/**
 * Registry of secret values known at run time (API keys, header values, URL passwords),
 * so free text (error messages from libraries, bodies echoed by a server) can be scrubbed.
 */
export class SecretScrubber {
  private readonly secrets = new Set<string>();

  add(secret: string | undefined): void {
    this.addOne(secret);
    // "<scheme> <credential>" (Bearer, Basic, Token, ...): a server may echo the credential alone,
    // whatever source the value came from (a header file is only read at request time).
    this.addOne(secret && /^\S+[ \t]+(\S+)$/.exec(secret)?.[1]);
  }

  private addOne(secret: string | undefined): void {
    // Very short values would scrub ordinary words; such a "secret" offers no protection anyway.
    if (secret && secret.length >= 4) {
      this.secrets.add(secret);
      const encoded = encodeURIComponent(secret);
      if (encoded !== secret) this.secrets.add(encoded);
    }
  }

  /** Registers the user info of a URL (both raw and percent-decoded forms). */
  addUrlCredentials(raw: string): void {
    try {
      const u = new URL(raw);
      for (const part of [u.username, u.password]) {
        if (!part) continue;
        this.add(part);
        try {
          this.add(decodeURIComponent(part));
        } catch {
          /* keep the raw form only */
        }
      }
    } catch {
      /* invalid URLs are reported by config validation */
    }
  }

  scrub(text: string): string {
    let out = text;
    for (const s of this.secrets) {
      if (out.includes(s)) out = out.split(s).join('[REDACTED]');
    }
    // Credentials embedded in any URL-looking text.
    return out.replace(/([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi, '$1[REDACTED]@');
  }
}

/** One process-wide scrubber: every module that learns a secret registers it here. */
export const scrubber = new SecretScrubber();
