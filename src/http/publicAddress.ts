// Which addresses a URL found on chain may make the exporter connect to: never loopback, private
// (RFC 1918, fc00::/7), link-local, CGNAT, unspecified, multicast, reserved or cloud metadata
// addresses unless the operator allows private ones for that entry. IPv4 in IPv6 (mapped,
// compatible, NAT64) is judged by the IPv4 address it carries. Pure.
import { BlockList, isIP } from 'node:net';

/** Host names that lead to a cloud's instance metadata, whatever they resolve to. */
const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata.goog', 'metadata']);
const METADATA_ADDRESSES = new Set(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200']);

type Rule = [net: string, prefix: number, what: string];

const V4: Rule[] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['127.0.0.0', 8, 'loopback'],
  ['10.0.0.0', 8, 'private'],
  ['172.16.0.0', 12, 'private'],
  ['192.168.0.0', 16, 'private'],
  ['169.254.0.0', 16, 'link-local'],
  ['100.64.0.0', 10, 'CGNAT'],
  ['192.0.0.0', 24, 'reserved'],
  ['198.18.0.0', 15, 'reserved'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];
const V6: Rule[] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['fc00::', 7, 'private'],
  ['fec0::', 10, 'private'],
  ['fe80::', 10, 'link-local'],
  ['ff00::', 8, 'multicast'],
  ['100::', 64, 'reserved'],
  ['2001:db8::', 32, 'reserved'],
];

const lists = new Map<string, BlockList>();
for (const [net, prefix, what] of [
  ...V4.map((r) => [...r, 'ipv4'] as const),
  ...V6.map((r) => [...r, 'ipv6'] as const),
]) {
  const key = what;
  let l = lists.get(key);
  if (!l) lists.set(key, (l = new BlockList()));
  l.addSubnet(net, prefix, isIP(net) === 4 ? 'ipv4' : 'ipv6');
}

/** The IPv4 address an IPv6 one carries (mapped ::ffff:a.b.c.d, compatible ::a.b.c.d, NAT64 64:ff9b::/96). */
export function embeddedIpv4(ip6: string): string | undefined {
  const m = /^(?:::ffff:|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/i.exec(ip6);
  if (m) return m[1];
  // The same written in hex groups, as URL parsing and DNS answers write them: ::ffff:a00:5.
  const h = /^(::ffff:|::|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(ip6);
  if (!h || (h[1] === '::' && ip6 === '::1')) return undefined;
  const hi = parseInt(h[2]!, 16);
  const lo = parseInt(h[3]!, 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

/** What kind of forbidden address `ip` is ("private", "loopback", ...), or undefined for a public one. */
export function forbiddenAddress(ip: string): string | undefined {
  const family = isIP(ip);
  if (family === 0) return 'not an IP address';
  const lower = ip.toLowerCase();
  if (METADATA_ADDRESSES.has(lower)) return 'metadata';
  if (family === 6) {
    const v4 = embeddedIpv4(lower);
    if (v4 !== undefined) return forbiddenAddress(v4);
  }
  const type = family === 4 ? 'ipv4' : 'ipv6';
  for (const [what, list] of lists) if (list.check(ip, type)) return what;
  return undefined;
}

/** Why a host name may not be probed whatever it resolves to (a metadata name), or undefined. */
export function forbiddenHostName(host: string): string | undefined {
  const h = host.toLowerCase().replace(/\.$/, '');
  return METADATA_NAMES.has(h) ? 'metadata' : undefined;
}
