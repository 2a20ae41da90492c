// Components join the daemon through its hooks: routes, probe results, reload diffs, start/stop.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigDiff } from '../../src/config/diff.js';
import { startDaemon, type DaemonComponent } from '../../src/daemon/index.js';
import type { NodeTarget } from '../../src/domain.js';
import { createLogger } from '../../src/logger.js';
import { waitFor } from '../support/processes.js';
import { daemonConfig } from '../support/targets.js';

let node: Server;
let nodeUrl: string;

beforeAll(async () => {
  node = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok","height":7}'),
  );
  await new Promise<void>((r) => node.listen(0, '127.0.0.1', r));
  nodeUrl = `http://127.0.0.1:${(node.address() as AddressInfo).port}`;
});

afterAll(async () => {
  node.closeAllConnections();
  await new Promise((r) => node.close(r));
});

const target = (name: string): NodeTarget => ({
  name,
  url: nodeUrl,
  network: 'n',
  labels: {},
  intervalMs: 1000,
  timeoutMs: 1000,
  rpcNamespace: 'auto',
  probes: ['health'],
  headers: {},
});

describe('daemon components', () => {
  it('serve their routes, see each probe result and each reload diff, and start and stop with the daemon', async () => {
    const results: string[] = [];
    const diffs: ConfigDiff[] = [];
    const events: string[] = [];
    const component: DaemonComponent = {
      name: 'test',
      routes: [
        (req) =>
          req.pathname === '/api/test'
            ? { status: 200, contentType: 'application/json', body: JSON.stringify({ q: req.params.get('q') }) }
            : undefined,
      ],
      onProbeResult: (t, r, state) => results.push(`${t.name}:${r.probe}:${r.kind}:${state.probes.get(r.probe)?.runs}`),
      onReload: (d) => diffs.push(d),
      start: (ctx) => void events.push(`start:${ctx.snapshot().nodes.length}`),
      stop: () => void events.push('stop'),
    };
    const daemon = await startDaemon(daemonConfig([target('a')]), {
      logger: createLogger({ level: 'silent' }),
      evidence: false,
      defaultMetrics: false,
      components: [component],
    });
    try {
      expect(events).toEqual(['start:1']);
      const res = await fetch(`${daemon.url}/api/test?q=1`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ q: '1' });
      // Built-in routes still win and unknown paths are still 404.
      expect((await fetch(`${daemon.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${daemon.url}/api/other`)).status).toBe(404);
      await waitFor('a probe result', () => (results.length > 0 ? true : undefined), {
        timeoutMs: 10_000,
        intervalMs: 20,
      });
      // Listeners see the state after the result was applied: the run is already counted.
      expect(results[0]).toMatch(/^a:health:(ok|failed):1$/);

      daemon.applyConfig(daemonConfig([{ ...target('a'), labels: { rack: 'r1' } }, target('b')]));
      expect(diffs).toHaveLength(1);
      expect(diffs[0]!.nodes).toEqual({ added: ['b'], removed: [], changed: ['a'], unchanged: [] });
      expect(diffs[0]!.sections).toEqual(['nodes']);
      expect(diffs[0]!.restartOnly).toEqual([]);
    } finally {
      await daemon.close();
    }
    expect(events).toEqual(['start:1', 'stop']);
  });
});
