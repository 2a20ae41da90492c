// The group stage with injected time: groupBy, groupWait, groupInterval, and resolved alerts
// leaving their group once told.
import { describe, expect, it } from 'vitest';
import { GroupStage } from '../../../src/alerting/notify/groupStage.js';
import { RouteStage } from '../../../src/alerting/notify/routeStage.js';
import { DEFAULT_TIMING, type RouteSpec } from '../../../src/alerting/notify/routing.js';
import { firing, M, resolved, S, T0 } from './stageAlerts.js';

function placer(routes: RouteSpec[] = [], deliver?: (node: string, routed: readonly string[]) => readonly string[]) {
  const stage = new RouteStage({
    routing: {
      ...DEFAULT_TIMING,
      groupWaitMs: 30 * S,
      groupIntervalMs: 5 * M,
      groupBy: ['alertname', 'network'],
      receivers: ['slack'],
      routes,
    },
    ...(deliver ? { deliver: (labels, routed) => deliver(labels.node ?? '', routed) } : {}),
  });
  return (labels: Record<string, string>) => stage.placeInGroup(labels);
}

const summary = (g: GroupStage, now: number) =>
  g.due(now).map((x) => [x.key, x.nextFlushAt - T0, [...x.alerts.values()].map((a) => `${a.labels.node}:${a.status}`)]);

describe('group stage', () => {
  it('puts alerts with the same groupBy labels in one group, due after groupWait and not before', () => {
    const g = new GroupStage();
    const place = placer();
    g.update([firing('a'), firing('b'), firing('c', { network: 'test' })], place, T0);
    expect(g.due(T0 + 29 * S)).toEqual([]);
    expect(g.nextFlushAt()).toBe(T0 + 30 * S);
    expect(summary(g, T0 + 30 * S)).toEqual([
      ['{}:{alertname="LedgerNodeDown",network="main"}', 30 * S, ['a:firing', 'b:firing']],
      ['{}:{alertname="LedgerNodeDown",network="test"}', 30 * S, ['c:firing']],
    ]);
  });

  it('an alert joining a waiting group keeps its timer; after a flush the group waits groupInterval', () => {
    const g = new GroupStage();
    const place = placer();
    g.update([firing('a')], place, T0);
    g.update([firing('a'), firing('b')], place, T0 + 20 * S);
    const [group] = g.due(T0 + 30 * S);
    expect(group!.alerts.size).toBe(2);
    g.flushed(group!, T0 + 30 * S);
    expect(g.nextFlushAt()).toBe(T0 + 30 * S + 5 * M);
    expect(g.due(T0 + 5 * M)).toEqual([]);
  });

  it('a resolved alert leaves at the flush that told of it and is not placed again while it stays resolved', () => {
    const g = new GroupStage();
    const place = placer();
    const a = firing('a');
    const gone = resolved(firing('b'), T0 + M);
    g.update([a, gone], place, T0);
    const [group] = g.due(T0 + 30 * S);
    g.flushed(group!, T0 + 30 * S);
    expect([...group!.alerts.values()].map((x) => x.labels.node)).toEqual(['a']);
    g.update([a, gone], place, T0 + M);
    expect([...g.due(T0 + 10 * M)[0]!.alerts.keys()]).toEqual([a.id]);
    // Its notice failed: retell() puts it back at the next update.
    g.retell(gone.id);
    g.update([a, gone], place, T0 + 2 * M);
    expect([...g.due(T0 + 10 * M)[0]!.alerts.keys()].sort()).toEqual([a.id, gone.id].sort());
  });

  it('a group whose alerts all resolved ends at its flush', () => {
    const g = new GroupStage();
    const place = placer();
    g.update([resolved(firing('a'), T0)], place, T0);
    g.flushed(g.due(T0 + 30 * S)[0]!, T0 + 30 * S);
    expect(g.nextFlushAt()).toBeUndefined();
    expect(g.due(T0 + 60 * M)).toEqual([]);
  });

  it('an alert no longer routed to a group leaves it (a reload moved it, or it is gone)', () => {
    const g = new GroupStage();
    g.update([firing('a'), firing('b')], placer(), T0);
    g.update(
      [firing('a'), firing('b')],
      placer([{ match: { node: 'b' }, receivers: ['pager'] }, { receivers: ['slack'] }]),
      T0 + S,
    );
    const keys = summary(g, T0 + 60 * M).map(([key, , nodes]) => [key, nodes]);
    expect(keys).toEqual([
      ['{}:{alertname="LedgerNodeDown",network="main"}', ['a:firing']],
      ['{node="b"}:{alertname="LedgerNodeDown",network="main"}', ['b:firing']],
    ]);
  });

  it('alerts whose delivery differs from their route form a group of their own, named by its receivers', () => {
    const g = new GroupStage();
    const place = placer([{ receivers: ['slack', 'pager'] }], (node, routed) => (node === 'x' ? ['pager'] : routed));
    g.update([firing('a'), firing('x')], place, T0);
    expect(summary(g, T0 + 30 * S).map(([key, , nodes]) => [key, nodes])).toEqual([
      ['{}:{alertname="LedgerNodeDown",network="main"}', ['a:firing']],
      ['{}:{alertname="LedgerNodeDown",network="main"}>pager', ['x:firing']],
    ]);
  });
});
