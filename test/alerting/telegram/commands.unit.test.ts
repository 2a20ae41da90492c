// The Telegram commands read without I/O: command lines (matchers, durations, comments, the
// @BotName suffix), button data, the buttons of an alert message, and what /ack reads back.
import { describe, expect, it } from 'vitest';
import { ackedBy, alertButtons, MAX_BUTTON_ROWS } from '../../../src/alerting/telegram/buttons.js';
import { parseButton, parseCommand, words } from '../../../src/alerting/telegram/commands.js';
import type { Notification } from '../../../src/alerting/notify/notification.js';

describe('command lines', () => {
  it('reads /silence <matcher>... <duration> [comment]', () => {
    expect(parseCommand('/silence node=val-eu-1 network=~"main|test" 2h disk swap')).toEqual({
      kind: 'silence',
      matchers: [
        { name: 'node', value: 'val-eu-1', isRegex: false, isEqual: true },
        { name: 'network', value: 'main|test', isRegex: true, isEqual: true },
      ],
      durationMs: 7_200_000,
      comment: 'disk swap',
    });
    expect(parseCommand('/silence LedgerNodeDown 1d')).toMatchObject({
      kind: 'silence',
      matchers: [{ name: 'alertname', value: 'LedgerNodeDown' }],
      durationMs: 86_400_000,
      comment: '',
    });
    expect(parseCommand('/silence node="a b" 30m "quoted comment"')).toMatchObject({
      matchers: [{ name: 'node', value: 'a b' }],
      comment: 'quoted comment',
    });
  });

  it('answers bad arguments with the reason', () => {
    expect(parseCommand('/silence node=a')).toEqual({ kind: 'bad', error: expect.stringMatching(/no duration given/) });
    expect(parseCommand('/silence')).toEqual({ kind: 'bad', error: expect.stringMatching(/^usage: \/silence/) });
    expect(parseCommand('/silence node~a 2h')).toEqual({ kind: 'bad', error: expect.stringMatching(/bad matcher/) });
    expect(parseCommand('/silence node=~.* 2h')).toEqual({ kind: 'bad', error: expect.stringMatching(/empty string/) });
    expect(parseCommand('/unsilence')).toEqual({ kind: 'bad', error: expect.stringMatching(/usage: \/unsilence/) });
    expect(parseCommand('/frobnicate')).toEqual({ kind: 'bad', error: expect.stringMatching(/unknown command/) });
  });

  it('takes /cmd@OurBot, ignores /cmd@OtherBot and ordinary text', () => {
    expect(parseCommand('/status@LedgerBot', 'LedgerBot')).toEqual({ kind: 'status' });
    expect(parseCommand('/status@OtherBot', 'LedgerBot')).toBeUndefined();
    expect(parseCommand('status please')).toBeUndefined();
    expect(parseCommand('/unsilence a b')).toEqual({ kind: 'unsilence', ids: ['a', 'b'] });
    expect(parseCommand('/start')).toEqual({ kind: 'help' });
    expect(words('a "b c" d="e f"')).toEqual(['a', '"b c"', 'd="e f"']);
  });

  it('reads button data, refusing anything else', () => {
    expect(parseButton('a:0123abcd')).toEqual({ action: 'ack', fingerprint: '0123abcd' });
    expect(parseButton('s:0123abcd')).toEqual({ action: 'silence1h', fingerprint: '0123abcd' });
    for (const bad of [undefined, '', 'x:01', 'a:', 'a:ZZ', `a:${'f'.repeat(40)}`])
      expect(parseButton(bad)).toBeUndefined();
  });
});

describe('buttons of an alert message', () => {
  const n = (count: number, status: 'firing' | 'resolved' = 'firing'): Notification => ({
    receiver: 'tg',
    groupKey: 'k',
    groupLabels: {},
    status,
    createdAt: 0,
    alerts: Array.from({ length: count }, (_, i) => ({
      id: `f${i}`,
      status,
      labels: { alertname: 'LedgerNodeDown', node: `node-${i}` },
      annotations: {},
      startsAt: 0,
    })),
  });

  it('one alert: Acknowledge and Silence 1h; several: a named row each, at most MAX_BUTTON_ROWS', () => {
    expect(alertButtons(n(1))).toEqual({
      inline_keyboard: [
        [
          { text: 'Acknowledge', callback_data: 'a:f0' },
          { text: 'Silence 1h', callback_data: 's:f0' },
        ],
      ],
    });
    const many = alertButtons(n(12))!;
    expect(many.inline_keyboard).toHaveLength(MAX_BUTTON_ROWS);
    expect(many.inline_keyboard[1]![0]).toEqual({ text: 'Acknowledge · node-1', callback_data: 'a:f1' });
    for (const b of many.inline_keyboard.flat()) expect(Buffer.byteLength(b.callback_data)).toBeLessThanOrEqual(64);
    expect(alertButtons(n(2, 'resolved'))).toBeUndefined();
  });

  it('/ack reads the fingerprints back from the message it replies to', () => {
    expect(ackedBy(alertButtons(n(3)))).toEqual(['f0', 'f1', 'f2']);
    expect(ackedBy(undefined)).toEqual([]);
    expect(ackedBy({ inline_keyboard: [[{ text: 'x', callback_data: 'zz' }]] })).toEqual([]);
  });
});
