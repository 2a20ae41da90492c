// Every bad answer a node (or what stands in front of it) can give yields a classified failure,
// never a crash, never a secret in the result, and never a stale value that still looks fresh:
// each case first gets a good answer from a real loopback server, then the bad one, and checks
// the snapshot the metrics view would render.
import { Agent, type Dispatcher } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { FailureReason, NodeTarget, ProbeName, ProbeResult } from '../../src/domain.js';
import { nodeSecrets } from '../../src/config/secrets.js';
import { createDispatcher } from '../../src/http/dispatcher.js';
import { HttpClient } from '../../src/http/client.js';
import { Secrets } from '../../src/redact.js';
import { NodeProber } from '../../src/probe/prober.js';
import { FleetState } from '../../src/state/fleetState.js';
import { buildSnapshot, type FleetSnapshot, type NodeView } from '../../src/state/snapshot.js';
import {
  defaultModel,
  fixed,
  garbageBytes,
  hang,
  ledgerNode,
  methodNotFound,
  nginxBadGateway,
  redirectLoop,
  resetMidBody,
  rpcAnswer,
  rpcIdOf,
  rpcRawResult,
  startRawServer,
  trickle,
  type NodeModel,
  type RawHandler,
  type RawServer,
} from '../support/rawServers.js';
import { hasOpenssl, makeSelfSignedCert } from '../support/testCa.js';

const USER = 'fleet-monitor';
const PASSWORD = 'Sup3r-Secr3t-pw';
const BASIC = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
const NODE = 'val-test-1';
const CAP = 16 * 1024;

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function server(handler: RawHandler, tls?: { key: string; cert: string }): Promise<RawServer> {
  const s = await startRawServer(handler, tls);
  cleanups.push(() => s.close());
  return s;
}

function dispatcher(agent: Dispatcher = createDispatcher({ connectTimeoutMs: 2000 })): Dispatcher {
  cleanups.push(() => agent.destroy());
  return agent;
}

/** The node's URL with user:password credentials, as an operator might configure it. */
function withCredentials(url: string): string {
  const u = new URL(url);
  u.username = USER;
  u.password = PASSWORD;
  return u.toString().replace(/\/$/, '');
}

function target(url: string, over: Partial<NodeTarget> = {}): NodeTarget {
  return {
    name: NODE,
    url: withCredentials(url),
    network: 'testnet',
    labels: {},
    intervalMs: 1000,
    timeoutMs: 1500,
    rpcNamespace: 'auto',
    probes: ['health'],
    headers: {},
    ...over,
  };
}

function prober(t: NodeTarget, agent: Dispatcher, maxResponseBytes = CAP): NodeProber {
  const secrets = new Secrets();
  secrets.addAll(nodeSecrets(t));
  return new NodeProber(t, {
    client: new HttpClient({ dispatcher: agent, secrets }),
    maxResponseBytes,
    maxUpstreamSeries: 1000,
  });
}

type Failed = Extract<ProbeResult, { kind: 'failed' }>;

function expectFailed(r: ProbeResult, reason: FailureReason): Failed {
  expect(r.kind, JSON.stringify(r, bodyAsText)).toBe('failed');
  const f = r as Failed;
  expect(f.reason, f.message).toBe(reason);
  expect(f.message.length).toBeGreaterThan(0);
  return f;
}

function bodyAsText(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return `${value}n`;
  // JSON.stringify renders a Buffer as a byte array; show it as text so a secret in it is findable.
  if (value && typeof value === 'object' && (value as { type?: unknown }).type === 'Buffer') {
    return Buffer.from((value as { data: number[] }).data).toString('latin1');
  }
  return value instanceof Uint8Array ? Buffer.from(value).toString('latin1') : value;
}

/** No form of the credentials anywhere in the result: message, headers, evidence body. */
function expectNoSecret(r: ProbeResult): void {
  const text = JSON.stringify(r, bodyAsText);
  for (const secret of [PASSWORD, encodeURIComponent(PASSWORD), BASIC, `${USER}:`]) expect(text).not.toContain(secret);
}

function snapshot(fleet: FleetState): FleetSnapshot {
  return buildSnapshot(fleet.nodes(), {}, Date.now());
}

