// A node's prepared requests share what they have in common (target, merged headers) and every
// node shares the fixed texts; what each request sends and says stays its own.
import { describe, expect, it } from 'vitest';
import { endpointFor, prepareRequest, sharedText } from '../../src/probe/http.js';
import { prepareRpc } from '../../src/probe/jsonrpc.js';

const limits = { timeoutMs: 2000, maxBytes: 1 << 20 };
const target = (url: string) => ({ url, headers: { 'X-Team': { value: 'ops' } } }) as never;

describe('prepared probe requests', () => {
  it('gives a node one target and header set per path, with each method its own label and body', () => {
    const ep = endpointFor(target('http://user:pw@node-1:8545/ledger'));
    const [a, b, c] = ['claw_blockNumber', 'claw_getValidators', 'claw_getMiningStats'].map((m) =>
      prepareRpc(ep, m, limits),
    );
    expect(b!.request.url).toBe(a!.request.url);
    expect(c!.request.headers).toBe(a!.request.headers);
    expect(a!.request.url.origin + a!.request.url.path).toBe('http://node-1:8545/ledger/');
    expect(a!.request.headers).toEqual({
      authorization: `Basic ${Buffer.from('user:pw').toString('base64')}`,
      'x-team': 'ops',
      'content-type': 'application/json',
      accept: 'application/json',
    });
    expect([a, b, c].map((r) => r!.request.label)).toEqual([
      'POST claw_blockNumber',
      'POST claw_getValidators',
      'POST claw_getMiningStats',
    ]);
    expect(JSON.parse(b!.head + 7 + b!.tail)).toEqual({
      jsonrpc: '2.0',
      id: 7,
      method: 'claw_getValidators',
      params: [],
    });

    const health = prepareRequest(ep, 'GET', '/health', { accept: 'application/json' }, limits, 'GET /health');
    const metrics = prepareRequest(ep, 'GET', '/metrics', { accept: 'text/plain' }, limits, 'GET /metrics');
    expect(health.url).not.toBe(a!.request.url);
    expect(health.url.path).toBe('/ledger/health');
    expect(metrics.headers.accept).toBe('text/plain');
    expect(health.headers.accept).toBe('application/json');
    expect(prepareRequest(ep, 'GET', '/health', { accept: 'application/json' }, limits, 'GET /health').url).toBe(
      health.url,
    );
  });

  it('never shares a target or headers between nodes', () => {
    const one = prepareRpc(endpointFor(target('http://node-1:8545')), 'claw_blockNumber', limits);
    const two = prepareRpc(endpointFor({ url: 'http://node-2:8545', headers: {} }), 'claw_blockNumber', limits);
    expect(two.request.url).not.toBe(one.request.url);
    expect(two.request.url.origin).toBe('http://node-2:8545');
    expect(two.request.headers).toEqual({ 'content-type': 'application/json', accept: 'application/json' });
    expect(one.request.headers['x-team']).toBe('ops');
    // The same fixed text for both nodes.
    expect(two.tail).toBe(one.tail);
    expect(sharedText(`POST ${'claw'}_blockNumber`)).toBe(one.request.label);
  });
});
