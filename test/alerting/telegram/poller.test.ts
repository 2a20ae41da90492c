// Telegram commands over a fake Bot API on loopback (long-polled getUpdates with offsets,
// sendMessage, answerCallbackQuery, 409): button taps and commands act on a real silence store,
// only the chat's listed users act, a second consumer of the bot is reported once and not
// hammered, and the bot token is in no log line.
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fingerprint } from '../../../src/alerting/rules/labels.js';
import { SilenceStore } from '../../../src/alerting/silences/store.js';
import { answerUpdate, type ActiveAlert } from '../../../src/alerting/telegram/actions.js';
import { CommandPoller } from '../../../src/alerting/telegram/poller.js';
import { HttpClient } from '../../../src/http/client.js';
import { createLogger } from '../../../src/logger.js';
import { Secrets } from '../../../src/redact.js';
import { startFakeTelegram, type FakeTelegram } from '../../support/fakeTelegram.js';

const CHAT = -1001234567890;
const ALICE = { id: 111, is_bot: false, username: 'alice', first_name: 'Alice' };
const MALLORY = { id: 666, is_bot: false, username: 'mallory', first_name: 'M' };
const LABELS = { alertname: 'LedgerNodeDown', severity: 'critical', node: 'val-eu-1', network: 'main' };
const FP = fingerprint(LABELS);

interface Rig {
  tg: FakeTelegram;
  store: SilenceStore;
  poller: CommandPoller;
  client: HttpClient;
  log: () => string;
}

async function rig(tg: FakeTelegram, backoff = { minMs: 200, maxMs: 800 }): Promise<Rig> {
  const secrets = new Secrets();
  secrets.add(tg.token);
  let text = '';
  const destination = new Writable({ write: (c: Buffer, _e, cb) => ((text += c.toString()), cb()) });
  const log = createLogger({ level: 'debug', destination, secrets });
  const alerts: ActiveAlert[] = [{ fingerprint: FP, name: 'LedgerNodeDown', state: 'firing', labels: LABELS }];
  const store = new SilenceStore({
    alertLabels: (fp) => alerts.find((a) => a.fingerprint === fp)?.labels,
    ackMaxMs: 86_400_000,
  });
  const client = new HttpClient({ secrets });
  const poller = new CommandPoller({
    receiver: 'tg',
    botUrl: () => Promise.resolve(`${tg.url}/bot${tg.token}`),
    client,
    secrets,
    log,
    answer: (u, botUsername) =>
      answerUpdate(u, {
        chatId: String(CHAT),
        users: [ALICE.id],
        botUsername,
        silences: store,
        alerts: () => alerts,
        now: Date.now,
      }),
    pollTimeoutS: 2,
    backoff,
  });
  poller.start();
  return { tg, store, poller, client, log: () => text };
}

const alertMessage = (id: number) => ({
  message_id: id,
  chat: { id: CHAT, type: 'supergroup' },
  text: 'LedgerNodeDown',
  reply_markup: {
    inline_keyboard: [
      [
        { text: 'Acknowledge', callback_data: `a:${FP}` },
        { text: 'Silence 1h', callback_data: `s:${FP}` },
      ],
    ],
  },
});
const command = (from: typeof ALICE, text: string, extra: Record<string, unknown> = {}, chat = CHAT) => ({
  message: {
    message_id: Math.floor(Math.random() * 1e6),
    chat: { id: chat, type: 'supergroup' },
    from,
    text,
    ...extra,
  },
});