function nodeView(fleet: FleetState): NodeView {
  return snapshot(fleet).nodes.find((n) => n.name === NODE)!;
}

/** The probes a target runs so that `probe`'s value is visible: chain values need the node up. */
function probesFor(probe: ProbeName): ProbeName[] {
  return probe === 'validators' || probe === 'miningStats' ? ['blockNumber', probe] : [probe];
}

/** Asserts the value `probe` owns is present (before) or gone (after), in state and snapshot. */
function expectValue(fleet: FleetState, probe: ProbeName, present: boolean): void {
  const snap = snapshot(fleet);
  const view = snap.nodes.find((n) => n.name === NODE)!;
  const net = snap.networks.find((n) => n.network === 'testnet')!;
  const state = fleet.get(NODE)!;
  const check = <T>(v: T | undefined, good: T) => (present ? expect(v).toEqual(good) : expect(v).toBeUndefined());
  switch (probe) {
    case 'health':
      check(view.health?.height, 4242);
      check(view.height, 4242);
      check(view.health?.version, '0.5.8');
      expect(view.up).toBe(present);
      break;
    case 'blockNumber':
      check(view.height, 4242);
      check(state.blockNumber, 4242);
      expect(view.up).toBe(present);
      break;
    case 'validators':
      check(view.validatorsCount, 2);
      check(net.validators?.list.length, 2);
      check(state.validators?.[0]?.stake, 1234567890123456789012n);
      expect(view.up).toBe(true); // blockNumber still answers: only the validators are gone
      break;
    case 'miningStats':
      check(view.minersActive, 9);
      check(net.mining?.active, 9);
      check(state.mining?.currentBlockReward, 2000000000n);
      expect(view.up).toBe(true);
      break;
    case 'metrics':
      check(
        state.upstream?.families?.map((f) => f.name),
        ['block_height'],
      );
      expect(view.up).toBe(present); // metrics alone decides up when neither health nor blockNumber runs
      break;
  }
}

interface Scenario {
  server: RawServer;
  fleet: FleetState;
  prober: NodeProber;
  result: Failed;
}

/**
 * A node answers well (values land in the snapshot), then `bad` takes over: the probe must fail
 * with `reason`, hold no secret, and its value must be gone from the snapshot.
 */
async function goodThenBad(
  probe: ProbeName,
  bad: RawHandler,
  reason: FailureReason,
  opts: { timeoutMs?: number; maxResponseBytes?: number; model?: Partial<NodeModel> } = {},
): Promise<Scenario> {
  const srv = await server(ledgerNode(defaultModel(opts.model)));
  const t = target(srv.url, { probes: probesFor(probe), timeoutMs: opts.timeoutMs ?? 1500 });
  const p = prober(t, dispatcher(), opts.maxResponseBytes);
  const fleet = new FleetState([t]);
  for (const name of t.probes) {
    const ok = await p.run(name);
    expect(ok.kind, JSON.stringify(ok, bodyAsText)).toBe('ok');
    fleet.apply(NODE, ok);
  }
  expectValue(fleet, probe, true);

  srv.handler = bad;
  const result = expectFailed(await p.run(probe), reason);
  expectNoSecret(result);
  fleet.apply(NODE, result);
  expectValue(fleet, probe, false);
  const pv = nodeView(fleet).probes.find((v) => v.probe === probe)!;
  expect(pv.success).toBe(false);
  expect(pv.supported).toBe(true);
  expect(pv.failures[reason]).toBe(1);
  return { server: srv, fleet, prober: p, result };
}

