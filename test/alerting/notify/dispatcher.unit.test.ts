// The notification dispatcher with a fake clock: Alertmanager's grouping and timing, routes,
// silences and the Prometheus-style push to Alertmanager receivers.
import { describe, expect, it } from 'vitest';
import { NotificationDispatcher, type DispatcherOptions } from '../../../src/alerting/notify/dispatcher.js';
import type { AlertInstance } from '../../../src/alerting/rules/instance.js';
import { fingerprint } from '../../../src/alerting/rules/labels.js';
import type { Notification } from '../../../src/alerting/notify/notification.js';
import { DEFAULT_TIMING, type RouteSpec } from '../../../src/alerting/notify/routing.js';

const S = 1000;
const M = 60 * S;
const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);

function alert(
  alertname: string,
  labels: Record<string, string>,
  state: AlertInstance['state'] = 'firing',
  at = T0,
): AlertInstance {
  const all = { alertname, severity: 'critical', ...labels };
  return {
    id: fingerprint(all),
    alertname,
    labels: all,
    annotations: { summary: `${alertname} ${labels.node ?? ''}` },
    state,
    value: 0,
    activeAt: at - M,
    firingSince: state === 'pending' ? undefined : at,
    ...(state === 'resolved' ? { resolvedAt: at } : {}),
  };
}

const resolve = (a: AlertInstance, at: number): AlertInstance => ({ ...a, state: 'resolved', resolvedAt: at });

function dispatcher(over: Partial<DispatcherOptions['routing']> = {}, extra: Partial<DispatcherOptions> = {}) {
  return new NotificationDispatcher({
    routing: { ...DEFAULT_TIMING, groupBy: ['alertname', 'network'], routes: [], receivers: ['slack'], ...over },
    ...extra,
  });
}

/** Ticks every second from `from` to `to`, collecting notifications. */
function ticks(d: NotificationDispatcher, from: number, to: number, step = S): Array<Notification & { at: number }> {
  const out: Array<Notification & { at: number }> = [];
  for (let t = from; t <= to; t += step) out.push(...d.tick(t).map((n) => ({ ...n, at: t })));
  return out;
}

