// Which addresses a service endpoint found on chain may lead the exporter to: every forbidden class
// in IPv4, IPv6 and IPv4 carried in IPv6, and the forms the URL parser turns into them.
import { describe, expect, it } from 'vitest';
import { endpointUrl } from '../../src/http/endpointProbe.js';
import { embeddedIpv4, forbiddenAddress, forbiddenHostName } from '../../src/http/publicAddress.js';

describe('forbiddenAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.0.0.5', 'private'],
    ['172.16.3.4', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.10.10', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['100.64.0.1', 'CGNAT'],
    ['100.127.255.254', 'CGNAT'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fd12:3456::1', 'private'],
    ['fc00::1', 'private'],
    ['fe80::1', 'link-local'],
    ['ff02::1', 'multicast'],
    ['fd00:ec2::254', 'metadata'],
    ['::ffff:10.0.0.5', 'private'],
    ['::ffff:a00:5', 'private'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['64:ff9b::a00:5', 'private'],
  ])('%s is %s', (ip, what) => {
    expect(forbiddenAddress(ip)).toBe(what);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    '%s is public',
    (ip) => {
      expect(forbiddenAddress(ip)).toBeUndefined();
    },
  );

  it('reads the IPv4 address carried in IPv6, in dotted and in hex form', () => {
    expect(embeddedIpv4('::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(embeddedIpv4('::ffff:a01:203')).toBe('10.1.2.3');
    expect(embeddedIpv4('2606:4700::1')).toBeUndefined();
  });

  it('names metadata hosts whatever they resolve to', () => {
    expect(forbiddenHostName('metadata.google.internal')).toBe('metadata');
    expect(forbiddenHostName('METADATA.google.internal.')).toBe('metadata');
    expect(forbiddenHostName('example.com')).toBeUndefined();
  });
});

describe('endpointUrl', () => {
  it('takes http and https only, without credentials', () => {
    expect(endpointUrl('ftp://example.com/')).toBe('scheme ftp: is not http or https');
    expect(endpointUrl('file:///etc/passwd')).toBe('scheme file: is not http or https');
    expect(endpointUrl('javascript:alert(1)')).toBe('scheme javascript: is not http or https');
    expect(endpointUrl('http://user:pw@example.com/')).toBe('credentials in the URL');
    expect(endpointUrl('not a url')).toBe('not a URL');
    expect(endpointUrl('https://example.com/x')).toBeInstanceOf(URL);
  });

  it('turns decimal, octal and hex host forms into the address they mean (then judged as such)', () => {
    const host = (u: string) => (endpointUrl(u) as URL).hostname;
    expect(host('http://2130706433/')).toBe('127.0.0.1');
    expect(host('http://0177.0.0.1/')).toBe('127.0.0.1');
    expect(host('http://0x7f.1/')).toBe('127.0.0.1');
    expect(host('http://167772165/')).toBe('10.0.0.5');
    expect(forbiddenAddress(host('http://0xa9.0xfe.0xa9.0xfe/'))).toBe('metadata');
    expect(host('http://[::ffff:10.0.0.5]/')).toBe('[::ffff:a00:5]');
  });
});
