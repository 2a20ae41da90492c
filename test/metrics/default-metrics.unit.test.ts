// The exporter's process_* and nodejs_* metrics come from src/deps/promClient.ts, which counts
// process_cpu_* itself instead of loading prom-client's module for them (it requires
// @opentelemetry/api): the families are those of prom-client's own collectDefaultMetrics, in the
// same order with the same help and types, and the CPU counters count this process's CPU time.
import * as prom from 'prom-client';
import { describe, expect, it } from 'vitest';
import { collectDefaultMetrics, Registry } from '../../src/deps/promClient.js';

const families = async (r: prom.Registry) =>
  (await r.getMetricsAsJSON()).map((m) => ({ name: m.name, help: m.help, type: m.type }));

describe('collectDefaultMetrics of src/deps/promClient.ts', () => {
  it("registers prom-client's default families, in its order, with its help and types", async () => {
    const ours = new Registry();
    collectDefaultMetrics({ register: ours, eventLoopMonitoringPrecision: 100 });
    const theirs = new prom.Registry();
    prom.collectDefaultMetrics({ register: theirs, eventLoopMonitoringPrecision: 100 });
    expect((await families(ours)).map((f) => f.name)).toContain('process_cpu_seconds_total');
    expect(await families(ours)).toEqual(await families(theirs));
  });

  it('counts user, system and total CPU seconds of the process', async () => {
    const r = new Registry();
    collectDefaultMetrics({ register: r, prefix: 'p_' });
    const read = async () => {
      const text = await r.metrics();
      const value = (name: string) => Number(new RegExp(`^p_${name} (\\S+)$`, 'm').exec(text)?.[1]);
      return { user: value('process_cpu_user_seconds_total'), total: value('process_cpu_seconds_total'), text };
    };
    const first = await read();
    const until = process.cpuUsage().user + 50_000;
    while (process.cpuUsage().user < until) Math.sqrt(Math.random());
    const second = await read();
    expect(second.user - first.user).toBeGreaterThanOrEqual(0.05);
    expect(second.total).toBeGreaterThanOrEqual(second.user);
    expect(second.text).toContain('# TYPE p_process_cpu_system_seconds_total counter');
  });

  it("refuses a config that is not an object, as prom-client's does", () => {
    expect(() => collectDefaultMetrics('x' as never)).toThrow('config must be null, undefined, or an object');
  });
});
