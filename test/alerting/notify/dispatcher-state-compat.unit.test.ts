// A state file written before the notification path was split into stages (the same format,
// version 1) loads into today's dispatcher and means what it meant: a confirmed page is not
// repeated early, an unconfirmed one is sent again, a push is not repeated inside its delay.
import { describe, expect, it } from 'vitest';
import { NotificationDispatcher } from '../../../src/alerting/notify/dispatcher.js';
import { DEFAULT_TIMING } from '../../../src/alerting/notify/routing.js';
import { parseAlertState, serializeAlertState } from '../../../src/alerting/notify/stateFile.js';
import { firing, H, M, S, T0 } from './stageAlerts.js';

const paged = firing('a');
const lost = firing('b', { network: 'test' });
const GROUP_MAIN = '{}:{alertname="LedgerNodeDown",network="main"}';
const GROUP_TEST = '{}:{alertname="LedgerNodeDown",network="test"}';

/** alerts.json as the dispatcher of one class wrote it (keys: receiver NUL group key / alert id). */
const OLD_FILE = JSON.stringify({
  version: 1,
  savedAt: T0 + M,
  dispatcher: {
    unconfirmed: { [`slack\u0000${GROUP_TEST}`]: { alerts: [lost.id], at: T0 + M } },
    log: {
      [`slack\u0000${GROUP_TEST}`]: { firing: [lost.id], resolved: [], at: T0 + M },
      [`slack\u0000${GROUP_MAIN}`]: { firing: [paged.id], resolved: [], at: T0 },
    },
    pushed: { [`am\u0000${paged.id}`]: { at: T0 + M, status: 'firing' } },
  },
  instances: [paged, lost],
});

function dispatcher() {
  return new NotificationDispatcher({
    routing: {
      ...DEFAULT_TIMING,
      groupWaitMs: 0,
      groupIntervalMs: M,
      groupBy: ['alertname', 'network'],
      routes: [],
      receivers: ['slack', 'am'],
    },
    pushReceivers: new Set(['am']),
  });
}

describe('state written before the stages', () => {
  it('loads: the confirmed page is not repeated early, the unconfirmed one is resent, the push waits', () => {
    const state = parseAlertState(OLD_FILE);
    const d = dispatcher();
    d.importState(state.dispatcher);
    d.update(state.instances, T0 + M + 10 * S);
    const sent = d.tick(T0 + M + 10 * S).map((n) => [n.receiver, n.groupKey, n.alerts.map((a) => a.id)]);
    // a's push (a minute ago) waits for its resend delay; b was never pushed.
    expect(sent).toEqual([
      ['slack', GROUP_TEST, [lost.id]],
      ['am', 'push', [lost.id]],
    ]);
    expect(d.lastNotifiedAt(paged)).toBe(T0 + M); // the push, the newest confirmed
    // Next: a's push, a resend delay (1 min) after the saved one, before the groups' next flush.
    expect(d.nextDueAt(T0 + M + 10 * S)).toBe(T0 + 2 * M);
    // The first page repeats at repeatInterval from when it was sent; the resent one not yet.
    d.update(state.instances, T0 + 4 * H);
    const later = d.tick(T0 + 4 * H).filter((n) => n.receiver === 'slack');
    expect(later.map((n) => n.groupKey)).toEqual([GROUP_MAIN]);
  });

  it('is written back in the same format', () => {
    const d = dispatcher();
    d.importState(parseAlertState(OLD_FILE).dispatcher);
    const again = JSON.parse(serializeAlertState({ instances: [], dispatcher: d.exportState() }, T0 + 2 * M)) as {
      dispatcher: Record<string, unknown>;
    };
    expect(Object.keys(again.dispatcher)).toEqual(['unconfirmed', 'log', 'pushed']);
    expect(again.dispatcher.log).toEqual({
      [`slack\u0000${GROUP_TEST}`]: { firing: [lost.id], resolved: [], at: 0 },
      [`slack\u0000${GROUP_MAIN}`]: { firing: [paged.id], resolved: [], at: T0 },
    });
    expect(again.dispatcher.pushed).toEqual({ [`am\u0000${paged.id}`]: { at: T0 + M, status: 'firing' } });
  });
});