describe('HTTP status failures', () => {
  it('502 with an nginx HTML body -> http_5xx, page kept as evidence, height gone, node down', async () => {
    const { result, server: srv } = await goodThenBad('health', nginxBadGateway(), 'http_5xx');
    expect(result.httpStatus).toBe(502);
    expect(result.response?.method).toBe('GET /health');
    expect(result.response?.headers.server).toBe('nginx/1.24.0');
    expect(Buffer.from(result.response!.body).toString()).toContain('502 Bad Gateway');
    // The credentials did travel (as Basic auth), so the secret checks above were meaningful.
    expect(srv.requests.every((r) => r.authorization === `Basic ${BASIC}`)).toBe(true);
  });

  it("a 502 during namespace detection is recorded with the method really sent, not the probe's own", async () => {
    const srv = await server(nginxBadGateway());
    const r = await prober(target(srv.url, { probes: ['validators'] }), dispatcher()).run('validators');
    const f = expectFailed(r, 'http_5xx');
    // Detection asked claw_blockNumber first; that request got the 502, and evidence must say so.
    expect(f.message).toBe('POST claw_blockNumber: HTTP 502');
    expect(f.response?.method).toBe('POST claw_blockNumber');
    expect(srv.requests).toHaveLength(1);
  });

  it('503 with a JSON body on /health -> http_5xx', async () => {
    const body = JSON.stringify({ error: 'node is syncing', retry: true });
    const { result } = await goodThenBad('health', fixed(503, 'application/json', body), 'http_5xx');
    expect(result.httpStatus).toBe(503);
    expect(Buffer.from(result.response!.body).toString()).toBe(body);
  });

  it('500 with a JSON-RPC body on blockNumber -> http_5xx naming the RPC method', async () => {
    const bad: RawHandler = (_req, res, body) => {
      const text = JSON.stringify({
        jsonrpc: '2.0',
        id: rpcIdOf(body),
        error: { code: -32603, message: 'internal error' },
      });
      res.writeHead(500, { 'content-type': 'application/json' }).end(text);
    };
    const { result } = await goodThenBad('blockNumber', bad, 'http_5xx');
    expect(result.httpStatus).toBe(500);
    expect(result.response?.method).toBe('POST claw_blockNumber');
  });

  it('HTTP 404 -> http_4xx', async () => {
    const { result } = await goodThenBad('health', fixed(404, 'text/plain', 'not found'), 'http_4xx');
    expect(result.httpStatus).toBe(404);
  });

  it('HTTP 415 with plain text on JSON-RPC -> http_4xx', async () => {
    const { result } = await goodThenBad(
      'blockNumber',
      fixed(415, 'text/plain', 'Expected request with `Content-Type: application/json`'),
      'http_4xx',
    );
    expect(result.httpStatus).toBe(415);
    expect(result.response?.method).toBe('POST claw_blockNumber');
  });

  it('a redirect loop (302 to itself) is not followed -> invalid_response after exactly one request', async () => {
    const { result, server: srv } = await goodThenBad('health', redirectLoop(), 'invalid_response');
    expect(result.httpStatus).toBe(302);
    expect(srv.requests.filter((r) => r.path === '/health')).toHaveLength(2); // the good one and the 302
  });

  it('a redirect loop on JSON-RPC is not followed either', async () => {
    const { result, server: srv } = await goodThenBad('blockNumber', redirectLoop(), 'invalid_response');
    expect(result.httpStatus).toBe(302);
    // good run: 1 detection + 1 call; bad run: the one redirected call, no re-detection, no follow
    expect(srv.requests.map((r) => r.rpcMethod)).toEqual(['claw_blockNumber', 'claw_blockNumber', 'claw_blockNumber']);
  });
});

