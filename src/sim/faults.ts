// Replies of failure modes seen in the field: a reverse proxy in front of a dead node,
// an application error, and a body cut off mid-way.
import { JSON_TYPE, type Reply } from './reply.js';
import type { SimFault } from './types.js';

const PROXY_TITLES: Record<number, string> = {
  502: '502 Bad Gateway',
  503: '503 Service Temporarily Unavailable',
  504: '504 Gateway Time-out',
};

/** nginx's own error page, as it answers when the upstream node is dead or slow. */
export function proxyReply(status: 502 | 503 | 504): Reply {
  const title = PROXY_TITLES[status]!;
  return {
    status,
    headers: { 'content-type': 'text/html', server: 'nginx' },
    body:
      `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n` +
      `<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`,
  };
}

export function json500Reply(): Reply {
  return {
    status: 500,
    headers: { 'content-type': JSON_TYPE },
    body: JSON.stringify({ error: 'internal server error', code: 500 }),
  };
}

/** A JSON body cut short: the usual shape of "garbage" from a half-crashed backend. */
export function garbleJson(reply: Reply): Reply {
  const cut = Math.max(1, Math.floor(reply.body.length / 2));
  return { ...reply, status: 200, headers: { 'content-type': JSON_TYPE }, body: `${reply.body.slice(0, cut)}\u0000}{` };
}

/** The fault in force now: `flapping` alternates healthy and proxy_502 half-periods. */
export function effectiveFault(fault: SimFault, faultSinceMs: number, nowMs: number, flapPeriodMs: number): SimFault {
  if (fault !== 'flapping') return fault;
  const half = Math.max(1, Math.floor(flapPeriodMs / 2));
  return Math.floor(Math.max(0, nowMs - faultSinceMs) / half) % 2 === 0 ? 'none' : 'proxy_502';
}
