// The mute stage of the notification path (Alertmanager's MuteStage): what keeps an alert from
// being notified while it is still evaluated, listed and exported. Two sources mute through it:
// maintenance windows (config, cron schedules) and silences (API, acknowledgements). Its rule
// for a group's alerts: a muted alert the receiver was not told of is not told; one it was told
// of still fires for it (no reminders while muted) and its resolve is sent, so the incident it
// opened closes; a resolved notice goes only where a firing one went.
import type { Labels } from '../rules/types.js';
import type { NotifiedAlert } from './notification.js';

/** What mutes these labels at `now` (a maintenance window's name or a silence's id), if anything. */
export type SilenceCheck = (labels: Labels, now: number) => string | undefined;

/**
 * The stage's question for one alert: is it muted at the time that counts, now for a firing
 * alert, its resolve time for a resolved one (resolved inside a window: muted)?
 */
export function isMuted(
  check: SilenceCheck | undefined,
  labels: Labels,
  resolvedAt: number | undefined,
  now: number,
): boolean {
  return check?.(labels, resolvedAt ?? now) !== undefined;
}

/** What mutes an alert at a time: the window's name, the silences' ids. */
export interface Muting {
  window?: string;
  silences: string[];
}

export interface MuteSources {
  /** The maintenance window muting these labels at this wall time. */
  window?(labels: Labels, wallMs: number): string | undefined;
  /** The active silences muting these labels at this wall time. */
  silences?(labels: Labels, wallMs: number): string[];
}

/** Why these labels are muted at `wallMs`, or undefined when nothing mutes them. */
export function muting(sources: MuteSources, labels: Labels, wallMs: number): Muting | undefined {
  const window = sources.window?.(labels, wallMs);
  const silences = sources.silences?.(labels, wallMs) ?? [];
  if (window === undefined && silences.length === 0) return undefined;
  return window !== undefined ? { window, silences } : { silences };
}

/** One word for what mutes: the window's name, else the first silence's id. */
export const mutedBy = (m: Muting | undefined): string | undefined => m?.window ?? m?.silences[0];

export interface MuteSplit {
  /** Firing and not muted: notified. */
  firing: NotifiedAlert[];
  /** Firing, muted, and told before: still firing for the receiver, but no reminder for them alone. */
  held: NotifiedAlert[];
  /** Resolved, and either not muted or told before (its resolve goes where its firing went). */
  resolved: NotifiedAlert[];
}

/**
 * A group's alerts as one receiver is to hear of them. `muted` is asked with the time that counts:
 * now for a firing alert, its resolve time for a resolved one (resolved inside a window: muted).
 */
export function splitMuted(
  alerts: readonly NotifiedAlert[],
  told: ReadonlySet<string>,
  muted: (a: NotifiedAlert) => boolean,
): MuteSplit {
  const out: MuteSplit = { firing: [], held: [], resolved: [] };
  for (const a of alerts) {
    const m = muted(a);
    if (a.status === 'resolved') {
      if (!m || told.has(a.id)) out.resolved.push(a);
    } else if (!m) out.firing.push(a);
    else if (told.has(a.id)) out.held.push(a);
  }
  return out;
}
