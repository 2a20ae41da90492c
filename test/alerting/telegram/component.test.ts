// The commands component polls only for telegram receivers with `commands`: a daemon whose
// telegram receiver has none asks the Bot API nothing; one with commands starts one poller.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { alertingComponent } from '../../../src/alerting/component.js';
import { telegramCommandsComponent } from '../../../src/alerting/telegram/component.js';
import { startDaemon, type Daemon } from '../../../src/daemon/index.js';
import { createLogger } from '../../../src/logger.js';
import { Secrets } from '../../../src/redact.js';
import { alertingFleetConfig, nodeDownToWebhook } from '../../support/alertingDaemon.js';
import { startFakeTelegram, type FakeTelegram } from '../../support/fakeTelegram.js';
import { waitFor } from '../../support/processes.js';

describe('the Telegram commands component', () => {
  let dir = '';
  let daemon: Daemon | undefined;
  let tg: FakeTelegram | undefined;
  afterEach(async () => {
    await daemon?.close();
    await tg?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const run = async (commands: boolean) => {
    dir = mkdtempSync(path.join(tmpdir(), 'lfe-tg-comp-'));
    tg = await startFakeTelegram();
    const alerting = nodeDownToWebhook(dir, 'http://127.0.0.1:9/hook');
    alerting.receivers = [
      {
        name: 'tg',
        kind: 'telegram',
        botToken: { value: tg.token },
        chatId: '-100123',
        apiUrl: tg.url,
        timeoutMs: 5000,
        ...(commands ? { commands: { users: [111] } } : {}),
      },
    ];
    alerting.routing.receivers = ['tg'];
    const config = alertingFleetConfig([], {
      dir,
      network: 'main',
      intervalMs: 1000,
      timeoutMs: 500,
      concurrency: 4,
      maxUpstreamSeries: 1000,
      alerting,
    });
    const a = alertingComponent();
    const component = telegramCommandsComponent({ silences: () => a.silences(), alerts: () => a.actingAlerts() });
    const secrets = new Secrets();
    daemon = await startDaemon(config, {
      logger: createLogger({ level: 'silent', secrets }),
      secrets,
      defaultMetrics: false,
      components: [a, component],
    });
    return component;
  };

  it('without commands: no poller, no request to the Bot API', async () => {
    const component = await run(false);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(component.pollers()).toBe(0);
    expect(tg!.polls()).toBe(0);
    expect(tg!.calls.filter((c) => c.method === 'getMe')).toEqual([]);
  });

  it('with commands: one poller long-polling getUpdates', async () => {
    const component = await run(true);
    expect(component.pollers()).toBe(1);
    await waitFor('a getUpdates', () => tg!.polls() > 0, { timeoutMs: 10_000 });
  });
});
