// The status component over real HTTP on loopback: JSON API, node pages, badges and bad requests,
// one log line per node state change, reload events, and history that survives a restart.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseStatus } from '../../src/status/persist.js';
import { waitFor } from '../support/processes.js';
import { startStatusFleet, STATUS_FLEET_INTERVAL_MS, type StatusFleet } from '../support/statusFleet.js';

let sf: StatusFleet;

beforeAll(async () => {
  sf = await startStatusFleet({ statusFile: true });
}, 60_000);

afterAll(async () => {
  await sf?.close();
});

const get = async (path: string) => {
  const res = await fetch(sf.daemon.url + path);
  return {
    status: res.status,
    type: res.headers.get('content-type') ?? '',
    csp: res.headers.get('content-security-policy'),
    text: await res.text(),
  };
};

interface NodesJson {
  summary: Record<string, number>;
  nodes: Array<{
    name: string;
    status: string;
    reason: string;
    since: number | null;
    nextCheck: number | null;
    recent?: Array<{ outcome: string; reason: string }>;
  }>;
  events: Array<{ kind: string; text: string }>;
}

describe('status over HTTP', () => {
  it('lists every node with its status and reason, worst first', async () => {
    const r = await get('/api/v1/nodes?recent=5');
    expect(r.status).toBe(200);
    const body = JSON.parse(r.text) as NodesJson;
    expect(body.nodes.map((n) => n.name)).toEqual(['test-proxy', 'rpc-legacy', 'val-eu-1']);
    expect(body.nodes[0]).toMatchObject({ status: 'down', reason: 'HTTP 502 from proxy' });
    expect(body.nodes[0]!.recent!.at(-1)).toMatchObject({ outcome: 'down', reason: 'HTTP 502 from proxy' });
    expect(body.summary).toMatchObject({ down: 1, up: 2 });
    const one = JSON.parse((await get('/api/v1/nodes/rpc-legacy')).text) as {
      node: { status: string; probes: Array<{ probe: string; outcome: string; supported: boolean }> };
    };
    expect(one.node.status).toBe('up');
    expect(one.node.probes.find((p) => p.probe === 'validators')).toMatchObject({
      outcome: 'unsupported',
      supported: false,
    });
    // ...and its metrics agree: no ledger_probe_success sample for the probe it does not offer.
    const metrics = (await get('/metrics')).text;
    expect(metrics).toContain('ledger_probe_supported{node="rpc-legacy",network="mainnet",probe="validators"} 0');
    expect(metrics).not.toContain('ledger_probe_success{node="rpc-legacy",network="mainnet",probe="validators"}');
  });

  it('answers bad and unknown requests clearly', async () => {
    expect(await get('/api/v1/nodes/nope')).toMatchObject({ status: 404, text: '{"error":"unknown node: nope"}' });
    expect((await get('/api/v1/nodes?recent=500')).status).toBe(400);
    expect(JSON.parse((await get('/api/v1/nodes/val-eu-1/uptime/2h/badge.svg')).text)).toEqual({
      error: 'uptime window must be one of: 1h, 24h, 7d',
    });
    // Names every object inherits are not windows either.
    for (const inherited of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      expect(await get(`/api/v1/nodes/val-eu-1/uptime/${inherited}/badge.svg`), inherited).toMatchObject({
        status: 400,
        text: '{"error":"uptime window must be one of: 1h, 24h, 7d"}',
      });
    }
    const missing = await get('/nodes/%3Cscript%3E');
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('No node named &#34;&#60;script&#62;&#34; is configured.');
    expect((await get('/nodes/%E0%A4%A')).status).toBe(404);
    const page = await get('/nodes/test-proxy');
    expect(page.csp).toContain("script-src 'self'");
    expect(page.text).toContain('HTTP 502 from proxy');
  });

  it("lists the running store's evidence after a reload names another evidence directory", async () => {
    const started = sf.daemon.config();
    sf.daemon.applyConfig({
      ...started,
      evidence: { ...started.evidence, dir: join(sf.dir, 'evidence-after-reload') },
    });
    try {
      const page = await get('/nodes/test-proxy');
      expect(page.status).toBe(200);
      expect(page.text).not.toContain('could not be read');
      expect(page.text).toMatch(/<li class="evidence">.*HTTP 502/);
    } finally {
      sf.daemon.applyConfig(started);
    }
  });

  it('logs one line per node state change and records reloads as events', async () => {
    const node = sf.fleet.node('val-eu-1');
    node.setFault('hang');
    await waitFor('val-eu-1 down', () => (sf.status.board.node('val-eu-1')?.status === 'down' ? true : undefined), {
      timeoutMs: 4 * STATUS_FLEET_INTERVAL_MS + 5000,
      intervalMs: 100,
    });
    node.setFault('none');
    await waitFor('val-eu-1 up again', () => (sf.status.board.node('val-eu-1')?.status === 'up' ? true : undefined), {
      timeoutMs: 30_000 + 5000,
      intervalMs: 100,
    });
    const lines = sf.logs
      .map((l) => JSON.parse(l) as { msg: string; level: number })
      .filter((l) => l.msg.startsWith('val-eu-1 '));
    expect(lines.map((l) => l.msg)).toEqual([
      expect.stringMatching(/^val-eu-1 down: timeout after 1 s$/),
      expect.stringMatching(/^val-eu-1 up after \d+(\.\d)? s$/),
    ]);
    expect(sf.logs.join('')).not.toContain('"msg":"probe failed'); // per probe: debug only

    sf.daemon.applyConfig(sf.daemon.config());
    sf.daemon.noteReloadFailure(['config.yaml:3:7: nodes.0.url: not a URL']);
    const events = (JSON.parse((await get('/api/v1/nodes')).text) as NodesJson).events;
    expect(events.slice(0, 2).map((e) => e.text)).toEqual([
      'configuration reload rejected (1 problem); the running configuration stays',
      'configuration reloaded: 0 added, 0 removed, 0 changed',
    ]);
    expect(events.map((e) => e.kind)).toEqual(
      expect.arrayContaining(['node_down', 'node_up', 'config_accepted', 'config_rejected']),
    );
  }, 60_000);

  it('keeps history, down-since and events across a restart (written atomically at shutdown)', async () => {
    const before = JSON.parse((await get('/api/v1/nodes/test-proxy')).text) as {
      node: { since: number; recent: unknown[] };
    };
    await sf.restart();
    const saved = parseStatus(await readFile(join(sf.dir, 'status-history.json'), 'utf8'));
    expect(saved.nodes.map((n) => n.name).sort()).toEqual(['rpc-legacy', 'test-proxy', 'val-eu-1']);
    expect(saved.nodes.find((n) => n.name === 'test-proxy')).toMatchObject({
      status: 'down',
      since: before.node.since,
    });
    await waitFor(
      'a poll after the restart',
      () => (sf.status.board.history('test-proxy').length > before.node.recent.length ? true : undefined),
      { timeoutMs: 4 * STATUS_FLEET_INTERVAL_MS + 5000, intervalMs: 100 },
    );
    const after = JSON.parse((await get('/api/v1/nodes/test-proxy')).text) as {
      node: { since: number; status: string };
    };
    expect(after.node).toMatchObject({ status: 'down', since: before.node.since });
    expect(sf.status.board.recentEvents(50).some((e) => e.text === 'val-eu-1 down: timeout after 1 s')).toBe(true);
  }, 60_000);
});
