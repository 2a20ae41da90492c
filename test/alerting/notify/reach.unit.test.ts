// notify-test --node: the receivers a critical alert for a node reaches, by the real routes.
import { describe, expect, it } from 'vitest';
import { describeReach, nodeAlertReach } from '../../../src/alerting/notify/notifyReach.js';
import { DEFAULT_TIMING, type RoutingSpec } from '../../../src/alerting/notify/routing.js';

const receivers = [
  { name: 'am', kind: 'alertmanager' },
  { name: 'slack', kind: 'slack' },
  { name: 'pager', kind: 'pagerduty' },
];
const routing: RoutingSpec = {
  ...DEFAULT_TIMING,
  groupBy: ['alertname', 'network'],
  receivers: receivers.map((r) => r.name),
  routes: [
    { match: { network: 'testnet' }, receivers: [] },
    { match: { severity: 'critical', node: '~val-eu-.*' }, receivers: ['pager', 'slack'] },
    { receivers: ['slack', 'am'] },
  ],
};

describe('nodeAlertReach', () => {
  it('follows the first matching route', () => {
    const eu = nodeAlertReach({ name: 'val-eu-1', network: 'mainnet' }, routing, receivers);
    expect(eu).toEqual({
      labels: { alertname: 'LedgerNodeDown', severity: 'critical', node: 'val-eu-1', network: 'mainnet' },
      route: 1,
      receivers: ['slack', 'pager'],
    });
    expect(describeReach(eu)).toBe('node val-eu-1 (mainnet): critical alerts reach slack, pager (route #2)');
    expect(nodeAlertReach({ name: 'val-us-1', network: 'mainnet' }, routing, receivers).receivers).toEqual([
      'am',
      'slack',
    ]);
    const test = nodeAlertReach({ name: 'val-eu-1', network: 'testnet' }, routing, receivers);
    expect(describeReach(test)).toBe('node val-eu-1 (testnet): critical alerts reach no receiver (route #1)');
  });

  it('no routes: every receiver; a route that does not match: none; a window names itself', () => {
    expect(nodeAlertReach({ name: 'a', network: 'n' }, { ...routing, routes: [] }, receivers).receivers).toEqual([
      'am',
      'slack',
      'pager',
    ]);
    const none = nodeAlertReach(
      { name: 'a', network: 'n' },
      { ...routing, routes: [{ match: { network: 'x' }, receivers: ['am'] }] },
      receivers,
    );
    expect(describeReach(none)).toBe('node a (n): critical alerts reach no receiver (no route matches)');
    const silenced = nodeAlertReach({ name: 'a', network: 'n' }, { ...routing, routes: [] }, receivers, (l) =>
      l.node === 'a' ? 'disk-swap' : undefined,
    );
    expect(describeReach(silenced)).toBe(
      'node a (n): critical alerts reach am, slack, pager (route #1); silenced now by maintenance window disk-swap',
    );
  });
});
