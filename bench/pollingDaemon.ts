// A simulated fleet (every node its own port) polled by the daemon with the components the CLI runs,
// in this process. The young generation is held before the daemon's modules load (they are imported
// here, after the hold), as the CLI does until its config is read.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Daemon } from '../src/daemon/index.js';
import { holdCompilers } from '../src/compilerPolicy.js';
import { applyHeapPolicy, holdYoungGeneration } from '../src/heapPolicy.js';

export interface PollingDaemon {
  daemon: Daemon;
  /** Stops the daemon and the fleet, and removes the working directory. */
  close(): Promise<void>;
}

export async function startPollingDaemon(count: number, intervalMs: number, dirPrefix: string): Promise<PollingDaemon> {
  holdYoungGeneration();
  holdCompilers();
  const { startDaemon } = await import('../src/daemon/index.js');
  const { standardComponents } = await import('../src/daemon/features.js');
  const { simulatedFleetConfig } = await import('../src/demo/fleet.js');
  const { createLogger } = await import('../src/logger.js');
  const { startFleet } = await import('./fleet.js');
  const fleet = await startFleet(count, { layout: 'port-per-node', perProcess: 2000 });
  const dir = mkdtempSync(join(tmpdir(), dirPrefix));
  const config = simulatedFleetConfig(fleet.nodes, {
    listen: { host: '127.0.0.1', port: 0 },
    intervalMs,
    timeoutMs: Math.min(5_000, intervalMs - 1),
    evidenceDir: join(dir, 'evidence'),
    labels: () => ({ role: 'bench' }),
  });
  applyHeapPolicy(process.execArgv, count);
  const logger = createLogger({ level: 'error' });
  const daemon = await startDaemon(config, { logger, components: standardComponents(logger) });
  return {
    daemon,
    close: async () => {
      await daemon.close();
      await fleet.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
