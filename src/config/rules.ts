// Field rules shared by the schema and the cross-field checks. Each `...Reason` function
// returns why a value is invalid (or undefined) without repeating the value: values may
// come from environment variables and URLs may carry passwords.

import { isIP, isIPv6 } from 'node:net';
import type { ListenAddress } from '../domain.js';

// Names are also checked outside the config (evidence queries), so they live in names.ts.
export { NAME_MAX, NAME_RE, nameReason } from '../names.js';

export const LABEL_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Labels the exporter sets itself on ledger_node_info, plus Prometheus' target labels. */
export const RESERVED_LABELS = ['node', 'network', 'version', 'chain_id', 'rpc_namespace', 'job', 'instance'] as const;

export function labelNameReason(name: string): string | undefined {
  if (!LABEL_NAME_RE.test(name)) return `invalid label name "${name}": must match [a-zA-Z_][a-zA-Z0-9_]*`;
  if (name.startsWith('__')) return `invalid label name "${name}": names starting with "__" are reserved by Prometheus`;
  if ((RESERVED_LABELS as readonly string[]).includes(name))
    return `label "${name}" is reserved (the exporter sets ${RESERVED_LABELS.join(', ')})`;
  return undefined;
}

export const NAMESPACE_RE = /^[a-z][a-z0-9]*$/;

/** HTTP header field name (RFC 9110 token). */
export const HEADER_NAME_RE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers the HTTP client or the probe itself controls. */
const CONTROLLED_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
]);

export function headerNameReason(name: string): string | undefined {
  if (!HEADER_NAME_RE.test(name)) return `invalid header name "${name}"`;
  if (CONTROLLED_HEADERS.has(name.toLowerCase()))
    return `header "${name}" is set by the HTTP client and cannot be configured`;
  return undefined;
}

export function headerValueReason(value: string): string | undefined {
  // A line break would let a value smuggle extra headers.
  if (/[\r\n\0]/.test(value)) return 'header value must not contain line breaks or NUL characters';
  return undefined;
}

export const ENV_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function parseUrl(raw: string): URL | undefined {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}

export function commonUrlReason(raw: string, u: URL | undefined): string | undefined {
  if (!u) return 'invalid URL: expected e.g. http://10.0.0.5:9710 or https://rpc.example.org/ledger';
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'URL scheme must be http or https';
  if (!u.hostname) return 'URL has no host';
  if (raw.includes('?')) return 'URL must not have a query string';
  if (raw.includes('#')) return 'URL must not have a fragment';
  return undefined;
}

/** A node's base URL: http(s), optional path prefix and user:password, no query or fragment. */
export function nodeUrlReason(raw: string): string | undefined {
  return commonUrlReason(raw, parseUrl(raw));
}

/**
 * Hosts that never leave the machine (plain http is acceptable for them): literal loopback addresses
 * and `localhost` itself. Not `*.localhost`: RFC 6761 only asks resolvers to keep it local, and
 * here such a name goes through ordinary DNS, so it may resolve anywhere.
 */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost') return true;
  if (h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)) return true;
  // IPv4-mapped loopback as normalised by WHATWG URL (e.g. [::ffff:127.0.0.1] -> ::ffff:7f00:1).
  return /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(h);
}

const HOSTNAME_RE = /^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/;
const LISTEN_HINT = 'expected host:port, e.g. 0.0.0.0:9715, 127.0.0.1:9715 or [::1]:9715';

function splitListen(text: string): { host: string; port: string } | string {
  if (text.startsWith('[')) {
    const end = text.indexOf(']:');
    if (end < 0) return LISTEN_HINT;
    const host = text.slice(1, end);
    if (!isIPv6(host)) return `invalid IPv6 address; ${LISTEN_HINT}`;
    return { host, port: text.slice(end + 2) };
  }
  const colon = text.lastIndexOf(':');
  if (colon < 0) return LISTEN_HINT;
  const host = text.slice(0, colon);
  if (host.includes(':')) return `put IPv6 addresses in brackets; ${LISTEN_HINT}`;
  if (!host || !(isIP(host) || HOSTNAME_RE.test(host))) return `invalid host; ${LISTEN_HINT}`;
  return { host, port: text.slice(colon + 1) };
}

export function listenReason(text: string): string | undefined {
  const r = splitListen(text);
  if (typeof r === 'string') return r;
  if (!/^\d{1,5}$/.test(r.port) || Number(r.port) > 65535) return `port must be 0..65535; ${LISTEN_HINT}`;
  return undefined;
}

/** "host:port" or "[v6]:port"; throws with a clear message (also for the --listen flag). */
export function parseListenAddress(text: string): ListenAddress {
  const reason = listenReason(text);
  if (reason) throw new Error(`invalid listen address ${JSON.stringify(text)}: ${reason}`);
  const r = splitListen(text) as { host: string; port: string };
  return { host: r.host, port: Number(r.port) };
}
