// The agent API key, from a mounted secret file or an environment variable. The file is
// re-read whenever its identity changes (mtime, size, inode: a Kubernetes secret update swaps a
// symlink), so a rotated key is used from the next check without a restart.
import { stat } from 'node:fs/promises';
import type { Secrets } from '../redact.js';
import { readUtf8File } from '../files/utf8.js';

export type KeyLookup = { kind: 'key'; key: string; source: 'env' | 'file' } | { kind: 'none'; why: string };

/** Keys longer than this are not keys (and must not be pushed into an HTTP header). */
const MAX_KEY_BYTES = 8192;

export class ApiKeySource {
  private cached?: { sig: string; lookup: KeyLookup };

  constructor(
    private readonly opts: { apiKeyEnv: string; apiKeyFile?: string; env?: NodeJS.ProcessEnv; secrets: Secrets },
  ) {}

  /** Describes where the key comes from, for logs (never the key). */
  describe(): string {
    return this.opts.apiKeyFile ? `file ${this.opts.apiKeyFile}` : `environment variable ${this.opts.apiKeyEnv}`;
  }

  /** The current key. A configured file wins over the environment variable. Never throws. */
  async current(): Promise<KeyLookup> {
    const file = this.opts.apiKeyFile;
    if (file) return this.fromFile(file);
    const env = this.opts.env ?? process.env;
    return accept(
      this.opts.secrets,
      env[this.opts.apiKeyEnv],
      'env',
      `environment variable ${this.opts.apiKeyEnv} is not set or empty`,
    );
  }

  private async fromFile(file: string): Promise<KeyLookup> {
    let sig: string;
    try {
      const st = await stat(file);
      if (!st.isFile()) return { kind: 'none', why: `key file ${file} is not a regular file` };
      if (st.size > MAX_KEY_BYTES)
        return { kind: 'none', why: `key file ${file} is larger than ${MAX_KEY_BYTES} bytes` };
      sig = `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
    } catch (err) {
      this.cached = undefined;
      return {
        kind: 'none',
        why: `key file ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      };
    }
    if (this.cached?.sig === sig) return this.cached.lookup;
    let lookup: KeyLookup;
    try {
      const text = await readUtf8File(file);
      lookup = accept(this.opts.secrets, text, 'file', `key file ${file} is empty`);
    } catch (err) {
      return {
        kind: 'none',
        why: `key file ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      };
    }
    this.cached = { sig, lookup };
    return lookup;
  }
}

function accept(secrets: Secrets, raw: string | undefined, source: 'env' | 'file', emptyWhy: string): KeyLookup {
  // Secret files usually end with a newline; surrounding whitespace is never part of a key.
  const key = raw?.trim();
  if (!key) return { kind: 'none', why: emptyWhy };
  // Registered before anything else, so no log line or error can carry it, even a rejected one.
  secrets.add(key);
  for (const line of key.split(/\s+/)) secrets.add(line);
  if (Buffer.byteLength(key) > MAX_KEY_BYTES) return { kind: 'none', why: 'the key is too long' };
  // Bearer tokens are printable ASCII without spaces (RFC 6750 b64token is narrower still).
  if (!/^[\x21-\x7e]+$/.test(key)) {
    return {
      kind: 'none',
      why:
        `the key from the ${source === 'env' ? 'environment' : 'file'} holds spaces, line breaks or non-ASCII ` +
        `characters`,
    };
  }
  return { kind: 'key', key, source };
}