describe('Telegram commands against a fake Bot API', () => {
  let r: Rig | undefined;
  beforeEach(async () => {
    r = await rig(await startFakeTelegram());
  });
  afterEach(async () => {
    r?.poller.stop();
    await r?.client.close();
    await r?.tg.close();
    expect(r?.log()).not.toContain(r?.tg.token);
    expect(r?.log()).not.toContain('FAKE-token');
  });

  it('a tap on "Silence 1h" silences exactly that alert for an hour and answers the tap and the chat', async () => {
    const { tg, store } = r!;
    const t0 = performance.now();
    tg.push({ callback_query: { id: 'cb1', from: ALICE, message: alertMessage(42), data: `s:${FP}` } });
    const answered = await tg.waitForCall('answerCallbackQuery', (c) => c.body.callback_query_id === 'cb1', 10_000);
    const ids = store.silencedBy(LABELS, Date.now());
    expect(ids).toHaveLength(1);
    const s = store.get(ids[0]!, Date.now())!;
    expect(s.endsAt - s.startsAt).toBe(3_600_000);
    expect(s.createdBy).toBe('telegram:@alice');
    expect(store.silencedBy({ ...LABELS, node: 'val-eu-2' }, Date.now())).toEqual([]);
    expect(String(answered.body.text)).toMatch(/silenced LedgerNodeDown val-eu-1 for 1h/);
    const said = await tg.waitForCall('sendMessage', (c) => c.body.chat_id === CHAT, 10_000);
    expect(said.body.reply_parameters).toMatchObject({ message_id: 42 });
    expect(r!.log()).toMatch(/"telegramUser":111.*"action":"silence 1h \(button\)"/);
    console.log(`tap -> silenced -> tap answered: ${(answered.at - t0).toFixed(1)} ms`);
  });

  it('a tap on "Acknowledge" acknowledges the alert; /ack in reply to an alert message too', async () => {
    const { tg, store } = r!;
    tg.push({ callback_query: { id: 'cb2', from: ALICE, message: alertMessage(43), data: `a:${FP}` } });
    await tg.waitForCall('answerCallbackQuery', (c) => c.body.callback_query_id === 'cb2', 10_000);
    const [ack] = store.list(Date.now()).filter((s) => s.state === 'active');
    expect(ack?.ackOf).toBe(FP);
    store.expire(ack!.id, { user: 't', via: 'api' }, Date.now());
    tg.push(command(ALICE, '/ack', { reply_to_message: alertMessage(44) }));
    await tg.waitForCall(
      'sendMessage',
      (c) =>
        /acknowledged .* \(\/ack\)|acknowledged LedgerNodeDown/.test(String(c.body.text)) &&
        c.body.reply_parameters !== undefined &&
        tg.calls.filter((x) => x.method === 'sendMessage').length >= 2,
      10_000,
    );
    expect(store.list(Date.now()).filter((s) => s.state === 'active' && s.ackOf === FP)).toHaveLength(1);
    tg.push(command(ALICE, '/ack'));
    await tg.waitForCall('sendMessage', (c) => /reply \/ack to an alert message/.test(String(c.body.text)), 10_000);
  });

  it('/silence, /silences, /unsilence, /help from a listed user; anyone else is answered "not allowed"', async () => {
    const { tg, store } = r!;
    tg.push(command(ALICE, '/silence@LedgerTestBot node=val-eu-1 network=~"main|test" 2h disk swap'));
    const done = await tg.waitForCall('sendMessage', (c) => /^silenced /.test(String(c.body.text)), 10_000);
    const id = /silence ([0-9a-f-]+)\)/.exec(String(done.body.text))![1]!;
    expect(store.get(id, Date.now())).toMatchObject({ comment: 'disk swap', createdBy: 'telegram:@alice' });
    tg.push(command(ALICE, '/silences'));
    await tg.waitForCall('sendMessage', (c) => String(c.body.text).startsWith(id), 10_000);
    tg.push(command(MALLORY, `/unsilence ${id}`));
    await tg.waitForCall('sendMessage', (c) => c.body.text === 'not allowed', 10_000);
    expect(store.get(id, Date.now())?.state).toBe('active');
    tg.push(command(ALICE, `/unsilence ${id}`, {}, 999)); // a listed user, but in another chat
    await tg.waitForCall('sendMessage', (c) => c.body.text === 'not allowed' && c.body.chat_id === 999, 10_000);
    tg.push({ callback_query: { id: 'cb3', from: MALLORY, message: alertMessage(45), data: `s:${FP}` } });
    const refused = await tg.waitForCall('answerCallbackQuery', (c) => c.body.callback_query_id === 'cb3', 10_000);
    expect(refused.body).toMatchObject({ text: 'not allowed', show_alert: true });
    expect(store.silencedBy({ ...LABELS, network: 'other' }, Date.now())).toEqual([]);
    tg.push(command(ALICE, `/unsilence ${id}`));
    await tg.waitForCall('sendMessage', (c) => c.body.text === `expired silence ${id}`, 10_000);
    expect(store.get(id, Date.now())?.state).toBe('expired');
    tg.push(command(ALICE, '/status@SomeOtherBot')); // not for us: no answer
    tg.push(command(ALICE, 'just chatting'));
    tg.push(command(ALICE, '/help'));
    await tg.waitForCall('sendMessage', (c) => String(c.body.text).startsWith('/status:'), 10_000);
    expect(tg.calls.filter((c) => c.method === 'sendMessage' && /^\d+ firing,/.test(String(c.body.text)))).toEqual([]);
    expect(r!.log()).toMatch(/"telegramUser":666.*not allowed/);
  });

  it('a second consumer of the bot (409) is logged once, a problem, not hammered; then reading resumes', async () => {
    const { tg, poller } = r!;
    tg.setConflict(true);
    const before = tg.polls();
    await new Promise((res) => setTimeout(res, 3_000));
    const during = tg.polls() - before;
    // Backoff 200 ms doubling to 800 ms: at most ~6 polls in 3 s, never a tight loop.
    expect(during).toBeGreaterThan(0);
    expect(during).toBeLessThanOrEqual(8);
    expect(r!.log().match(/another program reads this bot's updates/g)).toHaveLength(1);
    expect(poller.problem()).toMatch(
      /telegram receiver tg: another program reads this bot's updates \(Telegram answers 409/,
    );
    tg.setConflict(false);
    tg.push(command(ALICE, '/help'));
    await tg.waitForCall('sendMessage', (c) => String(c.body.text).startsWith('/status:'), 10_000);
    expect(poller.problem()).toBeUndefined();
    expect(r!.log()).toMatch(/reading updates again/);
  });
});
