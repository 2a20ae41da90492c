// The fan-out reader's rounds are due on the monotonic clock: a wall clock stepped forward an hour
// starts no round early. Default clock; the wall clock is mocked from before the reader is made;
// rounds are seen through the entity reads they sync.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HttpClient } from '../../src/http/client.js';
import { FanOutReader } from '../../src/probe/fanOut.js';
import { fanOutProbes } from '../../src/probes/registry.js';
import { Secrets } from '../../src/redact.js';
import { EntityReads } from '../../src/state/entityReads.js';
import { FleetState } from '../../src/state/fleetState.js';
import { buildSnapshot } from '../../src/state/snapshot.js';
import { alertingFleetConfig, nodeDownToWebhook } from '../support/alertingDaemon.js';
import { target } from '../support/targets.js';

describe('fan-out reader under a wall-clock step', () => {
  afterEach(() => vi.restoreAllMocks());

  it('starts no round early when the wall clock steps forward an hour', async () => {
    const real = Date.now.bind(Date);
    let step = 0;
    vi.spyOn(Date, 'now').mockImplementation(() => real() + step);
    const nodes = [target('a')];
    const config = alertingFleetConfig(nodes, {
      dir: '/nonexistent',
      network: 'main',
      intervalMs: 1000,
      timeoutMs: 500,
      concurrency: 1,
      maxUpstreamSeries: 10,
      alerting: nodeDownToWebhook('/nonexistent', 'http://127.0.0.1:9/hook'),
    });
    const state = new FleetState(nodes);
    const reads = new EntityReads();
    const synced: string[] = [];
    const sync = reads.sync.bind(reads);
    reads.sync = (probe, entities) => (synced.push(probe), sync(probe, entities));
    const client = new HttpClient({ secrets: new Secrets() });
    const reader = new FanOutReader({
      client,
      reads,
      config: () => config,
      fleet: () => buildSnapshot(state.nodes(), {}, 0),
      logger: { warn: () => undefined, debug: () => undefined } as never,
    });
    reader.tick();
    const first = synced.length;
    expect(first).toBe(fanOutProbes().length);
    // The rounds (nothing to read) end; only time decides when the next ones start.
    await new Promise((r) => setTimeout(r, 20));
    step = 3_600_000;
    reader.tick();
    expect(synced).toHaveLength(first);
    await reader.stop();
    await client.close();
  });
});
