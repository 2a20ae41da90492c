// The fan-out reader's rounds take the fleet as it is when they start: one snapshot for all the
// rounds a tick starts (building one walks the whole fleet), none while no round is due.
import { afterEach, describe, expect, it } from 'vitest';
import type { ExporterConfig } from '../../src/config/exporterConfig.js';
import type { FleetSnapshot } from '../../src/domain.js';
import { HttpClient } from '../../src/http/client.js';
import { createLogger } from '../../src/logger.js';
import { FanOutReader } from '../../src/probe/fanOut.js';
import { fanOutProbes } from '../../src/probes/registry.js';
import { Secrets } from '../../src/redact.js';
import { EntityReads } from '../../src/state/entityReads.js';

const clients: HttpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

function reader(config: ExporterConfig, clock: { t: number }) {
  const client = new HttpClient({ secrets: new Secrets() });
  clients.push(client);
  const snapshots = { taken: 0 };
  const reads = new EntityReads();
  const r = new FanOutReader({
    client,
    reads,
    config: () => config,
    fleet: (): FleetSnapshot => {
      snapshots.taken++;
      return { nodes: [], networks: [] };
    },
    logger: createLogger({ level: 'silent' }),
    now: () => clock.t,
  });
  return { r, reads, snapshots };
}

describe('FanOutReader rounds', () => {
  it('takes one fleet snapshot per tick that starts rounds, and none when no round is due', async () => {
    const config = { nodes: [], networks: {} } as unknown as ExporterConfig; // no watch: section
    const clock = { t: 1_000_000 };
    const { r, reads, snapshots } = reader(config, clock);
    expect(fanOutProbes().length).toBeGreaterThan(1);
    r.tick();
    expect(snapshots.taken).toBe(1);
    // Every built-in probe ran its round (with no entity to read).
    expect([...reads.view().keys()].sort()).toEqual(
      fanOutProbes()
        .map(([n]) => n)
        .sort(),
    );
    await new Promise((done) => setTimeout(done, 0)); // the rounds (nothing to read) finish
    clock.t += 1_000;
    r.tick();
    expect(snapshots.taken).toBe(1);
    clock.t += 30_000; // the watch's default interval
    r.tick();
    expect(snapshots.taken).toBe(2);
    await r.stop();
    expect(snapshots.taken).toBe(2);
  });
});
