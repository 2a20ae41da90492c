// Who may write (silences, acknowledgements): a basic-auth user of --web.config.file listed in
// `alerting.api.writers` (absent: every basic-auth user). The server has already checked the
// password (webConfig.ts) before a request reaches the router, so here the user is only named.
// A browser write must also be same-origin (Sec-Fetch-Site, else Origin against Host) and carry
// the write token: an HMAC of the user under a per-process secret, served to the signed-in page
// by GET /api/v1/session. Clients that send neither Origin nor Sec-Fetch-Site (amtool, curl, the
// CLI) are not browsers: no page can make them send a request, so they need no token.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { parseBasicAuth, WWW_AUTHENTICATE } from './basicAuth.js';
import type { Reply } from './route.js';
import type { WriteGate } from './router.js';

/** The header a browser write carries its token in. */
export const WRITE_TOKEN_HEADER = 'x-ledger-write-token';

export interface WritePolicy {
  /** The basic-auth users of --web.config.file; undefined or empty: basic auth is off. */
  users: ReadonlyMap<string, string> | undefined;
  /** `alerting.api.writers`, read at each request (a reload may change it); undefined: every user. */
  writers: () => readonly string[] | undefined;
  tokens: WriteTokens;
}

/** The write token of each user: valid for this process only (a restart makes the page fetch a new one). */
export class WriteTokens {
  constructor(private readonly secret: Buffer = randomBytes(32)) {}

  tokenFor(user: string): string {
    return createHmac('sha256', this.secret).update(`write\0${user}`).digest('base64url');
  }

  verify(user: string, token: string | undefined): boolean {
    if (!token) return false;
    const want = Buffer.from(this.tokenFor(user));
    const got = Buffer.from(token);
    return got.length === want.length && timingSafeEqual(got, want);
  }
}

const refuse = (status: number, body: string, headers?: Record<string, string>): Reply => ({
  status,
  contentType: 'text/plain; charset=utf-8',
  body: `${body}\n`,
  ...(headers ? { headers } : {}),
});

export function mayWrite(policy: WritePolicy, user: string): boolean {
  if (!policy.users?.has(user)) return false;
  const writers = policy.writers();
  return writers === undefined || writers.includes(user);
}

/** Why this browser request may not write, or undefined when it is not from a browser or passes. */
function browserProblem(req: IncomingMessage, tokens: WriteTokens, user: string): string | undefined {
  const site = req.headers['sec-fetch-site'];
  const origin = req.headers.origin;
  if (site === undefined && origin === undefined) return undefined;
  // Sec-Fetch-Site is set by the browser itself, so no page can claim same-origin; older
  // browsers send only Origin, compared with the Host the request was sent to.
  if (site !== undefined ? site !== 'same-origin' : !sameHost(origin, req.headers.host))
    return "cross-site write refused: act from the exporter's own status page";
  const token = req.headers[WRITE_TOKEN_HEADER];
  if (!tokens.verify(user, Array.isArray(token) ? token[0] : token))
    return `a browser write needs the ${WRITE_TOKEN_HEADER} header from GET /api/v1/session`;
  return undefined;
}

function sameHost(origin: string | undefined, host: string | undefined): boolean {
  if (!origin || !host || origin === 'null') return false;
  try {
    return new URL(origin).host === host.toLowerCase();
  } catch {
    return false;
  }
}

/** The router's write gate for `policy`. */
export function writeGate(policy: WritePolicy): WriteGate {
  return (req) => {
    if (!policy.users || policy.users.size === 0)
      return refuse(
        403,
        'writes need a signed-in user: add basic_auth_users to --web.config.file and list who may write in ' +
          'alerting.api.writers (absent: every basic-auth user)',
      );
    const creds = parseBasicAuth(req.headers.authorization);
    if (!creds) return refuse(401, 'Unauthorized', { 'www-authenticate': WWW_AUTHENTICATE });
    if (!mayWrite(policy, creds.user))
      return refuse(403, `user "${creds.user}" may not write: not listed in alerting.api.writers`);
    const problem = browserProblem(req, policy.tokens, creds.user);
    return problem ? refuse(403, problem) : { user: creds.user };
  };
}

/** What GET /api/v1/session tells the page: who it is signed in as, and the token its writes carry. */
export function sessionInfo(policy: WritePolicy, authorization: string | undefined): Record<string, unknown> {
  const user = policy.users?.size ? parseBasicAuth(authorization)?.user : undefined;
  if (user === undefined || !mayWrite(policy, user)) return { user: user ?? null, writer: false };
  return { user, writer: true, writeToken: policy.tokens.tokenFor(user), tokenHeader: WRITE_TOKEN_HEADER };
}