describe('transport failures', () => {
  it('a server that never answers -> timeout', async () => {
    const { result, server: srv } = await goodThenBad('health', hang(), 'timeout', { timeoutMs: 300 });
    expect(result.httpStatus).toBeUndefined();
    expect(result.message).toContain(`127.0.0.1:${srv.port}`);
  });

  it('a JSON-RPC call that never answers -> timeout', async () => {
    await goodThenBad('blockNumber', hang(), 'timeout', { timeoutMs: 300 });
  });

  it('a body that trickles in past the timeout -> timeout (per-chunk idle timers alone would never fire)', async () => {
    // A byte every 40 ms for up to 2 s: never idle for 300 ms, yet far past the 300 ms budget.
    await goodThenBad('health', trickle(40, 50), 'timeout', { timeoutMs: 300 });
  });

  it('a connection reset in mid-body -> connect (the transport failed, not the node’s answer)', async () => {
    const { result } = await goodThenBad('health', resetMidBody(4096, '{"status":"ok","height":42'), 'connect');
    expect(result.httpStatus).toBeUndefined();
    expect(result.response).toBeUndefined();
  });

  it('bytes that are not HTTP -> invalid_response', async () => {
    await goodThenBad('health', garbageBytes('SSH-2.0-OpenSSH_9.6\r\n\r\n'), 'invalid_response');
  });

  it('a name that does not resolve (.invalid, RFC 6761) -> connect, and the earlier height is gone', async () => {
    // The earlier good answer comes from a loopback node under the same node name.
    const srv = await server(ledgerNode(defaultModel()));
    const good = await prober(target(srv.url), dispatcher()).run('health');
    expect(good.kind).toBe('ok');
    const t = target('http://node.invalid:9710', { timeoutMs: 3000 });
    const fleet = new FleetState([t]);
    fleet.apply(NODE, good);
    expectValue(fleet, 'health', true);

    const result = expectFailed(await prober(t, dispatcher()).run('health'), 'connect');
    expectNoSecret(result);
    expect(result.message).toContain('node.invalid');
    fleet.apply(NODE, result);
    expectValue(fleet, 'health', false);
  });

  it.skipIf(!hasOpenssl())(
    'a TLS certificate that does not verify (self-signed) -> connect; the same server is fine once trusted',
    async () => {
      const tls = makeSelfSignedCert();
      cleanups.push(() => tls.cleanup());
      const srv = await server(ledgerNode(defaultModel()), tls);
      const t = target(srv.url, { probes: ['health', 'blockNumber'] });
      const fleet = new FleetState([t]);
      // Trusting this one certificate proves the server itself works: only verification fails below.
      const trusting = prober(t, dispatcher(new Agent({ connect: { ca: tls.cert } })));
      for (const name of t.probes) {
        const ok = await trusting.run(name);
        expect(ok.kind, JSON.stringify(ok, bodyAsText)).toBe('ok');
        fleet.apply(NODE, ok);
      }
      expectValue(fleet, 'health', true);

      const verifying = prober(t, dispatcher());
      for (const name of t.probes) {
        const result = expectFailed(await verifying.run(name), 'connect');
        expect(result.message).toMatch(/TLS/);
        expectNoSecret(result);
        fleet.apply(NODE, result);
      }
      expectValue(fleet, 'health', false);
      expectValue(fleet, 'blockNumber', false);
    },
  );
});

