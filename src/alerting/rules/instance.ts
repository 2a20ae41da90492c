// The state machine of one alert instance, as Prometheus runs it:
// inactive -> pending (condition true) -> firing (true for `for`) -> resolved (false, after
// `keep_firing_for`). A pending instance whose condition clears is dropped without a notice.
import type { Labels } from './types.js';

export type AlertState = 'pending' | 'firing' | 'resolved';

export interface AlertInstance {
  /** fingerprint(labels) */
  id: string;
  alertname: string;
  /** Every label, alertname and severity included. */
  labels: Labels;
  annotations: Record<string, string>;
  state: AlertState;
  value: number;
  /** When the condition became true (ms). */
  activeAt: number;
  firingSince?: number;
  resolvedAt?: number;
  /** First evaluation the condition was false while firing (keep_firing_for counts from here). */
  keepFiringSince?: number;
}

export interface Timing {
  forMs: number;
  keepFiringForMs: number;
}

export interface Observation {
  labels: Labels;
  annotations: Record<string, string>;
  value: number;
}

/** The condition is true at `now`. Returns the next state of `current` (or a new pending one). */
export function observeActive(
  current: AlertInstance | undefined,
  id: string,
  obs: Observation,
  timing: Timing,
  now: number,
): AlertInstance {
  if (current && unchanged(current, obs, timing, now)) return current;
  const base: AlertInstance =
    current && current.state !== 'resolved'
      ? { ...current, labels: obs.labels, annotations: obs.annotations, value: obs.value, keepFiringSince: undefined }
      : {
          id,
          alertname: obs.labels.alertname ?? '',
          labels: obs.labels,
          annotations: obs.annotations,
          state: 'pending',
          value: obs.value,
          activeAt: now,
        };
  if (base.state === 'pending' && now - base.activeAt >= timing.forMs)
    return { ...base, state: 'firing', firingSince: now };
  return base;
}

/**
 * The condition is false at `now` (or its subject is gone when `gone`). Returns the next state,
 * or undefined when the instance simply disappears (pending, or resolved long ago).
 */
export function observeInactive(
  current: AlertInstance,
  timing: Timing,
  now: number,
  opts: { gone?: boolean; resolvedRetentionMs: number },
): AlertInstance | undefined {
  if (current.state === 'pending') return undefined;
  if (current.state === 'resolved')
    return now - (current.resolvedAt ?? now) >= opts.resolvedRetentionMs ? undefined : current;
  if (!opts.gone && timing.keepFiringForMs > 0) {
    const since = current.keepFiringSince ?? now;
    if (now - since < timing.keepFiringForMs) return { ...current, keepFiringSince: since };
  }
  return { ...current, state: 'resolved', resolvedAt: now, keepFiringSince: undefined };
}

/** Nothing to change: the same observation again, no pending instance due to fire, no keep_firing_for running. */
function unchanged(current: AlertInstance, obs: Observation, timing: Timing, now: number): boolean {
  if (current.state === 'resolved' || current.keepFiringSince !== undefined) return false;
  if (current.state === 'pending' && now - current.activeAt >= timing.forMs) return false;
  return current.value === obs.value && current.labels === obs.labels && current.annotations === obs.annotations;
}
