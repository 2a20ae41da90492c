// The route stage: route and receivers of an alert, the delivery rule's say, push receivers apart.
import { describe, expect, it } from 'vitest';
import { RouteStage } from '../../../src/alerting/notify/routeStage.js';
import { DEFAULT_TIMING, type RoutingSpec } from '../../../src/alerting/notify/routing.js';

const routing: RoutingSpec = {
  ...DEFAULT_TIMING,
  groupBy: ['alertname'],
  receivers: ['pager', 'slack', 'am'],
  routes: [
    { match: { severity: 'critical' }, receivers: ['pager', 'am'], groupWaitMs: 0 },
    { match: { network: 'test' }, receivers: [] },
    { match: { severity: 'info' }, receivers: ['am'] },
    { receivers: ['slack'] },
  ],
};

describe('route stage', () => {
  const stage = new RouteStage({ routing, pushReceivers: new Set(['am']) });

  it('places an alert by the first matching route, with that route timing and receivers', () => {
    const p = stage.place({ severity: 'critical', network: 'test' });
    expect(p?.route.index).toBe(0);
    expect(p?.route.groupWaitMs).toBe(0);
    expect(p?.receivers).toEqual(['pager', 'am']);
    expect(stage.place({ severity: 'warning', network: 'test' })?.receivers).toEqual([]);
    expect(stage.place({ severity: 'warning' })?.receivers).toEqual(['slack']);
  });

  it('leaves out of groups an alert no group receiver takes (no route, only push receivers, none)', () => {
    expect(stage.placeInGroup({ severity: 'critical' })?.receivers).toEqual(['pager', 'am']);
    expect(stage.placeInGroup({ severity: 'info' })).toBeUndefined();
    expect(stage.placeInGroup({ severity: 'warning', network: 'test' })).toBeUndefined();
    const none = new RouteStage({ routing: { ...routing, routes: [{ match: { a: 'b' }, receivers: ['x'] }] } });
    expect(none.place({ a: 'c' })).toBeUndefined();
  });

  it("lets the delivery rule change an alert's receivers, and answers routedTo by them", () => {
    const narrowed = new RouteStage({
      routing,
      pushReceivers: new Set(['am']),
      deliver: (labels, routed) => (labels.node === 'quiet' ? routed.filter((r) => r !== 'pager') : routed),
    });
    expect(narrowed.place({ severity: 'critical', node: 'quiet' })?.receivers).toEqual(['am']);
    expect(narrowed.placeInGroup({ severity: 'critical', node: 'quiet' })).toBeUndefined();
    expect(narrowed.routedTo({ severity: 'critical', node: 'quiet' }, 'pager')).toBe(false);
    expect(narrowed.routedTo({ severity: 'critical', node: 'loud' }, 'pager')).toBe(true);
    expect([...narrowed.pushReceivers()]).toEqual(['am']);
    expect(narrowed.isPush('am')).toBe(true);
    expect(narrowed.isPush('pager')).toBe(false);
  });

  it('reads a group key saved by route position in the form of today', () => {
    expect(stage.currentKey('1:{alertname="X"}')).toBe('{network="test"}:{alertname="X"}');
    expect(stage.currentKey('{severity="critical"}:{}')).toBe('{severity="critical"}:{}');
  });
});
