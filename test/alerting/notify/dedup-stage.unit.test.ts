// The dedup stage, pure: Alertmanager's rule for when a receiver hears of a group again, and the
// notification log entry it keeps.
import { describe, expect, it } from 'vitest';
import { dedup, type LogEntry } from '../../../src/alerting/notify/dedupStage.js';
import type { MuteSplit } from '../../../src/alerting/notify/mute.js';
import { H, M, T0, told } from './stageAlerts.js';

const timing = { sendResolved: true, repeatIntervalMs: 4 * H };
const split = (firing: string[], resolved: string[] = [], held: string[] = []): MuteSplit => ({
  firing: firing.map((id) => told(id)),
  held: held.map((id) => told(id)),
  resolved: resolved.map((id) => told(id, 'resolved', T0)),
});
const entry = (firing: string[], at = T0, resolved: string[] = []): LogEntry => ({ firing, resolved, at });
const sent = (step: ReturnType<typeof dedup>) => step?.send && [step.send.status, step.send.alerts.map((a) => a.id)];

describe('dedup stage', () => {
  it('a first notification goes when something fires, and the entry records it', () => {
    expect(dedup(undefined, split([]), timing, T0)).toBeUndefined();
    const step = dedup(undefined, split(['a']), timing, T0);
    expect(sent(step)).toEqual(['firing', ['a']]);
    expect(step?.entry).toEqual(entry(['a']));
  });

  it('the same firing set waits for repeatInterval; a new alert goes at once', () => {
    expect(dedup(entry(['a']), split(['a']), timing, T0 + 4 * H - 1)).toBeUndefined();
    expect(sent(dedup(entry(['a']), split(['a']), timing, T0 + 4 * H))).toEqual(['firing', ['a']]);
    const joined = dedup(entry(['a']), split(['a', 'b']), timing, T0 + M);
    expect(sent(joined)).toEqual(['firing', ['a', 'b']]);
    expect(joined?.entry).toEqual(entry(['a', 'b'], T0 + M));
  });

  it('all resolved: one resolved notice, and the entry ends; without sendResolved the entry ends silently', () => {
    const step = dedup(entry(['a', 'b']), split([], ['a', 'b']), timing, T0 + H);
    expect(sent(step)).toEqual(['resolved', ['a', 'b']]);
    expect(step?.entry).toBeUndefined();
    const quiet = dedup(entry(['a']), split([], ['a']), { ...timing, sendResolved: false }, T0 + H);
    expect(quiet).toEqual({ entry: undefined });
  });

  it('a newly resolved alert is told while others fire; one already told resolved is not told again', () => {
    const step = dedup(entry(['a', 'b']), split(['a'], ['b']), timing, T0 + M);
    expect(sent(step)).toEqual(['firing', ['a', 'b']]);
    expect(step?.entry).toEqual(entry(['a'], T0 + M, ['b']));
    expect(dedup(entry(['a'], T0 + M, ['b']), split(['a'], ['b']), timing, T0 + 2 * M)).toBeUndefined();
  });

  it('held alerts (muted, told before) get no reminder, but the resolve of another still goes', () => {
    expect(dedup(entry(['a']), split([], [], ['a']), timing, T0 + 10 * H)).toBeUndefined();
    const step = dedup(entry(['a', 'b']), split([], ['b'], ['a']), timing, T0 + H);
    expect(sent(step)).toEqual(['firing', ['b']]);
    expect(step?.entry).toEqual(entry(['a'], T0 + H, ['b']));
  });

  it('an entry not known told (at 0: unconfirmed before a restart) is told again at the next flush', () => {
    expect(sent(dedup(entry(['a'], 0), split(['a']), timing, T0))).toEqual(['firing', ['a']]);
  });

  it('without sendResolved a resolve among firing alerts is not told; the repeat names only what fires', () => {
    const quiet = { ...timing, sendResolved: false };
    expect(dedup(entry(['a', 'c']), split(['c'], ['a']), quiet, T0 + H)).toBeUndefined();
    const repeat = dedup(entry(['a', 'c']), split(['c'], ['a']), quiet, T0 + 4 * H);
    expect(sent(repeat)).toEqual(['firing', ['c']]);
    expect(repeat?.entry).toEqual(entry(['c'], T0 + 4 * H, ['a']));
  });
});
