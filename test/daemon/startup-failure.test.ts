// A start-up that cannot finish never leaves a half-started exporter: a deeply nested damaged
// alerts.json is salvaged (bounded) and the daemon starts whole (alerting evaluates, the file is
// set aside, SIGTERM stops it); a component whose start fails stops everything already started
// (the listener, polling) before the error reaches the caller.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimFleet } from '../../src/sim/index.js';
import { startDaemon } from '../../src/daemon/index.js';
import type { DaemonComponent } from '../../src/daemon/component.js';
import { createLogger } from '../../src/logger.js';
import { jsonLines, requireBuiltCli, startDaemonProcess } from '../support/cliProcess.js';
import { getJson, waitFor } from '../support/processes.js';
import { alertingFleetConfig, nodeDownToWebhook } from '../support/alertingDaemon.js';

let root: string;
let fleet: SimFleet;

beforeAll(async () => {
  requireBuiltCli();
  root = mkdtempSync(path.join(tmpdir(), 'lfe-startup-failure-'));
  fleet = await SimFleet.start([{ name: 'n1', network: 'main' }], { host: '127.0.0.1', blockTimeMs: 1000 });
});

afterAll(async () => {
  await fleet?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('a state file cut inside ~6,000 nested arrays', () => {
  it('is set aside and salvaged; the exporter starts whole, evaluates alerts, and stops on SIGTERM', async () => {
    const dir = mkdtempSync(path.join(root, 'nested-'));
    mkdirSync(path.join(dir, 'state'));
    writeFileSync(
      path.join(dir, 'state', 'alerts.json'),
      '{"version":1,"savedAt":1764255600000,"dispatcher":{"log":{"k":{"firing":' + '['.repeat(6_000),
    );
    const config = [
      'listen: 127.0.0.1:0',
      'defaults: {interval: 300ms, timeout: 250ms, probes: [health]}',
      'nodes:',
      `  - {name: n1, url: "${fleet.node('n1').url}", network: main}`,
      '  - {name: dead, url: "http://127.0.0.1:9", network: main}',
      'evidence: {dir: ./evidence}',
      'alerting:',
      '  stateDir: ./state',
      '  evaluationInterval: 250ms',
      '  rules: {LedgerNodeDown: {for: 1s}}',
      '  receivers:',
      '    - name: hook',
      '      webhook: {url: "http://127.0.0.1:9/hook"}',
      '',
    ].join('\n');
    writeFileSync(path.join(dir, 'c.yaml'), config);
    const d = await startDaemonProcess(['--config', 'c.yaml', '--log-format', 'json'], {
      cwd: dir,
      readyTimeoutMs: 20_000,
    });
    try {
      const alerts = await waitFor(
        'LedgerNodeDown for the dead node in /api/alerts',
        async () => {
          const r = await getJson<{ enabled: boolean; alerts: Array<{ name: string; labels: { node?: string } }> }>(
            `${d.url}/api/alerts`,
          );
          return r.alerts.some((a) => a.name === 'LedgerNodeDown' && a.labels.node === 'dead') ? r : undefined;
        },
        { timeoutMs: 15_000 },
      );
      expect(alerts.enabled).toBe(true);
      expect(readdirSync(path.join(dir, 'state')).some((f) => f.startsWith('alerts.json.damaged-'))).toBe(true);
      expect(d.stdout()).toMatch(/alert state file damaged .*nested deeper than \d+/);
    } finally {
      const r = await d.stop(10_000);
      expect({ code: r.code, signal: r.signal }, `${r.stdout}\n${r.stderr}`).toEqual({ code: 0, signal: null });
      expect(jsonLines(r.stdout).some((l) => l.msg === 'shutting down')).toBe(true);
    }
  }, 60_000);
});

describe('a component whose start fails', () => {
  it('stops what already started (listener, polling, components) before startDaemon rejects', async () => {
    const dir = mkdtempSync(path.join(root, 'failing-'));
    let url = '';
    const closed: string[] = [];
    const failing: DaemonComponent = {
      name: 'failing',
      start(ctx) {
        url = ctx.url;
        throw new Error('cannot start: test');
      },
      close: () => void closed.push('failing'),
    };
    const config = alertingFleetConfig([fleet.node('n1')], {
      dir,
      network: 'main',
      intervalMs: 100,
      timeoutMs: 90,
      concurrency: 2,
      maxUpstreamSeries: 100,
      alerting: nodeDownToWebhook(dir, 'http://127.0.0.1:9/hook'),
    });
    delete (config as { alerting?: unknown }).alerting;
    const started = startDaemon(config, {
      logger: createLogger({ level: 'silent' }),
      components: [failing],
    });
    await expect(started).rejects.toThrow('cannot start: test');
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    expect(closed).toEqual(['failing']);
    const before = fleet.node('n1').requestCount();
    await new Promise((r) => setTimeout(r, 500));
    expect(fleet.node('n1').requestCount()).toBe(before);
  }, 30_000);
});
