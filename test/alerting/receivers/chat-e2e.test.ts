// Telegram, Discord, ntfy, Teams, Opsgenie and e-mail (to an SMTP server in the test) configured in
// YAML (secrets inline and as files): one dead simulated node pages all six through the built-in engine in the daemon
// and resolves; each outcome is counted; notify-test reaches each kind and says per receiver what happened.
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runNotifyTest } from '../../../src/cli/notifyTest.js';
import { loadConfigFile } from '../../../src/config/index.js';
import type { Daemon } from '../../../src/daemon/index.js';
import { Secrets } from '../../../src/redact.js';
import { SimFleet } from '../../../src/sim/index.js';
import { closeAlertingRig, deliveriesLogged, startAlertingDaemon } from '../../support/alertingDaemon.js';
import { FakeChatServices, type Service } from '../../support/fakeChatServices.js';
import { waitFor } from '../../support/processes.js';
import { writeNodeDownYaml } from '../../support/nodeDownYaml.js';

const TG_TOKEN = '7000002:AAe2eTelegramCanary';
const DC_PATH = 'api/webhooks/2/e2eDiscordCanary';
const NTFY_TOKEN = 'tk_e2eNtfyCanary';
const TEAMS_SIG = 'e2eTeamsSigCanary';
const OG_KEY = 'e2e-opsgenie-key-canary';
const WAIT = 20_000;