describe('bodies that cannot be used', () => {
  const big = JSON.stringify({ status: 'ok', height: 1, pad: 'x'.repeat(CAP * 4) });

  it('a body over the size cap -> invalid_response', async () => {
    const { result } = await goodThenBad('health', fixed(200, 'application/json', big), 'invalid_response');
    expect(result.message).toMatch(/exceeds/);
  });

  it('a chunked body over the size cap (no content-length) -> invalid_response', async () => {
    const bad: RawHandler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      for (let i = 0; i < 8; i++) res.write('x'.repeat(CAP / 2));
      res.end();
    };
    await goodThenBad('health', bad, 'invalid_response');
  });

  it('a JSON-RPC answer over the size cap -> invalid_response', async () => {
    await goodThenBad(
      'validators',
      rpcAnswer((id) => ({ jsonrpc: '2.0', id, result: [], pad: 'y'.repeat(CAP * 2) })),
      'invalid_response',
    );
  });

  it('a 5xx body over the cap stays http_5xx, with the evidence body cut at the cap', async () => {
    const { result } = await goodThenBad('health', fixed(503, 'text/html', '<p>z'.repeat(CAP * 3)), 'http_5xx');
    expect(result.response!.body.length).toBe(CAP);
  });

  it('invalid JSON on /health -> invalid_response, the body not echoed', async () => {
    const { result } = await goodThenBad(
      'health',
      fixed(200, 'application/json', '{"status":"ok","height":'),
      'invalid_response',
    );
    expect(result.message).not.toContain('"height"');
  });

  it('invalid JSON on JSON-RPC -> invalid_response', async () => {
    await goodThenBad('blockNumber', fixed(200, 'application/json', '{"jsonrpc":"2.0","id":'), 'invalid_response');
  });

  it('invalid UTF-8 on /health -> invalid_response (not silently replaced)', async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"status":"ok","version":"'),
      Buffer.from([0xff, 0xfe, 0xc3]),
      Buffer.from('","height":5}'),
    ]);
    const { result } = await goodThenBad('health', fixed(200, 'application/json', bytes), 'invalid_response');
    expect(result.message).toMatch(/UTF-8/);
  });

  it('invalid UTF-8 on JSON-RPC -> invalid_response', async () => {
    const bad: RawHandler = (_req, res, body) => {
      const head = Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(rpcIdOf(body))},"result":[{"address":"`);
      const bytes = Buffer.concat([head, Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}]}')]); // an encoded surrogate
      res.writeHead(200, { 'content-type': 'application/json' }).end(bytes);
    };
    const { result } = await goodThenBad('validators', bad, 'invalid_response');
    expect(result.message).toMatch(/UTF-8/);
  });

  it('a JSON-RPC answer served as text/html 200 -> invalid_response, even when valid JSON-RPC', async () => {
    const { result } = await goodThenBad(
      'blockNumber',
      rpcAnswer((id) => ({ jsonrpc: '2.0', id, result: 4243 }), 'text/html'),
      'invalid_response',
    );
    expect(result.message).toMatch(/content-type/);
  });

  it('an HTML login page at 200 on JSON-RPC -> invalid_response', async () => {
    await goodThenBad(
      'miningStats',
      fixed(200, 'text/html; charset=utf-8', '<html><body>Please log in</body></html>'),
      'invalid_response',
    );
  });

  it('a JSON-RPC answer with the wrong id -> invalid_response', async () => {
    const { result } = await goodThenBad(
      'blockNumber',
      rpcAnswer((id) => ({ jsonrpc: '2.0', id: Number(id) + 1000, result: 4243 })),
      'invalid_response',
    );
    expect(result.message).toMatch(/id/);
  });

  it('a JSON-RPC answer with the id as a string -> invalid_response', async () => {
    await goodThenBad(
      'blockNumber',
      rpcAnswer((id) => ({ jsonrpc: '2.0', id: String(id), result: 4243 })),
      'invalid_response',
    );
  });
});

describe('valid JSON of the wrong shape -> invalid_response', () => {
  const health = (fields: string) => fixed(200, 'application/json', `{"status":"ok","version":"0.5.8",${fields}}`);
  const cases: Array<[string, ProbeName, RawHandler]> = [
    ['health height as a string', 'health', health('"height":"4243"')],
    ['health height negative', 'health', health('"height":-1')],
    ['health height 1e400 (Infinity once parsed)', 'health', health('"height":1e400')],
    ['health height a float', 'health', health('"height":4243.5')],
    ['health height beyond 2^53', 'health', health('"height":9007199254740993')],
    ['health peer_count as an object', 'health', health('"height":4243,"peer_count":{"n":3}')],
    ['health status as a number', 'health', fixed(200, 'application/json', '{"status":1,"height":4243}')],
    ['health as an array', 'health', fixed(200, 'application/json', '[{"status":"ok","height":4243}]')],
    ['health as a bare number', 'health', fixed(200, 'application/json', '4243')],
    ['blockNumber as a hex string', 'blockNumber', rpcRawResult('"0x1093"')],
    ['blockNumber negative', 'blockNumber', rpcRawResult('-5')],
    ['blockNumber 1e400', 'blockNumber', rpcRawResult('1e400')],
    ['blockNumber a float', 'blockNumber', rpcRawResult('4243.25')],
    ['blockNumber beyond 2^53', 'blockNumber', rpcRawResult('18446744073709551615')],
    ['blockNumber null', 'blockNumber', rpcRawResult('null')],
    ['blockNumber as an object', 'blockNumber', rpcRawResult('{"height":4243}')],
    [
      'validators as an object instead of an array',
      'validators',
      rpcRawResult(`{"validators":[{"address":"${'ab'.repeat(32)}","stake":"1"}]}`),
    ],
    [
      'validators with a non-numeric stake',
      'validators',
      rpcRawResult(`[{"address":"${'ab'.repeat(32)}","stake":"lots","weight":1}]`),
    ],
    [
      'validators with a negative stake',
      'validators',
      rpcRawResult(`[{"address":"${'ab'.repeat(32)}","stake":"-5","weight":1}]`),
    ],
    [
      'validators with a float stake',
      'validators',
      rpcRawResult(`[{"address":"${'ab'.repeat(32)}","stake":1.5e30,"weight":1}]`),
    ],
    [
      'validators with a stake of 2^128',
      'validators',
      rpcRawResult(`[{"address":"${'ab'.repeat(32)}","stake":"340282366920938463463374607431768211456"}]`),
    ],
    [
      'validators with a weight as a string',
      'validators',
      rpcRawResult(`[{"address":"${'ab'.repeat(32)}","stake":"5","weight":"60"}]`),
    ],
    ['validators with an array element', 'validators', rpcRawResult(`[["${'ab'.repeat(32)}","5"]]`)],
    ['validators with a non-hex address', 'validators', rpcRawResult('[{"address":"validator-one","stake":"5"}]')],
    ['miningStats as an array', 'miningStats', rpcRawResult('[12,9]')],
    [
      'miningStats with counts as strings',
      'miningStats',
      rpcRawResult(
        '{"totalMiners":"12","activeMiners":"9","currentBlockReward":"1","miningUpgradeHeight":1,"upgraded":false}',
      ),
    ],
    [
      'miningStats with a decimal reward',
      'miningStats',
      rpcRawResult(
        '{"totalMiners":12,"activeMiners":9,"currentBlockReward":"2.5","miningUpgradeHeight":1,"upgraded":false}',
      ),
    ],
    [
      'miningStats without upgraded',
      'miningStats',
      rpcRawResult('{"totalMiners":12,"activeMiners":9,"currentBlockReward":"1","miningUpgradeHeight":1}'),
    ],
  ];
  it.each(cases)('%s', async (_name, probe, bad) => {
    await goodThenBad(probe, bad, 'invalid_response');
  });
});

