// The entry point's hold on SIGTERM, SIGINT and SIGHUP, in this process: signals are emitted to
// the process's listeners (none is really sent) and process.exit is replaced, so what the hold
// does with each is seen directly. The CLI's own behaviour is in startup-signals and lifecycle.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  holdStartupSignals,
  isSignalEcho,
  noteStartupSignals,
  releaseStartupHup,
  releaseStartupStop,
  SIGNAL_ECHO_MS,
  STARTUP_STOP_BOUND_MS,
} from '../../src/daemon/startupSignals.js';

const SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

afterEach(() => {
  releaseStartupHup();
  releaseStartupStop();
  vi.restoreAllMocks();
});

const emit = (signal: NodeJS.Signals) => process.emit(signal, signal);

describe('startup signals', () => {
  it('holds SIGTERM and SIGINT before SIGHUP, and lets all three go on release', () => {
    const before = SIGNALS.map((s) => process.listenerCount(s));
    const on = vi.spyOn(process, 'on');
    holdStartupSignals();
    // The CLI test takes a caught SIGHUP as the sign that the stops are held too.
    expect(on.mock.calls.map((c) => c[0])).toEqual(['SIGTERM', 'SIGINT', 'SIGHUP']);
    expect(SIGNALS.map((s) => process.listenerCount(s))).toEqual(before.map((n) => n + 1));
    releaseStartupHup();
    releaseStartupStop();
    expect(SIGNALS.map((s) => process.listenerCount(s))).toEqual(before);
  });

  it('notes a stop held before the logger, stops once started, and exits 1 at a second stop', () => {
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    holdStartupSignals();
    emit('SIGINT');
    expect(exit).not.toHaveBeenCalled();
    const stops: Array<[string, boolean]> = [];
    noteStartupSignals({ hup: () => undefined, stop: (signal, again) => void stops.push([signal, again]) });
    expect(stops).toEqual([['SIGINT', false]]);
    emit('SIGTERM');
    expect(stops).toEqual([
      ['SIGINT', false],
      ['SIGTERM', true],
    ]);
    expect(exit.mock.calls).toEqual([[1]]);
    // The first signal is the one the exporter stops for.
    expect(releaseStartupStop()).toBe('SIGINT');
    expect(releaseStartupStop()).toBeUndefined();
  });

  it('takes a repeat of the same stop signal at once (one Ctrl-C passed on by npm) as that one stop', () => {
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    holdStartupSignals();
    const stops: Array<[string, boolean]> = [];
    noteStartupSignals({ hup: () => undefined, stop: (signal, again) => void stops.push([signal, again]) });
    emit('SIGINT');
    emit('SIGINT');
    expect(stops).toEqual([['SIGINT', false]]);
    expect(exit).not.toHaveBeenCalled();
    expect(releaseStartupStop()).toBe('SIGINT');
  });

  it('tells an echo from a second request by signal and time', () => {
    const first = { signal: 'SIGINT' as const, at: 10_000 };
    expect(isSignalEcho(first, 'SIGINT', 10_000 + SIGNAL_ECHO_MS - 1)).toBe(true);
    expect(isSignalEcho(first, 'SIGINT', 10_000 + SIGNAL_ECHO_MS)).toBe(false);
    expect(isSignalEcho(first, 'SIGTERM', 10_001)).toBe(false);
    expect(isSignalEcho(undefined, 'SIGINT', 10_001)).toBe(false);
  });

  it('turns any number of SIGHUPs into one reload after start, each noted', () => {
    holdStartupSignals();
    emit('SIGHUP');
    let noted = 0;
    noteStartupSignals({ hup: () => void noted++, stop: () => undefined });
    expect(noted).toBe(1);
    emit('SIGHUP');
    emit('SIGHUP');
    expect(noted).toBe(3);
    expect(releaseStartupStop()).toBeUndefined();
    expect(releaseStartupHup()).toBe(true);
    expect(releaseStartupHup()).toBe(false);
  });

  it('a stop held during a start-up that never finishes still ends the process, after the shutdown bound', () => {
    vi.useFakeTimers();
    try {
      const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
      holdStartupSignals();
      const stuck: number[] = [];
      noteStartupSignals({ hup: () => undefined, stop: () => undefined, stuck: (ms) => void stuck.push(ms) });
      emit('SIGTERM');
      vi.advanceTimersByTime(STARTUP_STOP_BOUND_MS - 1);
      expect(exit).not.toHaveBeenCalled();
      vi.advanceTimersByTime(1);
      expect(stuck).toEqual([STARTUP_STOP_BOUND_MS]);
      expect(exit.mock.calls).toEqual([[1]]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a start-up that finishes in time hands the stop over: the bound never fires', () => {
    vi.useFakeTimers();
    try {
      const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
      holdStartupSignals();
      emit('SIGTERM');
      vi.advanceTimersByTime(1_000);
      expect(releaseStartupStop()).toBe('SIGTERM');
      vi.advanceTimersByTime(10 * STARTUP_STOP_BOUND_MS);
      expect(exit).not.toHaveBeenCalled();
    } finally {
      vi.useRealTimers();
    }
  });

  it('imports nothing, so the entry point holds the signals before any load time', () => {
    const text = readFileSync(new URL('../../src/daemon/startupSignals.ts', import.meta.url), 'utf8');
    expect(text).not.toMatch(/^\s*(import|export\s.*\sfrom)\s|\bimport\(|\brequire\(/m);
  });
});
