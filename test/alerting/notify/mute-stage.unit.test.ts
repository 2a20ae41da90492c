// The mute stage: windows and silences through one check, asked at the time that counts, and
// how a group's alerts split for a receiver by what it was told.
import { describe, expect, it } from 'vitest';
import { isMuted, mutedBy, muting, splitMuted } from '../../../src/alerting/notify/mute.js';
import { H, T0, told } from './stageAlerts.js';

describe('mute stage', () => {
  const windowEnd = T0 + H;
  const check = (labels: Record<string, string>, at: number) =>
    labels.node === 'a' && at < windowEnd ? 'w' : undefined;

  it('asks a firing alert at now and a resolved one at its resolve time', () => {
    expect(isMuted(check, { node: 'a' }, undefined, T0)).toBe(true);
    expect(isMuted(check, { node: 'a' }, undefined, windowEnd)).toBe(false);
    // Resolved inside the window, looked at after it ended: still muted.
    expect(isMuted(check, { node: 'a' }, T0 + 10, windowEnd + H)).toBe(true);
    expect(isMuted(check, { node: 'a' }, windowEnd + 1, windowEnd + H)).toBe(false);
    expect(isMuted(undefined, { node: 'a' }, undefined, T0)).toBe(false);
  });

  it('takes windows and silences as one answer, the window named first', () => {
    const sources = {
      window: (l: Record<string, string>) => (l.node === 'a' ? 'upgrade' : undefined),
      silences: (l: Record<string, string>) => (l.node !== 'c' ? ['s1', 's2'] : []),
    };
    expect(muting(sources, { node: 'a' }, T0)).toEqual({ window: 'upgrade', silences: ['s1', 's2'] });
    expect(mutedBy(muting(sources, { node: 'b' }, T0))).toBe('s1');
    expect(muting(sources, { node: 'c' }, T0)).toBeUndefined();
    expect(mutedBy(undefined)).toBeUndefined();
  });

  it('splits a group for a receiver: muted and untold is not told, muted and told is held, its resolve goes', () => {
    const alerts = [
      told('open'),
      told('mutedNew'),
      told('mutedTold'),
      told('healedTold', 'resolved', T0),
      told('healedMutedUntold', 'resolved', T0),
      told('healedMutedTold', 'resolved', T0),
    ];
    const muted = new Set(['mutedNew', 'mutedTold', 'healedMutedUntold', 'healedMutedTold']);
    const split = splitMuted(alerts, new Set(['mutedTold', 'healedTold', 'healedMutedTold']), (a) => muted.has(a.id));
    const ids = (list: { id: string }[]) => list.map((a) => a.id);
    expect(ids(split.firing)).toEqual(['open']);
    expect(ids(split.held)).toEqual(['mutedTold']);
    expect(ids(split.resolved)).toEqual(['healedTold', 'healedMutedTold']);
  });
});