describe('grouping (Alertmanager semantics)', () => {
  it('50 nodes down are ONE notification per group after groupWait, listing every node', () => {
    const d = dispatcher();
    const down = Array.from({ length: 50 }, (_, i) => alert('LedgerNodeDown', { node: `n${i}`, network: 'main' }));
    const other = alert('LedgerNodeDown', { node: 'x', network: 'test' });
    d.update([...down, other], T0);
    expect(ticks(d, T0, T0 + 29 * S)).toEqual([]);
    const sent = ticks(d, T0 + 30 * S, T0 + 60 * S);
    expect(sent.map((n) => [n.receiver, n.groupLabels.network, n.alerts.length, n.at])).toEqual([
      ['slack', 'main', 50, T0 + 30 * S],
      ['slack', 'test', 1, T0 + 30 * S],
    ]);
    expect(new Set(sent[0]!.alerts.map((a) => a.labels.node)).size).toBe(50);
  });

  it('changes wait for groupInterval, nothing repeats before repeatInterval, resolved is sent once', () => {
    const d = dispatcher({ groupIntervalMs: 5 * M, repeatIntervalMs: 4 * 3600 * S });
    const a = alert('LedgerNodeDown', { node: 'a', network: 'main' });
    const b = alert('LedgerNodeDown', { node: 'b', network: 'main' }, 'firing', T0 + M);
    d.update([a], T0);
    expect(ticks(d, T0, T0 + M - S).map((n) => n.at)).toEqual([T0 + 30 * S]);
    d.update([a, b], T0 + M);
    // b joins an already notified group: sent at the next group interval (30 s + 5 min).
    const second = ticks(d, T0 + M, T0 + 6 * M);
    expect(second.map((n) => [n.at, n.alerts.map((x) => x.labels.node)])).toEqual([[T0 + 30 * S + 5 * M, ['a', 'b']]]);
    // Unchanged: silent until the repeat interval.
    expect(ticks(d, T0 + 6 * M, T0 + 4 * 3600 * S, 30 * S).map((n) => n.at)).toEqual([]);
    expect(ticks(d, T0 + 4 * 3600 * S + 30 * S, T0 + 4 * 3600 * S + 6 * M, 30 * S).map((n) => n.at)).toEqual([
      T0 + 30 * S + 4 * 3600 * S + 5 * M,
    ]);
    // Both resolve: one resolved notification, then nothing more.
    const t = T0 + 5 * 3600 * S;
    d.update([resolve(a, t), resolve(b, t)], t);
    const done = ticks(d, t, t + 20 * M, 30 * S);
    expect(done.map((n) => [n.status, n.alerts.map((x) => `${x.labels.node}:${x.status}`)])).toEqual([
      ['resolved', ['a:resolved', 'b:resolved']],
    ]);
    d.update([resolve(a, t), resolve(b, t)], t + 21 * M);
    expect(ticks(d, t + 21 * M, t + 40 * M, 30 * S)).toEqual([]);
    expect(d.nextDueAt(t + 40 * M)).toBeUndefined();
  });

  it('sendResolved: false notifies nothing on resolution, and a new firing after it is sent again', () => {
    const d = dispatcher({ sendResolved: false, groupWaitMs: 0, groupIntervalMs: M });
    const a = alert('LedgerNodeDown', { node: 'a', network: 'main' });
    d.update([a], T0);
    expect(ticks(d, T0, T0).length).toBe(1);
    d.update([resolve(a, T0 + 10 * S)], T0 + 10 * S);
    expect(ticks(d, T0 + 10 * S, T0 + 5 * M, 10 * S)).toEqual([]);
    d.update([alert('LedgerNodeDown', { node: 'a', network: 'main' }, 'firing', T0 + 6 * M)], T0 + 6 * M);
    expect(ticks(d, T0 + 6 * M, T0 + 7 * M, 10 * S).map((n) => n.status)).toEqual(['firing']);
  });

  it('pending alerts are never notified; an alert fired and resolved inside groupWait sends nothing', () => {
    const d = dispatcher();
    const a = alert('LedgerNodeDown', { node: 'a', network: 'main' });
    d.update([{ ...a, state: 'pending', firingSince: undefined }], T0);
    expect(d.nextDueAt(T0)).toBeUndefined();
    d.update([a], T0);
    d.update([resolve(a, T0 + 10 * S)], T0 + 10 * S);
    expect(ticks(d, T0, T0 + 2 * M)).toEqual([]);
  });
});

describe('routes', () => {
  const routes: RouteSpec[] = [
    { match: { severity: 'critical', network: '~main|prod' }, receivers: ['pager', 'slack'], groupWaitMs: 0 },
    { match: { network: 'test' }, receivers: [] },
    { receivers: ['slack'], repeatIntervalMs: 12 * 3600 * S },
  ];

  it('first match wins, anchored regex, empty receivers drop, per-route timing', () => {
    const d = dispatcher({ routes, receivers: ['pager', 'slack'] });
    d.update(
      [
        alert('LedgerNodeDown', { node: 'a', network: 'main' }),
        alert('LedgerNodeDown', { node: 'b', network: 'mainnet' }), // ~main|prod is anchored: no match
        alert('LedgerNodeDown', { node: 'c', network: 'test' }),
        {
          ...alert('LedgerNodeLowPeers', { node: 'd', network: 'main' }),
          labels: { alertname: 'LedgerNodeLowPeers', severity: 'warning', node: 'd', network: 'main' },
        },
      ],
      T0,
    );
    const now = ticks(d, T0, T0).map((n) => `${n.receiver}:${n.alerts.map((a) => a.labels.node).join()}`);
    expect(now).toEqual(['pager:a', 'slack:a']);
    const later = ticks(d, T0 + S, T0 + 30 * S).map(
      (n) => `${n.receiver}:${n.alerts.map((a) => a.labels.node).join()}`,
    );
    expect(later.sort()).toEqual(['slack:b', 'slack:d']);
  });
});

