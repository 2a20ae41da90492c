// Telegram commands through the real daemon (dist/cli.js) and a fake Bot API on loopback: a
// firing alert's message carries the buttons, a tap on "Silence 1h" silences it (no further page
// at the next repeat), /unsilence lifts the silence and it pages again. The time from the tap
// being delivered to the alert muted (suppressed in /api/v2/alerts) is printed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimFleet } from '../../../src/sim/index.js';
import { requireBuiltCli, startDaemonProcess, type DaemonProcess } from '../../support/cliProcess.js';
import { startFakeTelegram, type FakeTelegram } from '../../support/fakeTelegram.js';
import { writeNodeDownYaml } from '../../support/nodeDownYaml.js';
import { waitFor } from '../../support/processes.js';

const CHAT = -1001234567890;
const ALICE = { id: 111, is_bot: false, username: 'alice' };
const WAIT_MS = 30_000;

interface V2Alert {
  fingerprint: string;
  labels: Record<string, string>;
  status: { state: string; silencedBy: string[] };
}

describe('Telegram commands through the daemon', () => {
  let dir = '';
  let fleet: SimFleet | undefined;
  let tg: FakeTelegram | undefined;
  let daemon: DaemonProcess | undefined;
  const context = () =>
    `--- exporter ---\n${daemon?.stdout().slice(-4000) ?? ''}\n${daemon?.stderr().slice(-2000) ?? ''}`;
  const pages = () =>
    tg!.calls.filter(
      (c) => c.method === 'sendMessage' && /LedgerNodeDown|Node down/i.test(String(c.body.text)) && c.body.reply_markup,
    );
  const alerts = async () => (await (await fetch(`${daemon!.url}/api/v2/alerts`)).json()) as V2Alert[];

  beforeAll(async () => {
    requireBuiltCli();
    dir = mkdtempSync(path.join(tmpdir(), 'lfe-tg-e2e-'));
    tg = await startFakeTelegram();
    fleet = await SimFleet.start([{ name: 'val-eu-1', network: 'main', build: 'current' as const, peers: 5 }], {
      host: '127.0.0.1',
      layout: 'shared-port',
      blockTimeMs: 500,
    });
    const tokenFile = path.join(dir, 'tg-token');
    writeFileSync(tokenFile, `${tg.token}\n`);
    const telegram = { botTokenFile: tokenFile, chatId: String(CHAT), apiUrl: tg.url, commands: { users: [ALICE.id] } };
    const file = writeNodeDownYaml(dir, fleet.nodes, 'main', [{ name: 'tg', telegram }], {
      alerting: { repeatInterval: '2s' },
    });
    daemon = await startDaemonProcess(['--config', file, '--log-format', 'json'], { readyTimeoutMs: WAIT_MS });
  }, 2 * WAIT_MS);

  afterAll(async () => {
    const out = await daemon?.stop();
    await Promise.allSettled([fleet?.close(), tg?.close()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
    expect(`${out?.stdout ?? ''}${out?.stderr ?? ''}`).not.toContain('FAKE-token');
  });

  it('a tap on "Silence 1h" mutes the alert; /unsilence lets it page again', { timeout: 4 * WAIT_MS }, async () => {
    await fleet!.node('val-eu-1').kill();
    const first = await waitFor('the alert page with its buttons', () => pages()[0], { timeoutMs: WAIT_MS, context });
    const markup = first.body.reply_markup as {
      inline_keyboard: Array<Array<{ text: string; callback_data: string }>>;
    };
    expect(markup.inline_keyboard[0]!.map((b) => b.text)).toEqual(['Acknowledge', 'Silence 1h']);
    const fp = markup.inline_keyboard[0]![1]!.callback_data.slice(2);
    expect((await alerts()).find((a) => a.fingerprint === fp)?.status.state).toBe('active');
    // It repeats every 2 s while nothing silences it.
    await waitFor('a repeated page', () => pages().length >= 2, { timeoutMs: WAIT_MS, context });

    const t0 = performance.now();
    tg!.push({
      callback_query: {
        id: 'tap-1',
        from: ALICE,
        message: { message_id: 77, chat: { id: CHAT, type: 'supergroup' }, reply_markup: markup },
        data: `s:${fp}`,
      },
    });
    const muted = await waitFor(
      'the alert suppressed',
      async () => (await alerts()).find((a) => a.fingerprint === fp && a.status.state === 'suppressed'),
      { timeoutMs: WAIT_MS, intervalMs: 10, context },
    );
    const muteMs = performance.now() - t0;
    console.log(`Telegram tap delivered -> alert suppressed in /api/v2/alerts: ${muteMs.toFixed(0)} ms`);
    const answered = await tg!.waitForCall('answerCallbackQuery', (c) => c.body.callback_query_id === 'tap-1', WAIT_MS);
    expect(String(answered.body.text)).toMatch(/silenced LedgerNodeDown val-eu-1 for 1h/);
    const silenceId = muted.status.silencedBy[0]!;
    // The action's log line is written apart from the answer: wait for it rather than race it.
    await waitFor('the action logged with the Telegram user', () => /"telegramUser":111/.test(daemon!.stdout()), {
      timeoutMs: WAIT_MS,
    });

    // No further page across more than two repeat intervals.
    const paged = pages().length;
    await new Promise((r) => setTimeout(r, 5_000));
    expect(pages().length, JSON.stringify(pages().map((c) => [c.at, c.body.text]))).toBe(paged);

    tg!.push({
      message: { message_id: 78, chat: { id: CHAT, type: 'supergroup' }, from: ALICE, text: `/unsilence ${silenceId}` },
    });
    await tg!.waitForCall('sendMessage', (c) => c.body.text === `expired silence ${silenceId}`, WAIT_MS);
    await waitFor('paged again', () => pages().length > paged, { timeoutMs: WAIT_MS, context });
    expect((await alerts()).find((a) => a.fingerprint === fp)?.status.state).toBe('active');
  });
});
