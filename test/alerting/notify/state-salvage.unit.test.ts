// Salvage of a damaged alert state file, cut at every offset of a real serialized state and at
// random offsets of random states: every recovered entry equals the one written, nothing is
// invented, more text never recovers less, and a log entry whose delivery was unconfirmed is
// never taken as delivered.
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DispatcherState } from '../../../src/alerting/notify/dispatcher.js';
import { serializeAlertState, type AlertState } from '../../../src/alerting/notify/stateFile.js';
import { describeSalvage, salvageAlertState, type StateSalvage } from '../../../src/alerting/notify/stateSalvage.js';
import type { AlertInstance } from '../../../src/alerting/rules/instance.js';

const T0 = Date.UTC(2026, 10, 27, 12);

const inst = (i: number, state: AlertInstance['state']): AlertInstance => ({
  id: `f${i.toString(16).padStart(15, '0')}`,
  alertname: 'LedgerNodeDown',
  labels: { alertname: 'LedgerNodeDown', severity: 'critical', node: `val-é-${i}`, network: 'main "net"' },
  annotations: { summary: `node val-${i} does not answer\n(line two)`, runbook_url: `https://r.example/${i}` },
  state,
  value: 1,
  activeAt: T0 - 600_000 + i,
  ...(state !== 'pending' ? { firingSince: T0 - 300_000 + i } : {}),
  ...(state === 'resolved' ? { resolvedAt: T0 - 1_000 + i } : {}),
});

/** 12 instances, 20 log entries (4 of them unconfirmed), 6 pushes: a real file's shape. */
function realState(): AlertState {
  const instances = Array.from({ length: 12 }, (_, i) => inst(i, (['firing', 'pending', 'resolved'] as const)[i % 3]!));
  const log: DispatcherState['log'] = {};
  const unconfirmed: NonNullable<DispatcherState['unconfirmed']> = {};
  for (let g = 0; g < 20; g++) {
    const key = `pager\u00000:{alertname="LedgerNodeDown",network="n${g}"}`;
    log[key] = {
      firing: [instances[g % 12]!.id],
      resolved: g % 4 === 0 ? [instances[(g + 2) % 12]!.id] : [],
      at: T0 - g,
    };
    if (g % 5 === 0) unconfirmed[key] = { alerts: [instances[g % 12]!.id], at: T0 - g };
  }
  const pushed: DispatcherState['pushed'] = {};
  for (let i = 0; i < 6; i++) pushed[`am\u0000${instances[i]!.id}`] = { at: T0 - 50 - i, status: 'firing' };
  return { instances, dispatcher: { log, pushed, unconfirmed } };
}

/** What a salvage holds that it may not, against the state that was written: none. */
function problems(original: AlertState, s: StateSalvage, written: AlertState): string[] {
  const out: string[] = [];
  const same = (what: string, a: unknown, b: unknown) => void (isDeepStrictEqual(a, b) || out.push(what));
  // Instances come back in the file's order (serializeAlertState sorts them): a prefix of it.
  same('instances', s.state.instances, written.instances.slice(0, s.state.instances.length));
  const o = original.dispatcher;
  const d = s.state.dispatcher;
  for (const [k, e] of Object.entries(d.log)) same(`log ${k}`, e, o.log[k]);
  for (const [k, e] of Object.entries(d.pushed)) same(`push ${k}`, e, o.pushed[k]);
  for (const [k, e] of Object.entries(d.unconfirmed ?? {})) {
    // Written, or derived from its log entry (its delivery not proved).
    const derived = o.log[k] && { alerts: o.log[k].firing, at: o.log[k].at };
    if (!isDeepStrictEqual(e, o.unconfirmed?.[k]) && !isDeepStrictEqual(e, derived)) out.push(`unconfirmed ${k}`);
  }
  // Safety: a log entry recovered without proof of delivery is sent again, never taken as sent.
  for (const k of Object.keys(d.log)) if (o.unconfirmed?.[k] && !d.unconfirmed?.[k]) out.push(`taken as sent: ${k}`);
  if (s.recovered.log !== Object.keys(d.log).length) out.push('log count');
  return out;
}