describe('silences (maintenance hook)', () => {
  it("silenced: not sent; still firing at the window's end: sent once as new; resolved inside: nothing", () => {
    let windowOpen = true;
    const d = dispatcher(
      { groupWaitMs: 10 * S, groupIntervalMs: M },
      { isSilenced: (l) => (windowOpen && l.network === 'test' ? 'weekly' : undefined) },
    );
    const stays = alert('LedgerNodeDown', { node: 'a', network: 'test' });
    const heals = alert('LedgerNodeUnhealthy', { node: 'b', network: 'test' });
    d.update([stays, heals], T0);
    expect(d.silencedBy(stays.labels, T0)).toBe('weekly');
    expect(ticks(d, T0, T0 + 5 * M, 10 * S)).toEqual([]);
    d.update([stays, resolve(heals, T0 + 6 * M)], T0 + 6 * M);
    expect(ticks(d, T0 + 6 * M, T0 + 10 * M, 10 * S)).toEqual([]);
    windowOpen = false;
    d.update([stays], T0 + 11 * M);
    const after = ticks(d, T0 + 11 * M, T0 + 20 * M, 10 * S);
    expect(after.map((n) => [n.alerts.map((a) => a.labels.alertname), n.status])).toEqual([
      [['LedgerNodeDown'], 'firing'],
    ]);
  });
});

describe('push receivers (Prometheus -> Alertmanager)', () => {
  it('pushes firing alerts every minute and resolved ones for 15 minutes, bypassing grouping', () => {
    const d = dispatcher({ receivers: ['am'] }, { pushReceivers: new Set(['am']) });
    const a = alert('LedgerNodeDown', { node: 'a', network: 'main' });
    d.update([a], T0);
    const firing = ticks(d, T0, T0 + 3 * M - S, 15 * S);
    expect(firing.map((n) => (n.at - T0) / S)).toEqual([0, 60, 120]);
    expect(firing.every((n) => n.receiver === 'am' && n.alerts[0]!.status === 'firing')).toBe(true);
    const t = T0 + 3 * M;
    d.update([resolve(a, t)], t);
    const resolved = ticks(d, t, t + 20 * M, 15 * S);
    expect(resolved.length).toBe(15);
    expect(resolved.every((n) => n.alerts[0]!.status === 'resolved' && n.alerts[0]!.endsAt === t)).toBe(true);
  });

  it('state survives a restart: no repeat inside the interval, a failed send is retried', () => {
    const d = dispatcher({ groupWaitMs: 0 });
    const a = alert('LedgerNodeDown', { node: 'a', network: 'main' });
    d.update([a], T0);
    const [first] = ticks(d, T0, T0);
    d.noteDelivered(first!);
    const saved = structuredClone(d.exportState());
    const again = dispatcher({ groupWaitMs: 0 });
    again.importState(saved);
    again.update([a], T0 + M);
    expect(ticks(again, T0 + M, T0 + 2 * 3600 * S, M)).toEqual([]);
    expect(again.lastNotifiedAt(a)).toBe(T0);
    again.noteFailed(first!);
    expect(ticks(again, T0 + 2 * 3600 * S + M, T0 + 2 * 3600 * S + 10 * M, M).length).toBe(1);
  });

  it('a resolved notification that failed (or was cut short at shutdown) is sent again, also after a restart', () => {
    const d = dispatcher({ groupWaitMs: 0, groupIntervalMs: M });
    const a = alert('LedgerNodeDown', { node: 'a', network: 'main' });
    d.update([a], T0);
    const told = ticks(d, T0, T0);
    expect(told.map((n) => n.status)).toEqual(['firing']);
    d.noteDelivered(told[0]!);
    const gone = resolve(a, T0 + M);
    d.update([gone], T0 + M);
    const [lost] = ticks(d, T0 + M, T0 + M);
    expect(lost!.status).toBe('resolved');
    d.noteFailed(lost!);
    // In the same process, at the next flush...
    d.update([gone], T0 + 2 * M);
    expect(ticks(d, T0 + 2 * M, T0 + 3 * M).map((n) => n.status)).toEqual(['resolved']);
    // ...and after a restart from the state saved right after the failure.
    const before = dispatcher({ groupWaitMs: 0, groupIntervalMs: M });
    before.update([a], T0);
    before.noteDelivered(ticks(before, T0, T0)[0]!);
    before.update([gone], T0 + M);
    before.noteFailed(ticks(before, T0 + M, T0 + M)[0]!);
    const restarted = dispatcher({ groupWaitMs: 0, groupIntervalMs: M });
    restarted.importState(structuredClone(before.exportState()));
    restarted.update([gone], T0 + 2 * M);
    const resent = ticks(restarted, T0 + 2 * M, T0 + 3 * M);
    expect(resent.map((n) => [n.status, n.alerts.map((x) => x.status)])).toEqual([['resolved', ['resolved']]]);
    restarted.update([gone], T0 + 4 * M);
    expect(ticks(restarted, T0 + 4 * M, T0 + 10 * M)).toEqual([]);
  });
});

