// Telegram, Discord, ntfy, Teams and Opsgenie over loopback, against fakes answering as each documented API
// does: the request each kind sends, retries after each service's rate-limit hint, 5xx, a hang and
// a reset; a 400 with the service's error shape fails at once and says why; the dry checks send nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Notification } from '../../../src/alerting/notify/notification.js';
import { backoffMs, DEFAULT_RETRY } from '../../../src/alerting/notify/queue.js';
import { dryCheckReceivers } from '../../../src/alerting/receivers/dryCheck.js';
import type { ReceiverSettings } from '../../../src/alerting/receivers/kind.js';
import { materializeReceiver } from '../../../src/alerting/receivers/materialize.js';
import { opsgenieAlias } from '../../../src/alerting/receivers/opsgenie.js';
import { HttpClient } from '../../../src/http/client.js';
import { Secrets } from '../../../src/redact.js';
import { FakeChatServices, type Service } from '../../support/fakeChatServices.js';
import { deliverOnce } from '../../support/receiverTests.js';

const TG_TOKEN = '7000001:AAtelegramTokenCanary55';
const DC_TOKEN = 'discordWebhookTokenCanary66';
const NTFY_TOKEN = 'tk_ntfyTokenCanary77';
const TEAMS_SIG = 'teamsSigCanary88';
const OG_KEY = 'opsgenie-key-canary-99';
const SECRETS = [TG_TOKEN, DC_TOKEN, NTFY_TOKEN, TEAMS_SIG, OG_KEY];
const CTX = { externalUrl: 'https://fleet.example.org', now: Date.UTC(2026, 10, 27, 12) };

const fake = new FakeChatServices();
const secrets = new Secrets();
const client = new HttpClient({ secrets });
beforeAll(() => fake.start());
afterAll(async () => {
  await client.close();
  await fake.close();
});

function settings(service: Service): ReceiverSettings {
  const b = fake.base;
  const all: Record<Service, ReceiverSettings> = {
    telegram: {
      name: 'tg',
      kind: 'telegram',
      botToken: { value: TG_TOKEN },
      chatId: '-1001234567890',
      messageThreadId: 7,
      apiUrl: `${b}/tg`,
      timeoutMs: 400,
    },
    discord: {
      name: 'dc',
      kind: 'discord',
      webhookUrl: { value: `${b}/discord/api/webhooks/1/${DC_TOKEN}` },
      timeoutMs: 400,
    },
    ntfy: { name: 'nt', kind: 'ntfy', url: `${b}/ntfy/ops`, token: { value: NTFY_TOKEN }, timeoutMs: 400 },
    msteams: {
      name: 'teams',
      kind: 'msteams',
      webhookUrl: { value: `${b}/teams/workflows/1/triggers/manual/paths/invoke?sig=${TEAMS_SIG}` },
      timeoutMs: 400,
    },
    opsgenie: { name: 'og', kind: 'opsgenie', apiKey: { value: OG_KEY }, url: `${b}/opsgenie`, timeoutMs: 400 },
  };
  return all[service];
}

const note: Notification = {
  receiver: 'r',
  groupKey: '0:{alertname="LedgerNodeDown",network="main"}',
  groupLabels: { alertname: 'LedgerNodeDown', network: 'main' },
  status: 'firing',
  alerts: [
    {
      id: 'id-a-0123456789abcdef',
      status: 'firing',
      labels: { alertname: 'LedgerNodeDown', severity: 'critical', node: 'val-1', network: 'main' },
      annotations: { summary: 'Ledger node val-1 (main) is down', description: 'No answer.' },
      startsAt: CTX.now - 60_000,
    },
  ],
  createdAt: CTX.now,
};

/** One notification through the real queue and transport; waits are recorded, not slept. */
const deliver = (service: Service, n = note) =>
  deliverOnce(settings(service), n, { client, secrets, ctx: CTX, timeoutMs: 10_000 });

const SERVICES: Service[] = ['telegram', 'discord', 'ntfy', 'msteams', 'opsgenie'];
const ERRORS: Record<Service, string> = {
  telegram: 'Bad Request: chat not found',
  discord: 'Invalid Form Body',
  ntfy: 'invalid request: priority invalid',
  msteams: 'TriggerInputSchemaMismatch',
  opsgenie: 'Message can not be empty',
};
/** The wait after a 429: the service's hint, or (Opsgenie gives none) the first backoff. */
const LIMIT_WAIT: Record<Service, number> = {
  telegram: 1000,
  discord: 1000,
  ntfy: 1000,
  msteams: 1000,
  opsgenie: backoffMs(1, DEFAULT_RETRY, () => 0.5),
};

