// One socket per node: over real loopback HTTP, the daemon's probes of a node share one
// keep-alive connection, reused round after round (no new connects once warm).
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../../src/daemon/index.js';
import { PROBE_NAMES } from '../../src/domain.js';
import type { ExporterConfig } from '../../src/config/exporterConfig.js';
import { createLogger } from '../../src/logger.js';
import { mixedFleetSpecs, SimFleet } from '../../src/sim/index.js';
import { waitFor } from '../support/processes.js';

let fleet: SimFleet;
let daemon: Daemon;
const connectsByPort = new Map<number, number>();
const onConnect = (msg: unknown) => {
  const port = Number((msg as { connectParams?: { port?: string | number } }).connectParams?.port);
  connectsByPort.set(port, (connectsByPort.get(port) ?? 0) + 1);
};

beforeAll(async () => {
  subscribe('undici:client:connected', onConnect);
  // Builds with every method and with fewer; the simulator keeps idle connections like axum does.
  fleet = await SimFleet.start(mixedFleetSpecs(10), { layout: 'port-per-node', keepAliveTimeoutMs: 60_000 });
  const config: ExporterConfig = {
    listen: { host: '127.0.0.1', port: 0 },
    polling: { concurrency: 16, maxResponseBytes: 1 << 20, maxUpstreamSeries: 500 },
    nodes: fleet.nodes.map((n) => ({
      name: n.name,
      url: n.url,
      network: n.network,
      labels: {},
      intervalMs: 400,
      timeoutMs: 390,
      rpcNamespace: 'auto',
      probes: [...PROBE_NAMES],
      headers: {},
    })),
    networks: {},
    evidence: { dir: '/nonexistent', maxBytes: 1 << 20, maxAgeDays: 1 },
  };
  daemon = await startDaemon(config, { logger: createLogger({ level: 'silent' }), evidence: false });
});

afterAll(async () => {
  unsubscribe('undici:client:connected', onConnect);
  await daemon?.close(0);
  await fleet?.close();
});

describe('sockets per node', () => {
  it('opens one connection per node and reuses it for every probe of every round', async () => {
    const healthRuns = () => Math.min(...[...daemon.state.nodes()].map((n) => n.probes.get('health')?.runs ?? 0));
    await waitFor('five rounds of every node', () => healthRuns() >= 5, { timeoutMs: 20_000, intervalMs: 50 });
    for (const n of daemon.state.nodes()) {
      const port = Number(new URL(n.target.url).port);
      let runs = 0;
      let failures = 0;
      for (const ps of n.probes.values()) {
        runs += ps.runs;
        for (const c of Object.values(ps.failures)) failures += c;
      }
      expect(runs, n.target.name).toBeGreaterThanOrEqual(5 * 3);
      // A failed exchange (a timeout on a loaded machine) may close the socket; nothing else may.
      expect(connectsByPort.get(port), n.target.name).toBeGreaterThanOrEqual(1);
      expect(connectsByPort.get(port)! - 1, n.target.name).toBeLessThanOrEqual(failures);
    }
  });
});
