// The command line's client of a running exporter's Alertmanager API v2 (and its ack endpoint):
// the URL from --url or LEDGER_EXPORTER_URL, basic auth from the URL's user info or from amtool's
// --http.config.file. The password is a secret: it is registered with `secrets` and only ever
// sent in the Authorization header; messages name the URL without it.
import { readFile } from 'node:fs/promises';
import { request } from 'undici';
import { parse as parseYaml } from 'yaml';
import { basicCredential, redactUrl, type Secrets } from '../redact.js';
import { UsageError } from './options.js';

export const URL_ENV = 'LEDGER_EXPORTER_URL';
const TIMEOUT_MS = 15_000;
const MAX_ANSWER_CHARS = 300;

export interface ApiTarget {
  /** Base URL without credentials, without a trailing slash. */
  base: string;
  authorization?: string;
}

/** amtool's http config: `basic_auth: {username, password | password_file}` (username_file too). */
interface HttpConfig {
  basic_auth?: { username?: string; username_file?: string; password?: string; password_file?: string };
}

/** Where to send and how to authenticate; every credential is registered with `secrets` first. */
export async function apiTarget(
  url: string | undefined,
  httpConfigFile: string | undefined,
  secrets: Secrets,
): Promise<ApiTarget> {
  const raw = url ?? process.env[URL_ENV];
  if (!raw) throw new UsageError(`give the exporter's URL: --url http://exporter:9715 (or set ${URL_ENV})`);
  secrets.addUrlCredentials(raw);
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new UsageError(`--url: not a URL: ${secrets.scrub(raw)}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new UsageError('--url: the scheme must be http or https');
  let user = decodeURIComponent(u.username);
  let password = decodeURIComponent(u.password);
  if (httpConfigFile) ({ user, password } = await httpConfigAuth(httpConfigFile, secrets, { user, password }));
  const base = redactUrl(u.toString()).replace(/\/+$/, '');
  return user || password ? { base, authorization: `Basic ${basicCredential(user, password)}` } : { base };
}

async function httpConfigAuth(
  file: string,
  secrets: Secrets,
  fromUrl: { user: string; password: string },
): Promise<{ user: string; password: string }> {
  let config: HttpConfig;
  try {
    config = (parseYaml(await readFile(file, 'utf8')) ?? {}) as HttpConfig;
  } catch (err) {
    throw new UsageError(`--http.config.file ${file}: ${(err as NodeJS.ErrnoException).code ?? 'not YAML'}`);
  }
  const auth = config.basic_auth;
  if (!auth) return fromUrl;
  const fromFile = async (path: string | undefined, what: string) => {
    if (path === undefined) return undefined;
    try {
      return (await readFile(path, 'utf8')).replace(/\r?\n$/, '');
    } catch (err) {
      throw new UsageError(
        `--http.config.file: cannot read ${what} from ${path} (${(err as NodeJS.ErrnoException).code})`,
      );
    }
  };
  const user = auth.username ?? (await fromFile(auth.username_file, 'username_file')) ?? fromUrl.user;
  const password = auth.password ?? (await fromFile(auth.password_file, 'password_file')) ?? fromUrl.password;
  secrets.add(password);
  return { user, password };
}

export class ApiError extends Error {}

/** One request; the parsed JSON answer (undefined for an empty body), or an ApiError saying what went wrong. */
export async function callApi(
  target: ApiTarget,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  secrets: Secrets,
  body?: unknown,
): Promise<unknown> {
  const url = `${target.base}${path}`;
  let res;
  try {
    res = await request(url, {
      method,
      headers: {
        accept: 'application/json',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(target.authorization ? { authorization: target.authorization } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
    });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new ApiError(secrets.scrub(`cannot reach ${target.base}: ${e.code ?? e.message}`));
  }
  const text = await res.body.text();
  if (res.statusCode >= 300) {
    const reason = answerReason(text);
    throw new ApiError(
      secrets.scrub(`${method} ${target.base}${path}: HTTP ${res.statusCode}${reason ? `: ${reason}` : ''}`),
    );
  }
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiError(`${method} ${target.base}${path}: the answer is not JSON (is this the exporter's URL?)`);
  }
}

/** The server's reason: a JSON string, `{error|message}`, or the text, shortened. */
function answerReason(text: string): string {
  let reason = text.trim();
  try {
    const v = JSON.parse(reason) as unknown;
    if (typeof v === 'string') reason = v;
    else if (typeof v === 'object' && v !== null) {
      const o = v as { error?: unknown; message?: unknown };
      const said = o.error ?? o.message;
      if (typeof said === 'string') reason = said;
    }
  } catch {
    /* plain text */
  }
  return reason.length > MAX_ANSWER_CHARS ? `${reason.slice(0, MAX_ANSWER_CHARS)}…` : reason;
}
