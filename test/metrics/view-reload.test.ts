// Config reloads reuse the one metrics view: prom-client's default metrics (a GC observer and an
// event-loop monitor per call, never stopped) are collected once per process, not per reload.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ExporterConfig } from '../../src/config/exporterConfig.js';
import { startDaemon, type Daemon } from '../../src/daemon/index.js';
import { createLogger } from '../../src/logger.js';
import { target } from '../support/targets.js';

const calls = vi.hoisted(() => ({ collectDefaultMetrics: 0 }));
// The exporter takes prom-client's parts from src/deps/promClient.ts.
vi.mock('../../src/deps/promClient.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/deps/promClient.js')>();
  return {
    ...real,
    collectDefaultMetrics: (...args: Parameters<typeof real.collectDefaultMetrics>) => {
      calls.collectDefaultMetrics++;
      return real.collectDefaultMetrics(...args);
    },
  };
});

function config(role: string): ExporterConfig {
  return {
    listen: { host: '127.0.0.1', port: 0 },
    polling: { concurrency: 4, maxResponseBytes: 1 << 20, maxUpstreamSeries: 100 },
    // Port 1 refuses: the probes fail fast, which is all this test needs.
    nodes: [target('a', { intervalMs: 60_000, labels: { [role]: 'x' } })],
    networks: {},
    evidence: { dir: '/nonexistent', maxBytes: 1 << 20, maxAgeDays: 1 },
  };
}

let daemon: Daemon;
beforeAll(async () => {
  daemon = await startDaemon(config('role0'), { logger: createLogger({ level: 'silent' }), evidence: false });
});
afterAll(async () => {
  await daemon?.close(0);
});

describe('metrics view across reloads', () => {
  it('keeps one view and one set of process metrics over 500 reloads; info label keys follow the config', async () => {
    const view = daemon.metricsView();
    const first = (await view.render('text')).body.toString();
    expect(first).toContain('role0="x"');
    const afterStart = calls.collectDefaultMetrics;
    expect(afterStart).toBeGreaterThanOrEqual(1);
    expect(afterStart).toBeLessThanOrEqual(2); // one registry per format

    for (let i = 1; i <= 500; i++) daemon.applyConfig(config(`role${i}`));

    expect(daemon.metricsView()).toBe(view);
    const text = (await view.render('text')).body.toString();
    const om = (await view.render('openmetrics')).body.toString();
    expect(calls.collectDefaultMetrics).toBe(afterStart === 1 ? 2 : afterStart);
    expect(text).toContain('role500="x"');
    expect(text).not.toContain('role499=');
    expect(text).toContain('ledger_exporter_config_reloads_total{result="success"} 500');
    for (const body of [text, om]) {
      expect(body.match(/^# TYPE process_cpu_user_seconds(_total)? /gm)).toHaveLength(1);
      expect(body.match(/^# TYPE nodejs_gc_duration_seconds /gm)).toHaveLength(1);
    }
    expect(om.endsWith('# EOF\n')).toBe(true);
    expect(om.match(/^# EOF$/gm)).toHaveLength(1);
  });
});