const total = (s: StateSalvage) =>
  s.recovered.log + s.recovered.pushed + s.recovered.instances + s.recovered.unconfirmed;

describe('salvage of a damaged alert state file', () => {
  const state = realState();
  const text = serializeAlertState(state, T0);
  const written = JSON.parse(text) as AlertState;

  it('the dispatcher log is written before the instances, newest entry first', () => {
    expect(text.indexOf('"log"')).toBeLessThan(text.indexOf('"instances"'));
    expect(text.indexOf('"unconfirmed"')).toBeLessThan(text.indexOf('"log"'));
    expect(text.indexOf(`network=\\"n0\\"`)).toBeLessThan(text.indexOf(`network=\\"n1\\"`));
  });

  it('cut at every offset: exact entries only, never less for more text, all of it at the full length', () => {
    let before = -1;
    let logShare = 0;
    const logEnd = text.indexOf(',"pushed"');
    for (let cut = 0; cut <= text.length; cut++) {
      const s = salvageAlertState(text.slice(0, cut), T0 + 5);
      expect(problems(state, s, written), `offset ${cut}`).toEqual([]);
      expect(total(s), `offset ${cut}`).toBeGreaterThanOrEqual(before);
      before = total(s);
      if (cut >= logEnd) expect(s.recovered.log, `offset ${cut}`).toBe(20);
      if (cut >= logEnd) expect(s.unproved).toBe(0);
      logShare += s.recovered.log / 20;
    }
    const full = salvageAlertState(text);
    expect(full.recovered).toEqual({ unconfirmed: 4, log: 20, pushed: 6, instances: 12 });
    expect(full.complete).toEqual({ unconfirmed: true, log: true, pushed: true, instances: true });
    expect(describeSalvage(full)).toMatch(/nothing lost$/);
    // Over all cuts, the share of log entries kept (the figure in the report).
    expect(logShare / (text.length + 1)).toBeGreaterThan(0.5);
    console.info(
      `state file of ${text.length} chars cut at ${text.length + 1} offsets; mean share of the 20 log entries ` +
        `recovered: ${((100 * logShare) / (text.length + 1)).toFixed(1)}%; log complete for cuts past ${logEnd} ` +
        `(${((100 * logEnd) / text.length).toFixed(1)}% of the file)`,
    );
  });

  it('savedAt: from the file when whole, else from the mtime, else unknown (and said so)', () => {
    expect(salvageAlertState(text.slice(0, 60), 7).state.savedAt).toBe(T0);
    const cutInSavedAt = text.slice(0, text.indexOf(String(T0)) + 5);
    const s = salvageAlertState(cutInSavedAt, T0 + 99);
    expect([s.state.savedAt, s.savedAtFrom]).toEqual([T0 + 99, 'mtime']);
    const unknown = salvageAlertState(cutInSavedAt);
    expect([unknown.state.savedAt, unknown.savedAtFrom]).toEqual([undefined, 'unknown']);
    expect(describeSalvage(unknown)).toMatch(/saved at an unknown time.*the save time is unknown/);
  });

  it('one bad entry in an otherwise good file drops that entry alone', () => {
    const key = Object.keys(state.dispatcher.log)[3]!;
    const bad = JSON.parse(text) as { dispatcher: DispatcherState };
    (bad.dispatcher.log[key] as unknown as { at: string }).at = 'yesterday';
    const s = salvageAlertState(JSON.stringify(bad));
    expect(s.recovered).toEqual({ unconfirmed: 4, log: 19, pushed: 6, instances: 12 });
    expect(s.state.dispatcher.log[key]).toBeUndefined();
    expect(describeSalvage(s)).toMatch(/notification log entries after the cut are lost \(1 entry cut or invalid\)/);
  });

  it('an unconfirmed entry lost makes its log entry unproved: sent again', () => {
    const key = Object.keys(state.dispatcher.unconfirmed!)[1]!;
    const bad = JSON.parse(text) as { dispatcher: DispatcherState };
    (bad.dispatcher.unconfirmed![key] as unknown as { alerts: number }).alerts = 7;
    const s = salvageAlertState(JSON.stringify(bad));
    expect(s.state.dispatcher.unconfirmed?.[key]).toEqual({
      alerts: state.dispatcher.log[key]!.firing,
      at: state.dispatcher.log[key]!.at,
    });
    expect(s.unproved).toBe(1);
    expect(describeSalvage(s)).toMatch(/1 recovered log entry cannot be proved delivered/);
  });

  it('a file in the old order (instances first) cut after its log: every log entry counted unproved', () => {
    const { log, pushed, unconfirmed } = written.dispatcher;
    const old = JSON.stringify({
      version: 1,
      savedAt: T0,
      instances: written.instances,
      dispatcher: { log, pushed, unconfirmed },
    });
    const s = salvageAlertState(old.slice(0, old.indexOf('"unconfirmed"') - 1));
    expect(s.recovered.log).toBe(20);
    expect(s.unproved).toBe(20);
    expect(problems(state, s, written)).toEqual([]);
  });

  it('a file of another version recovers nothing and says so', () => {
    const s = salvageAlertState(text.replace('"version":1', '"version":2').slice(0, -10));
    expect(s.foreignVersion).toBe(2);
    expect(total(s)).toBe(0);
    expect(describeSalvage(s)).toMatch(/^version 2 is not one this exporter reads: nothing recovered/);
  });

  it('a group key "__proto__" is salvaged as an entry of its own, not as the record\'s prototype', () => {
    const log = JSON.parse('{"__proto__":{"firing":["a"],"resolved":[],"at":1}}') as DispatcherState['log'];
    const st: AlertState = { instances: [], dispatcher: { log, pushed: {}, unconfirmed: {} } };
    const text = serializeAlertState(st, T0);
    const s = salvageAlertState(text.slice(0, text.lastIndexOf('}')));
    expect(Object.getPrototypeOf(s.state.dispatcher.log)).toBe(Object.prototype);
    expect(Object.entries(s.state.dispatcher.log)).toEqual([['__proto__', { firing: ['a'], resolved: [], at: 1 }]]);
    expect(s.recovered.log).toBe(1);
  });

  it('random states cut at random offsets: exact entries only', () => {
    const id = fc.string({ minLength: 1, maxLength: 12 });
    const text16 = fc.string({ maxLength: 16, unit: 'binary' });
    const instance = fc.record({
      id,
      alertname: fc.string({ minLength: 1, maxLength: 20 }),
      labels: fc.dictionary(text16, text16, { maxKeys: 4 }),
      annotations: fc.dictionary(text16, text16, { maxKeys: 2 }),
      state: fc.constantFrom('pending' as const, 'firing' as const, 'resolved' as const),
      value: fc.double({ noNaN: true, noDefaultInfinity: true }),
      activeAt: fc.integer({ min: 1, max: 2 ** 45 }),
      firingSince: fc.option(fc.integer({ min: 1, max: 2 ** 45 }), { nil: undefined }),
    });
    const at = fc.integer({ min: 1, max: 2 ** 45 });
    const ids = fc.array(id, { maxLength: 4 });
    const stateArb = fc.record({
      instances: fc.array(instance, { maxLength: 8 }),
      dispatcher: fc.record({
        log: fc.dictionary(text16, fc.record({ firing: ids, resolved: ids, at }), { maxKeys: 8 }),
        pushed: fc.dictionary(
          text16,
          fc.record({ at, status: fc.constantFrom('firing' as const, 'resolved' as const) }),
        ),
        unconfirmed: fc.dictionary(text16, fc.record({ alerts: ids, at }), { maxKeys: 3 }),
      }),
    });
    fc.assert(
      fc.property(stateArb, fc.double({ min: 0, max: 1, noNaN: true }), (st, where) => {
        const s0 = st as unknown as AlertState;
        const t = serializeAlertState(s0, T0);
        const w = JSON.parse(t) as AlertState;
        const s = salvageAlertState(t.slice(0, Math.floor(where * t.length)));
        // Drop undefined fields as the file does before comparing.
        expect(problems(JSON.parse(JSON.stringify(s0)) as AlertState, s, w)).toEqual([]);
      }),
      { numRuns: 400 },
    );
  });
});
