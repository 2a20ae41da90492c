// The node page over real loopback HTTP when the evidence directory was deleted while the exporter
// runs: it says plainly that there are no evidence records because the directory is missing, and
// shows no errno code. The node answers well, so no evidence write brings the directory back.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../../src/daemon/index.js';
import { simulatedFleetConfig } from '../../src/demo/fleet.js';
import { createLogger } from '../../src/logger.js';
import { SimFleet } from '../../src/sim/index.js';
import { statusComponent } from '../../src/status/component.js';
import { waitFor } from '../support/processes.js';

let dir: string;
let fleet: SimFleet;
let daemon: Daemon;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lfe-status-evidence-missing-'));
  fleet = await SimFleet.start([{ name: 'n1', network: 'mainnet', build: 'current' }], {
    host: '127.0.0.1',
    layout: 'port-per-node',
    blockTimeMs: 1000,
  });
  const config = simulatedFleetConfig(fleet.nodes, {
    listen: { host: '127.0.0.1', port: 0 },
    intervalMs: 2000,
    timeoutMs: 1000,
    evidenceDir: join(dir, 'evidence'),
  });
  const logger = createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, cb) => cb() }) });
  daemon = await startDaemon(config, {
    logger,
    defaultMetrics: false,
    components: [statusComponent({ logger, version: 'test', file: false })],
  });
  await waitFor('the daemon to be ready', () => daemon.ready(), { timeoutMs: 20_000, intervalMs: 100 });
}, 60_000);

afterAll(async () => {
  await daemon?.close();
  await fleet?.close();
  await rm(dir, { recursive: true, force: true });
});

const get = async (path: string) => {
  const res = await fetch(daemon.url + path);
  return { status: res.status, text: await res.text() };
};

describe('the node page without its evidence directory', () => {
  it('says there are no evidence records because the directory is missing, with no errno code', async () => {
    expect(existsSync(join(dir, 'evidence'))).toBe(true);
    const before = await get('/nodes/n1');
    expect(before.status).toBe(200);
    expect(before.text).toContain('No evidence recorded for this node');

    await rm(join(dir, 'evidence'), { recursive: true });
    const page = await get('/nodes/n1');
    expect(page.status).toBe(200);
    expect(page.text).toContain(
      '<p class="muted" id="evidence-missing">No evidence records: the evidence directory is missing.</p>',
    );
    expect(page.text).not.toMatch(/ENOENT|could not be read/);
    // The API agrees: no records, no fault.
    expect(await get('/api/evidence?node=n1')).toEqual({ status: 200, text: '{"records":[]}' });
  });
});
