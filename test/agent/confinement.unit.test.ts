import { describe, expect, it } from 'vitest';
import { agentApiUrl, agentBaseUrlProblem, isLoopbackHost, keyMayBeSentTo } from '../../src/agent/confinement.js';
import { parseAgentProfile, MAX_PROFILE_FIELD } from '../../src/agent/profile.js';

const enc = (v: unknown) => new TextEncoder().encode(typeof v === 'string' ? v : JSON.stringify(v));

describe('agent base URL rules', () => {
  it('accepts https anywhere and plain http on loopback only', () => {
    expect(agentBaseUrlProblem('https://platform.example.org')).toBeUndefined();
    expect(agentBaseUrlProblem('https://platform.example.org/prefix/')).toBeUndefined();
    for (const ok of ['http://127.0.0.1:8080', 'http://localhost', 'http://[::1]:9000', 'http://127.1.2.3']) {
      expect(agentBaseUrlProblem(ok), ok).toBeUndefined();
    }
    for (const bad of [
      'http://platform.example.org',
      'http://10.0.0.5',
      'http://128.0.0.1',
      'http://localhost.example.org',
    ]) {
      expect(agentBaseUrlProblem(bad), bad).toMatch(/plain http/);
    }
    // The same rule as check-config's (config/sections/agentPlatform.ts), named by its key.
    expect(agentBaseUrlProblem('ftp://x.example.org')).toBe('agentPlatform.baseUrl: URL scheme must be http or https');
    expect(agentBaseUrlProblem('not a url')).toMatch(/^agentPlatform\.baseUrl: invalid URL/);
    expect(agentBaseUrlProblem('https://platform.example.org/?k=v')).toMatch(/query/);
    const withCreds = agentBaseUrlProblem('https://alice:hunter22@platform.example.org');
    expect(withCreds).toMatch(/credentials/);
    expect(withCreds).not.toContain('hunter22');
  });

  it('recognises loopback hosts', () => {
    expect(isLoopbackHost('127.0.0.1')).toBe(true);
    expect(isLoopbackHost('[::1]')).toBe(true);
    expect(isLoopbackHost(new URL('http://[::ffff:127.0.0.1]/').hostname)).toBe(true);
    expect(isLoopbackHost('192.168.1.1')).toBe(false);
    expect(isLoopbackHost('example.org')).toBe(false);
  });

  it('builds {baseUrl}/api/... with or without a base path', () => {
    expect(agentApiUrl('https://p.example.org', 'agents/me').toString()).toBe('https://p.example.org/api/agents/me');
    expect(agentApiUrl('https://p.example.org/', 'agents/me').toString()).toBe('https://p.example.org/api/agents/me');
    expect(agentApiUrl('https://p.example.org/tenant/x/', '/agents/me').toString()).toBe(
      'https://p.example.org/tenant/x/api/agents/me',
    );
  });

  it('allows the key only to the same origin under /api/', () => {
    const base = 'https://p.example.org/tenant';
    expect(keyMayBeSentTo(base, 'https://p.example.org/tenant/api/agents/me')).toBe(true);
    expect(keyMayBeSentTo(base, 'https://p.example.org/tenant/api/x/y')).toBe(true);
    expect(keyMayBeSentTo(base, 'https://p.example.org/api/agents/me')).toBe(false);
    expect(keyMayBeSentTo(base, 'https://p.example.org/tenant/apix/agents/me')).toBe(false);
    expect(keyMayBeSentTo(base, 'https://p.example.org/tenant/api/../admin')).toBe(false);
    expect(keyMayBeSentTo(base, 'https://p.example.org/tenant/api/%2e%2e/admin')).toBe(false);
    expect(keyMayBeSentTo(base, 'http://p.example.org/tenant/api/agents/me')).toBe(false);
    expect(keyMayBeSentTo(base, 'https://p.example.org:8443/tenant/api/agents/me')).toBe(false);
    expect(keyMayBeSentTo(base, 'https://evil.example.org/tenant/api/agents/me')).toBe(false);
    expect(keyMayBeSentTo(base, 'https://p.example.org.evil.example/tenant/api/agents/me')).toBe(false);
    expect(keyMayBeSentTo(base, 'https://u:p@p.example.org/tenant/api/agents/me')).toBe(false);
    expect(keyMayBeSentTo('http://platform.example.org', 'http://platform.example.org/api/agents/me')).toBe(false);
  });
});

describe('agent profile parsing', () => {
  it('picks id and name only, at top level or in an envelope', () => {
    expect(parseAgentProfile(enc({ id: 'a1', name: 'Agent', email: 'x@y', apiKey: 'zzz' }))).toEqual({
      id: 'a1',
      name: 'Agent',
    });
    expect(parseAgentProfile(enc({ agent: { id: 7, name: 'Seven' } }))).toEqual({ id: '7', name: 'Seven' });
    expect(parseAgentProfile(enc({ data: { agent: { id: 'n', name: 'Nested' } } }))).toEqual({
      id: 'n',
      name: 'Nested',
    });
    expect(parseAgentProfile(enc({}))).toEqual({});
  });

  it('bounds and cleans values', () => {
    const p = parseAgentProfile(enc({ id: 'x'.repeat(1000), name: 'line\nbreak\u0000' }));
    expect(p?.id).toHaveLength(MAX_PROFILE_FIELD);
    expect(p?.name).toBe('linebreak');
    expect(parseAgentProfile(enc({ id: { nested: true }, name: ['a'] }))).toEqual({});
  });

  it('rejects what is not a JSON object', () => {
    expect(parseAgentProfile(enc('<html></html>'))).toBeUndefined();
    expect(parseAgentProfile(enc([1, 2]))).toBeUndefined();
    expect(parseAgentProfile(enc('null'))).toBeUndefined();
    expect(parseAgentProfile(enc('"id"'))).toBeUndefined();
  });
});
