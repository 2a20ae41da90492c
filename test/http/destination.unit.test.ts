// A Destination keeps strings, not a parsed URL: what it sends to and what it says must be what
// the URL it was made from says, credentials and fragment included when asked for the URL.
import { describe, expect, it } from 'vitest';
import { Destination } from '../../src/http/destination.js';

describe('Destination', () => {
  it('sends to the origin and path of the URL, shows the origin without credentials', () => {
    const d = Destination.of('http://node-1:8080/rpc/v1?x=1');
    expect([d.origin, d.path, d.display]).toEqual(['http://node-1:8080', '/rpc/v1?x=1', 'http://node-1:8080/']);
    expect(d.url).toBeInstanceOf(URL);
    expect(d.url.href).toBe('http://node-1:8080/rpc/v1?x=1');
    expect(Destination.of(d)).toBe(d);
  });

  it('gives back the whole URL when origin and path do not say it all', () => {
    for (const href of ['http://user:pa%20ss@node-2:9000/health', 'https://node-3/x#frag', 'http://u@node-4/']) {
      const d = new Destination(new URL(href));
      expect(d.url.href).toBe(new URL(href).href);
      expect(d.display).not.toContain('user');
    }
    // A relative redirect resolved against it keeps the credentials (the client then refuses it).
    const withCreds = new Destination(new URL('http://user:pw@node-2:9000/a'));
    expect(new URL('/b', withCreds.url).username).toBe('user');
    expect(new URL('/b', Destination.of('http://node-2:9000/a').url).username).toBe('');
  });

  it('normalises like URL does (default port, empty path)', () => {
    const d = Destination.of('HTTP://Node-5:80');
    expect([d.origin, d.path, d.url.href]).toEqual(['http://node-5', '/', 'http://node-5/']);
  });
});
