// The daemon fits its one HTTP client to the nodes it polls, at start-up and on each reload that
// changes the nodes: idle sockets kept past the longest poll interval (a server that names no
// Keep-Alive timeout, as hyper in front of the real nodes, would otherwise see a node polled every
// 45 s or more connect anew for every poll), and one socket per node behind a shared origin. The
// behaviour of each setting is tested in http-dispatcher.test.ts; this checks the wiring.
import { afterEach, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon, type DaemonComponent } from '../../src/daemon/index.js';
import type { DaemonContext } from '../../src/daemon/component.js';
import type { NodeTarget } from '../../src/domain.js';
import { idleKeepMs } from '../../src/http/dispatcher.js';
import { createLogger } from '../../src/logger.js';
import { daemonConfig, target as nodeTarget } from '../support/targets.js';

// Nothing listens there: polls fail fast and the test never waits for one.
const ORIGIN = 'http://127.0.0.1:9';

const target = (name: string, intervalMs: number, path = ''): NodeTarget =>
  nodeTarget(name, { url: `${ORIGIN}${path}`, intervalMs, timeoutMs: 2_000, probes: ['health'] });

let daemon: Daemon | undefined;
afterEach(async () => {
  await daemon?.close();
  daemon = undefined;
});

async function start(nodes: NodeTarget[]): Promise<DaemonContext> {
  let ctx: DaemonContext | undefined;
  const component: DaemonComponent = { name: 'fit-probe', start: (c) => void (ctx = c) };
  daemon = await startDaemon(daemonConfig(nodes), {
    logger: createLogger({ level: 'silent' }),
    evidence: false,
    defaultMetrics: false,
    components: [component],
  });
  if (!ctx) throw new Error('component not started');
  return ctx;
}

describe('daemon: the HTTP client fitted to the nodes', () => {
  it('keeps idle sockets past the longest interval from start-up and after reloads of the nodes', async () => {
    const first = [target('a', 45_000)];
    const ctx = await start(first);
    expect(ctx.client.fitOf(ORIGIN)).toEqual({ idleKeepMs: idleKeepMs(first), sockets: 1 });
    expect(idleKeepMs(first)).toBe(45_000 + 2_000 + 5_000);

    // A second node behind the same origin, polled every 2 minutes.
    const second = [target('a', 45_000), target('b', 120_000, '/b')];
    daemon!.applyConfig(daemonConfig(second));
    expect(ctx.client.fitOf(ORIGIN)).toEqual({ idleKeepMs: 120_000 + 2_000 + 5_000, sockets: 2 });

    // Back to short intervals: the least undici keeps by default.
    daemon!.applyConfig(daemonConfig([target('a', 5_000)]));
    expect(ctx.client.fitOf(ORIGIN)).toEqual({ idleKeepMs: 30_000, sockets: 1 });
  });
});
