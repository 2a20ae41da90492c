// A running daemon with the status component over a small simulated fleet: a current node, an
// earliest build (methods it lacks are unsupported), and one behind a dead proxy (5xx evidence).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { startDaemon, type Daemon } from '../../src/daemon/index.js';
import { simulatedFleetConfig } from '../../src/demo/fleet.js';
import { createLogger } from '../../src/logger.js';
import { SimFleet } from '../../src/sim/index.js';
import { statusComponent, type StatusComponent } from '../../src/status/component.js';
import { waitFor } from './processes.js';

export const STATUS_FLEET_INTERVAL_MS = 2000;

export interface StatusFleet {
  fleet: SimFleet;
  daemon: Daemon;
  status: StatusComponent;
  logs: string[];
  dir: string;
  /** Restarts the daemon on the same history file (the fleet keeps running). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function startStatusFleet(opts: { statusFile?: boolean } = {}): Promise<StatusFleet> {
  const dir = await mkdtemp(join(tmpdir(), 'lfe-status-'));
  const fleet = await SimFleet.start(
    [
      { name: 'val-eu-1', network: 'mainnet', build: 'current' },
      { name: 'rpc-legacy', network: 'mainnet', build: 'earliest' },
      { name: 'test-proxy', network: 'testnet', build: 'current', fault: 'proxy_502' },
    ],
    { host: '127.0.0.1', layout: 'port-per-node', blockTimeMs: 1000 },
  );
  const config = simulatedFleetConfig(fleet.nodes, {
    listen: { host: '127.0.0.1', port: 0 },
    intervalMs: STATUS_FLEET_INTERVAL_MS,
    timeoutMs: 1000,
    evidenceDir: join(dir, 'evidence'),
    labels: (name) => ({ region: name.split('-')[1] ?? 'none' }),
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  const logger = createLogger({ level: 'info', destination: sink });
  const start = async () => {
    const status = statusComponent({
      logger,
      version: 'test',
      file: opts.statusFile ? join(dir, 'status-history.json') : false,
    });
    const daemon = await startDaemon(config, { logger, defaultMetrics: false, components: [status] });
    return { daemon, status };
  };
  let running = await start();
  const out: StatusFleet = {
    fleet,
    get daemon() {
      return running.daemon;
    },
    get status() {
      return running.status;
    },
    logs,
    dir,
    async restart() {
      await running.daemon.close();
      running = await start();
    },
    async close() {
      await running.daemon.close();
      await fleet.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  // The board refreshes at most every 250 ms or more (cost-based): wait until it has taken in every probe's first
  // answer.
  const settled = () =>
    out.daemon.ready() &&
    out.status.board.nodes().length === 3 &&
    out.status.board.nodes().every((n) => n.status !== 'unknown' && n.probes.every((p) => p.outcome !== 'pending'));
  await waitFor(
    'first poll round, statuses and evidence of the proxied node',
    async () =>
      settled() && (await out.daemon.evidence!.query({ node: 'test-proxy', limit: 1 })).length > 0 ? true : undefined,
    { timeoutMs: 20_000, intervalMs: 100 },
  );
  return out;
}