describe('chat receivers in the daemon', () => {
  const fake = new FakeChatServices();
  /** Subjects of the mails the SMTP server took. */
  const subjects: string[] = [];
  const smtp = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData: (stream, _s, cb) => {
      let raw = '';
      stream.setEncoding('utf8');
      stream.on('data', (c: string) => (raw += c));
      stream.on('end', () => {
        subjects.push(/^Subject: (.*)$/m.exec(raw)?.[1]?.trim() ?? '');
        cb();
      });
    },
  });
  let dir = '';
  let fleet: SimFleet;
  let daemon: Daemon;
  let log: () => string = () => '';
  let configFile = '';

  beforeAll(async () => {
    await fake.start();
    await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', () => r()));
    const smtpPort = (smtp.server.address() as AddressInfo).port;
    dir = mkdtempSync(path.join(tmpdir(), 'lfe-chat-e2e-'));
    writeFileSync(path.join(dir, 'tg'), `${TG_TOKEN}\n`);
    writeFileSync(path.join(dir, 'ntfy'), NTFY_TOKEN);
    writeFileSync(path.join(dir, 'teams'), `${fake.base}/teams/wf?sig=${TEAMS_SIG}\n`);
    fleet = await SimFleet.start(
      ['chat-1', 'chat-2'].map((name) => ({ name, network: 'chat', build: 'current' as const, peers: 5 })),
      { host: '127.0.0.1', layout: 'port-per-node', blockTimeMs: 500 },
    );
    configFile = writeNodeDownYaml(dir, fleet.nodes, 'chat', [
      {
        name: 'tg',
        telegram: { botTokenFile: 'tg', chatId: -1001234567890, messageThreadId: 7, apiUrl: `${fake.base}/tg` },
      },
      { name: 'dc', discord: { webhookUrl: `${fake.base}/discord/${DC_PATH}` } },
      { name: 'nt', ntfy: { url: `${fake.base}/ntfy/ledger-oncall`, tokenFile: 'ntfy' } },
      { name: 'teams', msteams: { webhookUrlFile: 'teams' } },
      { name: 'genie', opsgenie: { apiKey: OG_KEY, url: `${fake.base}/opsgenie` } },
      {
        name: 'mail',
        email: {
          smarthost: `127.0.0.1:${smtpPort}`,
          from: 'exporter@example.org',
          to: ['oncall@example.org'],
          tls: 'none',
        },
      },
    ]);
    ({ daemon, log } = await startAlertingDaemon(await loadConfigFile(configFile)));
  }, 60_000);

  afterAll(async () => {
    await closeAlertingRig({ daemon, fleet, dir });
    await fake.close();
    await new Promise<void>((r) => smtp.close(() => r()));
  });

  const SERVICES: Service[] = ['telegram', 'discord', 'ntfy', 'msteams', 'opsgenie'];
  const RECEIVERS = ['tg', 'dc', 'nt', 'teams', 'genie', 'mail'];
  const delivered = (receiver: string) => deliveriesLogged(log(), receiver);
  const says = (service: Service, text: string) =>
    fake
      .of(service)
      .some((s) => s.body.includes(text) || (text === 'RESOLVED' && s.path.endsWith('/close?identifierType=alias')));

  it(
    'a dead node pages every kind and its revival resolves it, each delivery counted',
    { timeout: 4 * WAIT },
    async () => {
      await waitFor('first poll round', () => (daemon.ready() ? true : undefined), { timeoutMs: WAIT });
      await fleet.node('chat-2').kill();
      await waitFor(
        'firing on every kind',
        () => (SERVICES.every((s) => says(s, 'FIRING')) && subjects.length > 0 ? true : undefined),
        { timeoutMs: WAIT, context: log },
      );
      expect(fake.of('telegram')[0]!.path).toBe(`/tg/bot${TG_TOKEN}/sendMessage`);
      expect(JSON.parse(fake.of('telegram')[0]!.body)).toMatchObject({
        chat_id: '-1001234567890',
        message_thread_id: 7,
      });
      expect(fake.of('ntfy')[0]!.headers.authorization).toBe(`Bearer ${NTFY_TOKEN}`);
      expect(fake.of('msteams')[0]!.path).toBe(`/teams/wf?sig=${TEAMS_SIG}`);
      await fleet.node('chat-2').revive();
      await waitFor(
        'resolved on every kind, and each answer back at the daemon',
        () =>
          SERVICES.every((s) => says(s, 'RESOLVED')) &&
          subjects.length > 1 &&
          // A delivery is counted once its answer is back, which can be after the service saw it.
          RECEIVERS.every((r) => delivered(r) >= 2)
            ? true
            : undefined,
        { timeoutMs: WAIT, context: log },
      );
      expect(subjects).toEqual(['[FIRING:1] LedgerNodeDown chat', '[RESOLVED] LedgerNodeDown chat']);
      expect(SERVICES.map((s) => fake.of(s).length)).toEqual([2, 2, 2, 2, 2]);
      // Opsgenie: created and then closed under one alias.
      const [create, close] = fake.of('opsgenie');
      expect(close!.path).toBe(
        `/opsgenie/v2/alerts/${(JSON.parse(create!.body) as { alias: string }).alias}/close?identifierType=alias`,
      );
      const metrics = await (await fetch(`${daemon.url}/metrics`)).text();
      for (const r of RECEIVERS)
        expect(metrics).toMatch(
          new RegExp(`ledger_alert_notifications_total\\{receiver="${r}",result="success"\\} 2\\n`),
        );
      // The start-up dry checks ran (GETs, no posts; Teams gets a HEAD on its origin only) and found every receiver
      // usable.
      expect(
        fake.seen
          .filter((s) => s.method !== 'POST')
          .map((s) => `${s.method} ${s.service}`)
          .sort(),
      ).toEqual(['GET discord', 'GET ntfy', 'GET telegram']);
      expect(log()).not.toContain('failed its start-up check');
      for (const secret of [TG_TOKEN, 'e2eDiscordCanary', NTFY_TOKEN, TEAMS_SIG, OG_KEY])
        expect(log()).not.toContain(secret);
    },
  );

  it('notify-test reaches each kind and says per receiver what happened', async () => {
    const lines: string[] = [];
    const run = () =>
      runNotifyTest(['--config', configFile], { secrets: new Secrets(), write: (l) => void lines.push(l) });
    expect(await run()).toBe(0);
    expect(lines).toEqual([
      'tg (telegram): ok (HTTP 200)',
      'dc (discord): ok (HTTP 204)',
      'nt (ntfy): ok (HTTP 200)',
      'teams (msteams): ok (HTTP 202)',
      'genie (opsgenie): ok (HTTP 202)',
      'mail (email): ok (SMTP 250)',
    ]);
    lines.length = 0;
    fake.script('telegram', ['bad']);
    fake.script('discord', ['refused']);
    expect(await run()).toBe(1);
    expect(lines[0]).toMatch(/^tg \(telegram\): failed: .*HTTP 400: .*chat not found/);
    expect(lines[1]).toMatch(/^dc \(discord\): failed: .*HTTP 404: .*Unknown Webhook/);
    expect(lines.slice(2)).toEqual([
      'nt (ntfy): ok (HTTP 200)',
      'teams (msteams): ok (HTTP 202)',
      'genie (opsgenie): ok (HTTP 202)',
      'mail (email): ok (SMTP 250)',
    ]);
    for (const secret of [TG_TOKEN, 'e2eDiscordCanary', NTFY_TOKEN, TEAMS_SIG, OG_KEY])
      expect(lines.join('\n')).not.toContain(secret);
  });

  it('refuses plain http off loopback and a malformed chat id, at file:line:col', async () => {
    const bad = path.join(dir, 'bad.yaml');
    writeFileSync(
      bad,
      stringify({
        nodes: [{ name: 'n1', url: 'http://127.0.0.1:1', network: 'chat' }],
        alerting: {
          stateDir: 'state',
          receivers: [
            { name: 'dc', discord: { webhookUrl: 'http://discord.example.org/api/webhooks/1/x' } },
            { name: 'tg', telegram: { botToken: '1:abc', chatId: 'my chat' } },
          ],
        },
      }),
    );
    const err = await loadConfigFile(bad).then(
      () => undefined,
      (e: Error) => e.message,
    );
    expect(err).toMatch(/bad\.yaml:\d+:\d+: .*URL must be https:\/\/ \(http:\/\/ only to a loopback host\)/);
    expect(err).toMatch(/bad\.yaml:\d+:\d+: .*chatId is a number/);
  });
});