describe('what each receiver was told', () => {
  const critical: RouteSpec = { match: { severity: 'critical' }, receivers: ['pager'] };
  const H = 3600 * S;

  it('a reload adding a route above keeps the group; one moving it stops the old receiver', () => {
    const d = dispatcher({
      groupWaitMs: 0,
      groupIntervalMs: M,
      repeatIntervalMs: 4 * H,
      routes: [critical],
      receivers: ['pager', 'slack'],
    });
    const a = alert('LedgerNodeDown', { node: 'a', network: 'main' });
    d.update([a], T0);
    const [paged] = ticks(d, T0, T0);
    expect(paged!.groupKey).toBe('{severity="critical"}:{alertname="LedgerNodeDown",network="main"}');
    d.noteDelivered(paged!);
    // A drop route inserted above: same group, same key (PagerDuty's dedup_key), nothing new.
    const withDrop = {
      ...DEFAULT_TIMING,
      groupWaitMs: 0,
      groupIntervalMs: M,
      repeatIntervalMs: 4 * H,
      groupBy: ['alertname', 'network'],
      receivers: ['pager', 'slack'],
    };
    d.configure({ routing: { ...withDrop, routes: [{ match: { network: 'test' }, receivers: [] }, critical] } });
    d.update([a], T0 + M);
    const reminded = ticks(d, T0 + M, T0 + 5 * H, M);
    expect(reminded.map((n) => [n.receiver, n.groupKey, n.at - T0])).toEqual([['pager', paged!.groupKey, 4 * H]]);
    // The critical route now pages Slack instead: Slack is told at the group's next flush, the
    // pager never again.
    d.configure({ routing: { ...withDrop, routes: [{ match: { severity: 'critical' }, receivers: ['slack'] }] } });
    const t = T0 + 5 * H;
    d.update([a], t);
    const after = ticks(d, t, t + 10 * H, M);
    expect(after.filter((n) => n.receiver === 'pager')).toEqual([]);
    expect(after.filter((n) => n.receiver === 'slack').map((n) => [n.status, n.at - t])).toEqual([
      ['firing', M],
      ['firing', 4 * H + M],
      ['firing', 8 * H + M],
    ]);
  });

  it('a notification never confirmed (kill -9 while queued or in flight) is sent again after restart', () => {
    const d = dispatcher({ groupWaitMs: 0, groupIntervalMs: M });
    const a = alert('LedgerNodeDown', { node: 'a', network: 'main' });
    d.update([a], T0);
    const [lost] = ticks(d, T0, T0);
    const restarted = dispatcher({ groupWaitMs: 0, groupIntervalMs: M });
    restarted.importState(structuredClone(d.exportState()));
    restarted.update([a], T0 + 10 * S);
    const again = ticks(restarted, T0 + 10 * S, T0 + 2 * M);
    expect(again.map((n) => [n.groupKey, n.status, n.alerts.map((x) => x.id)])).toEqual([
      [lost!.groupKey, 'firing', [a.id]],
    ]);
    // The same for a resolve: confirmed firing, then the resolve is lost to a kill.
    restarted.noteDelivered(again[0]!);
    const gone = resolve(a, T0 + 3 * M);
    restarted.update([gone], T0 + 3 * M);
    const [lostResolve] = ticks(restarted, T0 + 3 * M, T0 + 3 * M);
    expect(lostResolve!.status).toBe('resolved');
    const third = dispatcher({ groupWaitMs: 0, groupIntervalMs: M });
    third.importState(structuredClone(restarted.exportState()));
    third.update([gone], T0 + 4 * M);
    const resent = ticks(third, T0 + 4 * M, T0 + 6 * M);
    expect(resent.map((n) => [n.status, n.alerts.map((x) => x.status)])).toEqual([['resolved', ['resolved']]]);
    third.noteDelivered(resent[0]!);
    const fourth = dispatcher({ groupWaitMs: 0, groupIntervalMs: M });
    fourth.importState(structuredClone(third.exportState()));
    fourth.update([gone], T0 + 7 * M);
    expect(ticks(fourth, T0 + 7 * M, T0 + 20 * M)).toEqual([]);
  });

  it('a window mutes reminders of an alert already paged, but sends its resolve so the incident closes', () => {
    let windowOpen = false;
    const d = dispatcher(
      { groupWaitMs: 0, groupIntervalMs: M, repeatIntervalMs: H },
      { isSilenced: () => (windowOpen ? 'upgrade' : undefined) },
    );
    const a = alert('LedgerNodeDown', { node: 'a', network: 'main' });
    d.update([a], T0);
    d.noteDelivered(ticks(d, T0, T0)[0]!);
    windowOpen = true;
    d.update([a], T0 + M);
    expect(ticks(d, T0 + M, T0 + 3 * H, M)).toEqual([]);
    const t = T0 + 3 * H;
    d.update([resolve(a, t)], t);
    const closed = ticks(d, t, t + 10 * M, M);
    expect(closed.map((n) => [n.status, n.alerts.map((x) => `${x.labels.node}:${x.status}`)])).toEqual([
      ['resolved', ['a:resolved']],
    ]);
  });

  it("a state keyed by route position is read in today's keys: no second page after an upgrade", () => {
    const routing = {
      groupWaitMs: 0,
      groupIntervalMs: M,
      routes: [{ match: { network: 'test' }, receivers: [] }, critical],
      receivers: ['pager'],
    };
    const a = alert('LedgerNodeDown', { node: 'a', network: 'main' });
    const d = dispatcher(routing);
    d.importState({
      log: { 'pager\u00001:{alertname="LedgerNodeDown",network="main"}': { firing: [a.id], resolved: [], at: T0 } },
      pushed: {},
    });
    d.update([a], T0 + M);
    expect(ticks(d, T0 + M, T0 + 3 * H, M)).toEqual([]);
    expect(Object.keys(d.exportState().log)).toEqual([
      'pager\u0000{severity="critical"}:{alertname="LedgerNodeDown",network="main"}',
    ]);
    expect(d.lastNotifiedAt(a)).toBe(T0);
  });

  it('lastNotifiedAt counts confirmed deliveries only (never 1970 after a failure)', () => {
    const d = dispatcher({ groupWaitMs: 0 });
    const a = alert('LedgerNodeDown', { node: 'a', network: 'main' });
    d.update([a], T0);
    const [n] = ticks(d, T0, T0);
    expect(d.lastNotifiedAt(a)).toBeUndefined();
    d.noteFailed(n!);
    expect(d.lastNotifiedAt(a)).toBeUndefined();
    d.update([a], T0 + 5 * M);
    const [retry] = ticks(d, T0 + 5 * M, T0 + 6 * M);
    d.noteDelivered(retry!);
    expect(d.lastNotifiedAt(a)).toBe(retry!.createdAt);
  });
});
