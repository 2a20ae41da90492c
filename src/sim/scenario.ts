// The demo's watch story: one of the watched entries goes wrong on a schedule and recovers, so
// a new user sees the watch alerts fire and resolve without touching anything.
import type { SimFleet } from './fleet.js';

export interface WatchScenario {
  network: string;
  /** The demo's picks on that network (ChainControl.watchTargets). */
  targets: { validator: string; miner: string; account: string };
  /** Stops the schedule (the fleet's close does not wait for it). */
  cancel(): void;
}

/**
 * The miner stops checking in after `stopAfterMs` (missed check-ins from the next epoch
 * boundary, inactive after 6) and checks in again after `resumeAfterMs`.
 */
export function minerOutageScenario(
  fleet: SimFleet,
  network: string,
  opts: { stopAfterMs?: number; resumeAfterMs?: number } = {},
): WatchScenario {
  const chain = fleet.chain(network);
  const targets = chain.watchTargets();
  const stop = setTimeout(() => chain.miner(targets.miner, { checkins: false }), opts.stopAfterMs ?? 60_000);
  const resume = setTimeout(() => chain.miner(targets.miner, { checkins: true }), opts.resumeAfterMs ?? 5 * 60_000);
  stop.unref();
  resume.unref();
  return {
    network,
    targets,
    cancel: () => {
      clearTimeout(stop);
      clearTimeout(resume);
    },
  };
}
