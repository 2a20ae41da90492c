// A new probe kind is one module: registered here, in the test, it is asked over real HTTP,
// applied and cleared by the fleet state and rendered on /metrics, with no other file touched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeTarget, NodeValues, ProbeName } from '../../src/domain.js';
import { HttpClient } from '../../src/http/client.js';
import { createDispatcher } from '../../src/http/dispatcher.js';
import { MetricsView } from '../../src/metrics/view.js';
import { ProbeError } from '../../src/probes/errors.js';
import { NodeProber } from '../../src/probe/prober.js';
import { registerProbe, unregisterProbe } from '../../src/probes/registry.js';
import type { NodeProbe } from '../../src/probes/types.js';
import { Secrets } from '../../src/redact.js';
import { FleetState } from '../../src/state/fleetState.js';
import { buildSnapshot } from '../../src/state/snapshot.js';
import { sendJson, startRawServer, type RawServer } from '../support/rawServers.js';

// The field this probe stores on the node; a built-in probe declares it on NodeValues.
type WithPeerList = NodeValues & { peerList?: string[] };
type PeerListData = { probe: 'peerList'; value: string[] };

const PEER_LIST = 'peerList' as ProbeName;

const peerList: NodeProbe<PeerListData> = {
  target: 'node',
  request: { kind: 'get', path: '/peers', accept: 'application/json' },
  parse(answer) {
    const value: unknown = JSON.parse(answer as string);
    if (!Array.isArray(value) || !value.every((p) => typeof p === 'string'))
      throw new ProbeError('invalid_response', 'GET /peers: not a list of peer ids');
    return { probe: 'peerList', value };
  },
  apply: (node, d) => (((node as WithPeerList).peerList = d.value), false),
  clear: (node) => void ((node as WithPeerList).peerList = undefined),
  metrics: [
    {
      per: 'node',
      name: 'ledger_node_peer_list_size',
      help: 'Peers listed by GET /peers.',
      value: (v) => (v as WithPeerList).peerList?.length,
    },
    {
      per: 'node',
      name: 'ledger_node_peer_list_self',
      help: 'Whether the node lists itself (1) or not (0).',
      value: (v, n) => {
        const list = (v as WithPeerList).peerList;
        return list === undefined ? undefined : list.includes(n.name) ? 1 : 0;
      },
    },
  ],
};

let server: RawServer;
const dispatcher = createDispatcher();
let peers: unknown = ['p1', 'p2', 'p3'];

beforeAll(async () => {
  registerProbe('peerList', peerList);
  server = await startRawServer((req, res) => {
    if (req.url === '/peers') sendJson(res, 200, peers);
    else if (req.url === '/health') sendJson(res, 200, { status: 'ok', height: 7, version: '1.0.0' });
    else sendJson(res, 404, {});
  });
});

afterAll(async () => {
  unregisterProbe('peerList');
  await server.close();
  await dispatcher.close();
});

describe('a node probe registered as one module', () => {
  it('is polled, stored, rendered and cleared on failure', async () => {
    const target: NodeTarget = {
      name: 'n1',
      url: server.url,
      network: 'mainnet',
      labels: {},
      intervalMs: 1000,
      timeoutMs: 2000,
      rpcNamespace: 'auto',
      probes: ['health', PEER_LIST],
      headers: {},
    };
    const prober = new NodeProber(target, {
      client: new HttpClient({ dispatcher, secrets: new Secrets() }),
      maxResponseBytes: 65_536,
      maxUpstreamSeries: 100,
    });
    const state = new FleetState([target]);
    const view = new MetricsView(
      { version: 't', infoLabelKeys: [], defaultMetrics: false },
      () => ({
        snapshot: buildSnapshot(state.nodes(), {}, Date.now()),
        upstream: [],
        counters: { configReloads: { success: 0, failure: 0 }, pollOverruns: new Map() },
      }),
      () => undefined,
    );
    const scrape = async () => (await view.render('text')).body.toString().split('\n');
    const poll = async (probe: ProbeName) => state.apply('n1', await prober.run(probe));

    await poll('health');
    await poll(PEER_LIST);
    let lines = await scrape();
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toContain('GET /peers');
    expect(lines).toContain('ledger_node_peer_list_size{node="n1",network="mainnet"} 3');
    expect(lines).toContain('ledger_node_peer_list_self{node="n1",network="mainnet"} 0');
    expect(lines).toContain('# TYPE ledger_node_peer_list_size gauge');
    expect(lines).toContain('ledger_probe_success{node="n1",network="mainnet",probe="peerList"} 1');
    expect(lines).toContain('ledger_node_block_height{node="n1",network="mainnet"} 7');

    peers = { not: 'a list' };
    await poll(PEER_LIST);
    lines = await scrape();
    expect(lines.filter((l) => l.startsWith('ledger_node_peer_list_size{'))).toEqual([]);
    expect(lines).toContain('ledger_probe_success{node="n1",network="mainnet",probe="peerList"} 0');
    expect(lines).toContain(
      'ledger_probe_failures_total{node="n1",network="mainnet",probe="peerList",reason="invalid_response"} 1',
    );

    peers = ['p1', 'n1'];
    await poll(PEER_LIST);
    lines = await scrape();
    expect(lines).toContain('ledger_node_peer_list_size{node="n1",network="mainnet"} 2');
    expect(lines).toContain('ledger_node_peer_list_self{node="n1",network="mainnet"} 1');
  });

  it('keeps its name to itself', () => {
    expect(() => registerProbe('peerList', peerList)).toThrow(/already registered/);
    expect(() => registerProbe('health', peerList)).toThrow(/already registered/);
  });
});
