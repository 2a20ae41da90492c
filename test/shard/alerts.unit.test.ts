// The built-in engine of a shard keeps node- and exporter-scoped alerts and leaves the
// network-scoped ones (which need the whole network) to the Prometheus rules.
import { describe, expect, it } from 'vitest';
import { ALERT_DEFINITIONS } from '../../src/alerting/rules/definitions/index.js';
import { alertsForShard } from '../../src/shard/index.js';

describe('alertsForShard', () => {
  it('keeps every alert when not sharded', () => {
    const r = alertsForShard(ALERT_DEFINITIONS, { shard: 0, totalShards: 1 });
    expect(r.engine).toEqual(ALERT_DEFINITIONS);
    expect(r.leftToPrometheus).toEqual([]);
  });

  it('leaves the network-scoped alerts to Prometheus in a shard, and keeps node and exporter alerts', () => {
    const r = alertsForShard(ALERT_DEFINITIONS, { shard: 1, totalShards: 3 });
    const network = ALERT_DEFINITIONS.filter((d) => d.scope === 'network' && d.evaluate).map((d) => d.name);
    expect(network).toContain('LedgerFleetDegraded');
    expect(r.leftToPrometheus.sort()).toEqual([...network, 'LedgerNodeBehindFleet'].sort());
    expect(r.engine.map((d) => d.name)).toContain('LedgerNodeDown');
    expect(r.engine.map((d) => d.name)).not.toContain('LedgerNodeBehindFleet');
    expect(r.engine.some((d) => d.scope === 'network' && d.evaluate)).toBe(false);
    expect(r.engine.length + r.leftToPrometheus.length).toBe(ALERT_DEFINITIONS.length);
  });
});