describe('JSON-RPC errors', () => {
  const rpcError = (code: number, message: string): RawHandler =>
    rpcAnswer((id) => ({ jsonrpc: '2.0', id, error: { code, message } }));

  /** Good values first, then `bad`: the probe is unsupported (not a failure) and its value is gone. */
  async function goodThenUnsupported(probe: 'miningStats' | 'validators', bad: RawHandler): Promise<void> {
    const good = ledgerNode(defaultModel());
    const srv = await server(good);
    const t = target(srv.url, { probes: probesFor(probe) });
    const p = prober(t, dispatcher());
    const fleet = new FleetState([t]);
    for (const name of t.probes) fleet.apply(NODE, await p.run(name));
    expectValue(fleet, probe, true);

    // Only this probe's method goes away (a node rolled back to an earlier build); blockNumber stays.
    const method = probe === 'miningStats' ? 'getMiningStats' : 'getValidators';
    srv.handler = (req, res, body, ctx) => (body.includes(method) ? bad : good)(req, res, body, ctx);
    const result = await p.run(probe);
    expect(result.kind, JSON.stringify(result, bodyAsText)).toBe('unsupported');
    expect(p.namespace()).toBe('claw');
    expectNoSecret(result);
    fleet.apply(NODE, result);
    expectValue(fleet, probe, false);
    const pv = nodeView(fleet).probes.find((v) => v.probe === probe)!;
    expect(pv.supported).toBe(false); // ledger_probe_supported 0
    expect(Object.values(pv.failures).every((n) => n === 0)).toBe(true); // not counted as a failure
    expect(pv.consecutiveFailures).toBe(0);
  }

  it('-32000 "method not found: claw_getMiningStats" (what real nodes send) -> unsupported, supported 0', async () => {
    await goodThenUnsupported('miningStats', rpcError(-32000, 'method not found: claw_getMiningStats'));
  });

  it('-32601 (the standard code) -> unsupported as well', async () => {
    await goodThenUnsupported('validators', rpcError(-32601, 'Method not found'));
  });

  it('a node build without getMiningStats (the earlier variant) -> unsupported, other probes unaffected', async () => {
    const srv = await server(ledgerNode(defaultModel({ namespace: 'clw' })));
    const base = ledgerNode(defaultModel({ namespace: 'clw' }));
    srv.handler = (req, res, body, ctx) =>
      body.includes('getMiningStats')
        ? methodNotFound(res, rpcIdOf(body), 'clw_getMiningStats')
        : base(req, res, body, ctx);
    const t = target(srv.url, { probes: ['blockNumber', 'miningStats'] });
    const p = prober(t, dispatcher());
    const fleet = new FleetState([t]);
    for (const name of t.probes) fleet.apply(NODE, await p.run(name));
    const view = nodeView(fleet);
    expect(view.up).toBe(true);
    expect(view.height).toBe(4242);
    expect(view.probes.find((v) => v.probe === 'miningStats')?.supported).toBe(false);
    expect(view.probes.find((v) => v.probe === 'blockNumber')?.supported).toBe(true);
    expect(p.namespace()).toBe('clw'); // a missing method does not unsettle the detected namespace
  });

  it('another -32000 error ("invalid params") -> rpc_error', async () => {
    const { result } = await goodThenBad('validators', rpcError(-32000, 'invalid params'), 'rpc_error');
    expect(result.message).toContain('invalid params');
    expect(result.message).toContain('-32000');
  });

  it('-32000 on blockNumber that is not "method not found" -> rpc_error, namespace kept', async () => {
    const { prober: p } = await goodThenBad('blockNumber', rpcError(-32000, 'state unavailable'), 'rpc_error');
    expect(p.namespace()).toBe('claw');
  });

  it('an RPC error message that echoes the credentials is scrubbed', async () => {
    const bad: RawHandler = (req, res, body) => {
      const echo =
        `invalid params from ${withCredentials('http://127.0.0.1:1')} with ${req.headers.authorization} and ` +
        `${PASSWORD}`;
      rpcAnswer((id) => ({ jsonrpc: '2.0', id, error: { code: -32000, message: echo } }))(req, res, body, {
        setInterval,
      });
    };
    const { result } = await goodThenBad('miningStats', bad, 'rpc_error');
    expect(result.message).toContain('invalid params');
    expect(result.message).toContain('[REDACTED]');
  });

  it('an error object without a numeric code -> invalid_response', async () => {
    await goodThenBad(
      'miningStats',
      rpcAnswer((id) => ({ jsonrpc: '2.0', id, error: 'boom' })),
      'invalid_response',
    );
  });

  it('neither result nor error -> invalid_response', async () => {
    await goodThenBad(
      'blockNumber',
      rpcAnswer((id) => ({ jsonrpc: '2.0', id })),
      'invalid_response',
    );
  });

  it('jsonrpc "1.0" -> invalid_response', async () => {
    await goodThenBad(
      'blockNumber',
      rpcAnswer((id) => ({ jsonrpc: '1.0', id, result: 1 })),
      'invalid_response',
    );
  });
});