describe.each(SERVICES)('%s', (service) => {
  it('waits its rate-limit hint, backs off after a 5xx, then delivers the documented request', async () => {
    fake.script(service, ['limited', '5xx', 'ok']);
    const before = fake.of(service).length;
    const { report, sleeps } = await deliver(service);
    expect(report).toMatchObject({ result: 'success', attempts: 3 });
    expect(sleeps).toEqual([LIMIT_WAIT[service], backoffMs(2, DEFAULT_RETRY, () => 0.5)]);
    const sent = fake.of(service).slice(before);
    expect(sent).toHaveLength(3);
    const last = sent[2]!;
    const body = JSON.parse(last.body) as Record<string, unknown>;
    if (service === 'telegram') {
      expect(last.path).toBe(`/tg/bot${TG_TOKEN}/sendMessage`);
      expect(body).toMatchObject({ chat_id: '-1001234567890', message_thread_id: 7, parse_mode: 'HTML' });
      expect(body.text).toContain('<b>[FIRING:1] LedgerNodeDown main</b>');
    } else if (service === 'discord') {
      expect(body).toMatchObject({ allowed_mentions: { parse: [] } });
      expect(body.content).toContain('**\\[FIRING\\:1\\] LedgerNodeDown main**');
    } else if (service === 'ntfy') {
      expect(last.path).toBe('/ntfy/');
      expect(last.headers.authorization).toBe(`Bearer ${NTFY_TOKEN}`);
      expect(body).toMatchObject({
        topic: 'ops',
        title: '[FIRING:1] LedgerNodeDown main: val-1',
        priority: 5,
        tags: ['rotating_light'],
        click: 'https://fleet.example.org/',
      });
    } else if (service === 'opsgenie') {
      expect(last.path).toBe('/opsgenie/v2/alerts');
      expect(last.headers.authorization).toBe(`GenieKey ${OG_KEY}`);
      expect(body).toMatchObject({
        message: '[FIRING:1] LedgerNodeDown main',
        alias: opsgenieAlias(note.groupKey),
        priority: 'P1',
        entity: 'main',
      });
    } else {
      expect(last.path).toContain(`sig=${TEAMS_SIG}`);
      expect(body).toMatchObject({
        type: 'message',
        attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', content: { type: 'AdaptiveCard' } }],
      });
    }
  });

  it("fails a 400 at once with the service's reason, secrets scrubbed", async () => {
    fake.script(service, ['bad']);
    const { report } = await deliver(service);
    expect(report).toMatchObject({ result: 'failure', attempts: 1, status: service === 'opsgenie' ? 422 : 400 });
    expect(report.message).toContain(ERRORS[service]);
    for (const s of SECRETS) expect(report.message).not.toContain(s);
  });

  it('retries a hang (its deadline) and a reset connection', async () => {
    fake.script(service, ['hang', 'reset', 'ok']);
    const { report, sleeps } = await deliver(service);
    expect(report).toMatchObject({ result: 'success', attempts: 3 });
    expect(sleeps).toHaveLength(2);
  });

  it('dry check: accepted, then refused; nothing is posted', async () => {
    const posts = fake.of(service).length;
    const spec = await materializeReceiver(settings(service), secrets);
    fake.checks[service] = 'ok';
    const [ok] = await dryCheckReceivers([spec], (req) => client.send(req));
    expect(ok!.ok).toBe(true);
    fake.checks[service] = 'refused';
    const [refused] = await dryCheckReceivers([spec], (req) => client.send(req));
    // Teams and Opsgenie integrations offer no check that sends nothing: its origin answering is all that is known.
    expect(refused!.ok).toBe(service === 'msteams' || service === 'opsgenie');
    if (service !== 'msteams' && service !== 'opsgenie') expect(refused!.detail).toMatch(/refuse|rejects|cannot reach/);
    for (const s of SECRETS) expect(JSON.stringify([ok, refused])).not.toContain(s);
    expect(fake.of(service).length).toBe(posts);
  });
});

describe('opsgenie', () => {
  it('closes the alert by the same alias when the group resolves', async () => {
    const resolved: Notification = {
      ...note,
      status: 'resolved',
      alerts: note.alerts.map((a) => ({ ...a, status: 'resolved', endsAt: CTX.now })),
    };
    const { report } = await deliver('opsgenie', resolved);
    expect(report.result).toBe('success');
    const close = fake.of('opsgenie').at(-1)!;
    expect(close.path).toBe(`/opsgenie/v2/alerts/${opsgenieAlias(note.groupKey)}/close?identifierType=alias`);
    expect(JSON.parse(close.body)).toMatchObject({ source: 'ledger-fleet-exporter' });
  });
});

describe('discord', () => {
  it("clamps a body's retry_after given in milliseconds (no Retry-After header)", async () => {
    fake.script('discord', ['limited-body', 'ok']);
    const { report, sleeps } = await deliver('discord');
    expect(report.result).toBe('success');
    expect(sleeps).toEqual([60_000]);
  });
});
