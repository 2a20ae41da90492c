// The dedup stage (Alertmanager's DedupStage): given what a receiver was last told of a group
// (its notification log entry, notificationLog.ts) and the group's alerts as the mute stage
// split them, whether to notify now, what, and the entry to keep. Pure.
import type { MuteSplit } from './mute.js';
import type { NotifiedAlert } from './notification.js';
import type { GroupTiming } from './routing.js';

/** What was last sent to a receiver for a group (Alertmanager's notification log). */
export interface LogEntry {
  firing: string[];
  resolved: string[];
  /** When it was sent; 0: not known told (sent again at the group's next flush). */
  at: number;
}

export interface DedupStep {
  /** The notification to send, if any (an update that sends nothing may still change the entry). */
  send?: { status: 'firing' | 'resolved'; alerts: NotifiedAlert[] };
  /** The receiver's entry from now on; undefined: the group ended for it (nothing fires). */
  entry: LogEntry | undefined;
}

/** The flush of one group for one receiver; undefined: nothing to do (the entry stays as it is). */
export function dedup(
  entry: LogEntry | undefined,
  split: MuteSplit,
  timing: Pick<GroupTiming, 'sendResolved' | 'repeatIntervalMs'>,
  now: number,
): DedupStep | undefined {
  const { firing, held, resolved } = split;
  if (!needsUpdate(entry, split, timing, now)) return undefined;
  const alerts = timing.sendResolved ? [...firing, ...resolved] : firing;
  const stillFiring = firing.length + held.length > 0;
  const status = stillFiring ? 'firing' : 'resolved';
  const sent: Pick<DedupStep, 'send'> = alerts.length > 0 ? { send: { status, alerts } } : {};
  if (!stillFiring) return { ...sent, entry: undefined };
  const at = alerts.length > 0 ? now : (entry?.at ?? now);
  return { ...sent, entry: { firing: [...firing, ...held].map((a) => a.id), resolved: resolved.map((a) => a.id), at } };
}

/**
 * Alertmanager's dedup rule: notify on new firing alerts, on all resolved, on newly resolved
 * (sendResolved), or on repeat. `held`: told alerts a window now mutes (no repeat for them alone).
 */
export function needsUpdate(
  entry: LogEntry | undefined,
  { firing, held, resolved }: MuteSplit,
  timing: Pick<GroupTiming, 'sendResolved' | 'repeatIntervalMs'>,
  now: number,
): boolean {
  if (!entry) return firing.length > 0;
  const before = new Set(entry.firing);
  if (firing.some((a) => !before.has(a.id))) return true;
  if (firing.length === 0 && held.length === 0) return entry.firing.length > 0;
  const resolvedBefore = new Set(entry.resolved);
  if (timing.sendResolved && resolved.some((a) => !resolvedBefore.has(a.id))) return true;
  return firing.length > 0 && now - entry.at >= timing.repeatIntervalMs;
}
