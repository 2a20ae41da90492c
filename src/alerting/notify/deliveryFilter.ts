// Receivers an alert reaches, given the ones its route picked: a definition's `delivery` changes
// the list. The Watchdog goes to every alertmanager receiver whatever the routes say (Alertmanager
// routes it further); a failing receiver never reports its own failure, and when its route named
// no other receiver, every other receiver hears of it.
import type { AlertDelivery, Labels } from '../rules/types.js';

export interface ReceiverRef {
  name: string;
  /** Its kind, e.g. alertmanager. */
  kind: string;
}

export function deliveryTargets<R extends ReceiverRef>(
  delivery: AlertDelivery | undefined,
  labels: Labels,
  routed: readonly R[],
  all: readonly R[],
): R[] {
  if (!delivery) return [...routed];
  if (delivery.onlyKinds) return all.filter((r) => delivery.onlyKinds!.includes(r.kind));
  if (delivery.exceptLabelledReceiver) {
    const others = (list: readonly R[]) => list.filter((r) => r.name !== labels.receiver);
    const picked = others(routed);
    return picked.length > 0 ? picked : others(all);
  }
  return [...routed];
}