describe('RPC namespace auto-detection', () => {
  async function nodeIn(namespace: string) {
    const model = defaultModel({ namespace });
    const srv = await server(ledgerNode(model));
    const t = target(srv.url, { probes: ['blockNumber', 'validators'] });
    const p = prober(t, dispatcher());
    const rpcCalls = () => srv.requests.map((r) => r.rpcMethod);
    return { model, srv, t, p, rpcCalls };
  }

  it('finds clw_* on the earliest builds and remembers it across runs', async () => {
    const { p, rpcCalls } = await nodeIn('clw');
    const first = await p.run('blockNumber');
    expect(first).toMatchObject({ kind: 'ok', namespace: 'clw', data: { probe: 'blockNumber', value: 4242 } });
    expect(rpcCalls()).toEqual(['claw_blockNumber', 'chain_blockNumber', 'clw_blockNumber', 'clw_blockNumber']);

    const before = rpcCalls().length;
    expect((await p.run('blockNumber')).kind).toBe('ok');
    expect((await p.run('validators')).kind).toBe('ok');
    expect(rpcCalls().slice(before)).toEqual(['clw_blockNumber', 'clw_getValidators']); // no detection again
  });

  it('finds chain_* (the spec’s word)', async () => {
    const { p, rpcCalls } = await nodeIn('chain');
    expect(await p.run('blockNumber')).toMatchObject({ kind: 'ok', namespace: 'chain' });
    expect(rpcCalls()).toEqual(['claw_blockNumber', 'chain_blockNumber', 'chain_blockNumber']);
    expect(p.namespace()).toBe('chain');
  });

  it('probes running side by side share one detection', async () => {
    const { p, rpcCalls } = await nodeIn('clw');
    const [a, b] = await Promise.all([p.run('blockNumber'), p.run('validators')]);
    expect(a.kind).toBe('ok');
    expect(b.kind).toBe('ok');
    const calls = rpcCalls();
    expect(calls.filter((m) => m === 'claw_blockNumber')).toHaveLength(1);
    expect(calls.filter((m) => m === 'chain_blockNumber')).toHaveLength(1);
    expect(calls).toContain('clw_getValidators');
    expect(calls).toHaveLength(5);
  });

  it('re-detects after the node changes namespace (upgrade clw -> claw), seen by blockNumber', async () => {
    const { model, t, p, rpcCalls } = await nodeIn('clw');
    const fleet = new FleetState([t]);
    fleet.apply(NODE, await p.run('blockNumber'));
    expect(nodeView(fleet).namespace).toBe('clw');

    model.namespace = 'claw';
    const before = rpcCalls().length;
    const r = await p.run('blockNumber');
    expect(r).toMatchObject({ kind: 'ok', namespace: 'claw' });
    expect(rpcCalls().slice(before)).toEqual(['clw_blockNumber', 'claw_blockNumber', 'claw_blockNumber']);
    fleet.apply(NODE, r);
    expect(nodeView(fleet).namespace).toBe('claw');
    // and remembered again
    const again = rpcCalls().length;
    expect((await p.run('validators')).kind).toBe('ok');
    expect(rpcCalls().slice(again)).toEqual(['claw_getValidators']);
  });

  it('re-detects after a namespace change first seen by another probe (not marked unsupported)', async () => {
    const { model, p } = await nodeIn('clw');
    expect((await p.run('validators')).kind).toBe('ok');
    model.namespace = 'claw';
    const r = await p.run('validators');
    expect(r).toMatchObject({ kind: 'ok', namespace: 'claw', data: { probe: 'validators' } });
    expect(p.namespace()).toBe('claw');
  });

  it('a node that answers no known namespace -> rpc_error, classified, no crash', async () => {
    const { srv, p } = await nodeIn('ledger');
    const r = expectFailed(await p.run('blockNumber'), 'rpc_error');
    expectNoSecret(r);
    expect(r.message).toMatch(/namespace/);
    expect(srv.requests).toHaveLength(3); // each known word once, then give up
    expect(p.namespace()).toBeUndefined();
  });

  it('a fixed namespace is never probed for', async () => {
    const srv = await server(ledgerNode(defaultModel({ namespace: 'ledger' })));
    const p = prober(target(srv.url, { rpcNamespace: 'ledger', probes: ['blockNumber'] }), dispatcher());
    expect(await p.run('blockNumber')).toMatchObject({ kind: 'ok', namespace: 'ledger' });
    expect(srv.requests.map((r) => r.rpcMethod)).toEqual(['ledger_blockNumber']);
  });
});

describe('/metrics bad input', () => {
  it('a text that is not Prometheus exposition -> invalid_response, upstream series gone', async () => {
    const { result } = await goodThenBad(
      'metrics',
      fixed(200, 'text/plain', '<html><body>Welcome to nginx!</body></html>\n'),
      'invalid_response',
    );
    expect(result.message).toMatch(/^GET \/metrics/);
  });

  it('an exposition over the size cap -> invalid_response', async () => {
    const lines = Array.from({ length: 2000 }, (_, i) => `block_height{shard="${i}"} ${i}`).join('\n');
    await goodThenBad(
      'metrics',
      fixed(200, 'text/plain; version=0.0.4', `# TYPE block_height gauge\n${lines}\n`),
      'invalid_response',
    );
  });

  it('a 504 from the proxy -> http_5xx', async () => {
    const { result } = await goodThenBad(
      'metrics',
      fixed(504, 'text/html', '<h1>504 Gateway Time-out</h1>'),
      'http_5xx',
    );
    expect(result.response?.method).toBe('GET /metrics');
  });
});
