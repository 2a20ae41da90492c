// A receiver whose secret file cannot be read (a directory where the file should be) is built once
// when alerting starts: its secret is read once and the problem logged once, by the build. The
// start-up dry check works on what was built. A reload that turns alerting back on builds it once
// again. A second receiver, on a closed port, fails its dry check: its warning shows the check ran.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertingSettings } from '../../../src/alerting/settings.js';
import type { Daemon } from '../../../src/daemon/index.js';
import type { ExporterConfig } from '../../../src/config/exporterConfig.js';
import { alertingFleetConfig, closeAlertingRig, onlyRules, startAlertingDaemon } from '../../support/alertingDaemon.js';
import { freePort, waitFor } from '../../support/processes.js';

const UNREADABLE = /cannot read receiver slack webhook URL from .*slack-url \(EISDIR\)/;
const CHECKED = 'receiver hook-down failed its start-up check';

describe('a receiver whose secret file cannot be read', () => {
  let dir = '';
  let daemon: Daemon;
  let config: ExporterConfig;
  let log: () => string = () => '';

  const lines = (match: RegExp | string) =>
    log()
      .split('\n')
      .filter((l) => (typeof match === 'string' ? l.includes(match) : match.test(l)));

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'lfe-receiver-built-once-'));
    // A directory cannot be read as a file whoever runs the test (root reads a chmod 000 file).
    mkdirSync(path.join(dir, 'slack-url'));
    const closedPort = await freePort();
    const alerting: AlertingSettings = {
      stateDir: path.join(dir, 'state'),
      evaluationIntervalMs: 60_000,
      runbookBase: 'https://git.example.org/lfe/alerts/RUNBOOKS.md',
      // No alert can fire: nothing is due for the receivers, so nothing builds them on demand.
      rules: onlyRules({}),
      routing: {
        groupBy: ['alertname'],
        groupWaitMs: 200,
        groupIntervalMs: 1000,
        repeatIntervalMs: 3_600_000,
        sendResolved: true,
        routes: [],
        receivers: ['slack'],
      },
      receivers: [
        { name: 'slack', kind: 'slack', webhookUrl: { file: path.join(dir, 'slack-url') }, timeoutMs: 5000 },
        {
          name: 'hook-down',
          kind: 'webhook',
          url: `http://127.0.0.1:${closedPort}/hook`,
          headers: {},
          timeoutMs: 5000,
        },
      ],
      maintenance: [],
    };
    config = alertingFleetConfig([], {
      dir,
      network: 'bo',
      intervalMs: 60_000,
      timeoutMs: 250,
      concurrency: 1,
      maxUpstreamSeries: 500,
      alerting,
    });
    ({ daemon, log } = await startAlertingDaemon(config));
  }, 60_000);

  afterAll(() => closeAlertingRig({ daemon, dir }));

  it(
    'is read and logged once at start-up, and once more when a reload turns alerting back on',
    { timeout: 30_000 },
    async () => {
      await waitFor('the start-up dry check', () => lines(CHECKED).length === 1, {
        timeoutMs: 10_000,
        intervalMs: 20,
        context: log,
      });
      expect(lines(UNREADABLE), log()).toHaveLength(1);

      const { alerting: _taken, ...without } = config;
      daemon.applyConfig(without);
      daemon.applyConfig(config);
      await waitFor('the dry check after the reload', () => lines(CHECKED).length === 2, {
        timeoutMs: 10_000,
        intervalMs: 20,
        context: log,
      });
      expect(lines(UNREADABLE), log()).toHaveLength(2);
    },
  );
});
