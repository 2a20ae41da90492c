// One GET of a URL that someone else wrote (a service endpoint registered on chain), made safe:
// http or https only, no credentials in the URL, the host resolved and every address it resolves
// to checked (publicAddress.ts) unless private ones are allowed, the connection made to the very
// address checked (the connector's lookup answers with it: no second resolution a DNS rebinding
// could answer differently), no redirect followed (its status is reported), its own timeout and
// body size limit, and nothing sent but a plain User-Agent. A refusal is a result, not an error.
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { forbiddenAddress, forbiddenHostName } from './publicAddress.js';

export interface EndpointProbeOptions {
  allowPrivate?: boolean;
  timeoutMs?: number;
  maxBodyBytes?: number;
  userAgent?: string;
  /** Resolves a host name to its addresses (tests); default: the system resolver. */
  resolve?: (host: string) => Promise<string[]>;
  now?: () => number;
}

export interface EndpointProbeResult {
  up: boolean;
  /** Why not up, in words. */
  problem?: string;
  /** Nothing was sent: the URL or its address is not one to probe. */
  refused?: boolean;
  status?: number;
  durationSeconds?: number;
  /** The address connected to. */
  address?: string;
  /** Unix seconds the https endpoint's certificate expires. */
  certExpirySeconds?: number;
}

export const ENDPOINT_TIMEOUT_MS = 5_000;
export const ENDPOINT_MAX_BODY_BYTES = 256 * 1024;

const refused = (why: string): EndpointProbeResult => ({
  up: false,
  refused: true,
  problem: `endpoint refused: ${why}`,
});

const systemResolve = async (host: string): Promise<string[]> =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** The address to connect to, or the refusal. */
async function checkedAddress(url: URL, opts: EndpointProbeOptions): Promise<{ ip: string } | { refusal: string }> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const byName = forbiddenHostName(host);
  if (byName && !opts.allowPrivate) return { refusal: `${byName} host ${host}` };
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await (opts.resolve ?? systemResolve)(host);
    } catch {
      return { refusal: `host ${host} does not resolve` };
    }
    if (addresses.length === 0) return { refusal: `host ${host} does not resolve` };
  }
  if (!opts.allowPrivate)
    for (const a of addresses) {
      const what = forbiddenAddress(a);
      if (what) return { refusal: `${what} address ${a}` };
    }
  return { ip: addresses[0]! };
}

/** Parses and checks `endpoint`; the refusal in words, or the URL. */
export function endpointUrl(endpoint: string): URL | string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'not a URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `scheme ${url.protocol} is not http or https`;
  if (url.username || url.password) return 'credentials in the URL';
  return url;
}

export async function probeEndpoint(endpoint: string, opts: EndpointProbeOptions = {}): Promise<EndpointProbeResult> {
  const url = endpointUrl(endpoint);
  if (typeof url === 'string') return refused(url);
  const checked = await checkedAddress(url, opts);
  if ('refusal' in checked) return refused(checked.refusal);
  const ip = checked.ip;
  const family = isIP(ip);
  const pinned: LookupFunction = (_host, options, cb) => {
    if ((options as { all?: boolean }).all)
      (cb as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [{ address: ip, family }]);
    else cb(null, ip, family);
  };
  const timeoutMs = opts.timeoutMs ?? ENDPOINT_TIMEOUT_MS;
  let certExpirySeconds: number | undefined;
  // undici's index (its request helper included) loads with the first probe: only entries with
  // probeEndpoint pay for it, not every daemon whose config schema names the services kind.
  const { buildConnector, Client } = await import('undici');
  const base = buildConnector({ lookup: pinned, timeout: timeoutMs, maxCachedSessions: 0 });
  const client = new Client(url.origin, {
    connect: (o, cb) =>
      base(o, (err, socket) => {
        if (!err && socket && 'getPeerCertificate' in socket) {
          const expiry = Date.parse(socket.getPeerCertificate().valid_to);
          if (Number.isFinite(expiry)) certExpirySeconds = Math.floor(expiry / 1000);
        }
        if (err) cb(err, null);
        else cb(null, socket);
      }),
    pipelining: 0,
  });
  const now = opts.now ?? (() => performance.now());
  const started = now();
  const signal = AbortSignal.timeout(timeoutMs);
  const maxBytes = opts.maxBodyBytes ?? ENDPOINT_MAX_BODY_BYTES;
  try {
    const res = await client.request({
      method: 'GET',
      path: `${url.pathname}${url.search}`,
      headers: { 'user-agent': opts.userAgent ?? 'ledger-fleet-exporter service probe', accept: '*/*' },
      signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    let bytes = 0;
    for await (const chunk of res.body) {
      bytes += (chunk as Buffer).length;
      if (bytes > maxBytes) {
        res.body.destroy();
        return failed(`answer larger than ${maxBytes} bytes`, res.statusCode);
      }
    }
    const durationSeconds = (now() - started) / 1000;
    const status = res.statusCode;
    const common = {
      status,
      durationSeconds,
      address: ip,
      ...(certExpirySeconds !== undefined && { certExpirySeconds }),
    };
    if (status >= 300 && status < 400) {
      const to = redirectNote(url, res.headers.location);
      return { up: true, ...common, ...(to && { problem: to }) };
    }
    return status < 400 ? { up: true, ...common } : { up: false, problem: `HTTP ${status}`, ...common };
  } catch (err) {
    if (signal.aborted) return failed(`no answer within ${timeoutMs} ms`);
    return failed(describeError(err));
  } finally {
    void client.destroy().catch(() => undefined);
  }

  function failed(problem: string, status?: number): EndpointProbeResult {
    return { up: false, problem, address: ip, ...(status !== undefined && { status }) };
  }
}

function redirectNote(from: URL, location: string | string[] | undefined): string | undefined {
  const loc = Array.isArray(location) ? location[0] : location;
  if (!loc) return undefined;
  try {
    const to = new URL(loc, from);
    return to.host === from.host ? undefined : `redirect to ${to.host} not followed`;
  } catch {
    return undefined;
  }
}

function describeError(err: unknown): string {
  const code = (err as { code?: string }).code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT')
    return 'timeout';
  if (typeof code === 'string' && /CERT|SSL|TLS/i.test(code)) return `TLS: ${code}`;
  return typeof code === 'string' ? `connection failed (${code})` : 'connection failed';
}
