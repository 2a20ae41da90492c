import { afterEach, describe, expect, it, vi } from 'vitest';
import bcrypt from 'bcryptjs';
import { parseBasicAuth, verifyBasicAuth, AUTH_CACHE_TTL_MS } from '../../src/web/basicAuth.js';
import { checkBasicAuth } from '../../src/web/webConfig.js';

const basic = (user: string, pw: string) => `Basic ${Buffer.from(`${user}:${pw}`).toString('base64')}`;
// Low cost keeps the test quick; the format is the one htpasswd -B writes ($2y$).
const hash = bcrypt.hashSync('s3cret:with:colons', 4).replace(/^\$2b\$/, '$2y$');

function counting() {
  const calls: string[] = [];
  const compare = async (pw: string, h: string) => {
    calls.push(h);
    return bcrypt.compare(pw, h);
  };
  return { calls, compare };
}

describe('basic auth', () => {
  it('parses the Basic header, keeping colons in the password', () => {
    expect(parseBasicAuth(basic('alice', 'a:b'))).toEqual({ user: 'alice', password: 'a:b' });
    expect(parseBasicAuth(`basic ${Buffer.from('bob:').toString('base64')}`)).toEqual({ user: 'bob', password: '' });
    expect(parseBasicAuth('Bearer abc')).toBeUndefined();
    expect(parseBasicAuth(`Basic ${Buffer.from('nocolon').toString('base64')}`)).toBeUndefined();
    expect(parseBasicAuth('Basic !!!')).toBeUndefined();
    expect(parseBasicAuth(undefined)).toBeUndefined();
  });

  it('accepts the right password and rejects everything else', async () => {
    const web = { basicAuthUsers: new Map([['alice', hash]]) };
    expect(await checkBasicAuth(web, basic('alice', 's3cret:with:colons'))).toBe(true);
    expect(await checkBasicAuth(web, basic('alice', 's3cret'))).toBe(false);
    expect(await checkBasicAuth(web, basic('mallory', 's3cret:with:colons'))).toBe(false);
    expect(await checkBasicAuth(web, undefined)).toBe(false);
    expect(await checkBasicAuth(web, 'Basic')).toBe(false);
  });

  it('allows everything when no users are configured', async () => {
    expect(await checkBasicAuth({}, undefined)).toBe(true);
    expect(await checkBasicAuth({ basicAuthUsers: new Map() }, undefined)).toBe(true);
  });

  it('runs bcrypt for unknown users too (no cheap user enumeration)', async () => {
    const { calls, compare } = counting();
    const users = new Map([['alice', hash]]);
    expect(await verifyBasicAuth(users, basic('nobody', 'x'), { compare })).toBe(false);
    expect(calls).toHaveLength(1);
    expect(calls[0]).not.toBe(hash);
  });

  it('caches a success for a short time, never a failure', async () => {
    const { calls, compare } = counting();
    const users = new Map([['alice', hash]]);
    const ok = basic('alice', 's3cret:with:colons');
    const now = 1_000_000;
    expect(await verifyBasicAuth(users, ok, { now, compare })).toBe(true);
    expect(await verifyBasicAuth(users, ok, { now: now + 1000, compare })).toBe(true);
    expect(calls).toHaveLength(1);

    // After the TTL bcrypt runs again.
    expect(await verifyBasicAuth(users, ok, { now: now + AUTH_CACHE_TTL_MS + 1, compare })).toBe(true);
    expect(calls).toHaveLength(2);

    // Failures always pay bcrypt.
    const bad = basic('alice', 'wrong');
    await verifyBasicAuth(users, bad, { now, compare });
    await verifyBasicAuth(users, bad, { now, compare });
    expect(calls).toHaveLength(4);

    // A changed hash for the user invalidates what was cached for the old one.
    users.set('alice', bcrypt.hashSync('new-password', 4));
    expect(await verifyBasicAuth(users, ok, { now: now + AUTH_CACHE_TTL_MS + 2, compare })).toBe(false);
  });

  describe('with the wall clock stepped', () => {
    afterEach(() => vi.restoreAllMocks());

    it('keeps a success for its TTL on the monotonic clock: a wall clock stepped forward does not end it', async () => {
      const { calls, compare } = counting();
      const users = new Map([['alice', hash]]);
      const ok = basic('alice', 's3cret:with:colons');
      expect(await verifyBasicAuth(users, ok, { compare })).toBe(true);
      const wall = Date.now();
      vi.spyOn(Date, 'now').mockReturnValue(wall + 2 * AUTH_CACHE_TTL_MS);
      expect(await verifyBasicAuth(users, ok, { compare })).toBe(true);
      expect(calls).toHaveLength(1);
    });
  });
});
