// A config reload that changes the alerting section while a notification is in flight: the send
// finishes on the old queue and is recorded as delivered, so the receiver gets it once; what is
// due after the reload goes through the new queues. Real daemon, simulated node, loopback receiver.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon } from '../../src/daemon/index.js';
import type { ExporterConfig } from '../../src/config/exporterConfig.js';
import type { SimFleet } from '../../src/sim/index.js';
import { waitFor } from '../support/processes.js';
import { startHeldAnswerRig, type HeldAnswerRig, type Notified } from '../support/alertingDaemon.js';

const NODE = 'rl-1';
const HOLD_MS = 1500;

describe('built-in alerting across a config reload', () => {
  let rig: HeldAnswerRig | undefined;
  let fleet: SimFleet;
  let daemon: Daemon;
  let config: ExporterConfig;
  const posts: Notified[] = [];

  beforeAll(async () => {
    // The first notification is answered late, so the reload happens while it is in flight.
    rig = await startHeldAnswerRig({
      name: NODE,
      network: 'rl',
      holdMs: HOLD_MS,
      onBody: (body) =>
        posts.push({
          at: Date.now(),
          status: body.status ?? '',
          nodes: (body.alerts ?? []).map((a) => a.labels.node ?? ''),
        }),
    });
    ({ fleet, daemon, config } = rig);
  }, 60_000);

  afterAll(() => rig?.close());

  it(
    'a notification in flight during a reload is delivered once; the resolved one goes through the new queue',
    { timeout: 60_000 },
    async () => {
      await waitFor('first poll round', () => (daemon.ready() ? true : undefined), {
        timeoutMs: 20_000,
        intervalMs: 50,
      });
      await fleet.node(NODE).kill();
      await rig!.firstPost;
      const reloadedAt = Date.now();
      // A change of the alerting section only (a new repeat interval): the receivers are rebuilt.
      daemon.applyConfig({
        ...config,
        alerting: { ...config.alerting!, routing: { ...config.alerting!.routing, repeatIntervalMs: 7_200_000 } },
      });
      // Long enough for the held answer, a re-send through the new queue if the first were counted
      // as failed, and a further group interval.
      await new Promise((r) => setTimeout(r, HOLD_MS + 3000));
      const firing = posts.filter((p) => p.status === 'firing');
      expect(firing.map((p) => p.nodes)).toEqual([[NODE]]);
      expect(firing[0]!.at).toBeLessThanOrEqual(reloadedAt);

      await fleet.node(NODE).revive();
      await waitFor(
        'resolved notification',
        async () => (posts.some((p) => p.status === 'resolved') ? true : undefined),
        { timeoutMs: 20_000, intervalMs: 100 },
      );
      expect(posts.filter((p) => p.status === 'resolved').map((p) => p.nodes)).toEqual([[NODE]]);
      expect(posts.filter((p) => p.status === 'firing')).toHaveLength(1);
    },
  );
});
