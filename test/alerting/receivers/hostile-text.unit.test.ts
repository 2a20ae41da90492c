// Text from nodes and config (versions, names, labels, descriptions) can never mention anyone or
// change a message's formatting, in any chat kind: property tests with hostile strings put in every
// label and annotation, checking each channel's markup. Messages over a channel's limit are
// shortened with "... and N more", never refused.
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Notification, NotifiedAlert } from '../../../src/alerting/notify/notification.js';
import type { OutboundRequest, ReceiverSpec } from '../../../src/alerting/receivers/kind.js';
import { deliveryParts } from '../../../src/alerting/receivers/materialize.js';
import { escapeMarkdown } from '../../../src/alerting/receivers/discord.js';
import { mailOf } from '../../../src/alerting/receivers/email.js';
import { escapeTeamsMarkdown } from '../../../src/alerting/receivers/msteams.js';

const HOSTILE = [
  '@everyone',
  '@here',
  '<!channel>',
  '<!here>',
  '<@U024BE7LH>',
  '<@&123>',
  '<#C123>',
  '<b>',
  '</b>',
  '<a href="https://evil.example">x</a>',
  '&lt;',
  '&amp;',
  '*bold*',
  '**b**',
  '_it_',
  '~strike~',
  '`code`',
  '```',
  '[click](https://evil.example)',
  '<https://evil.example|click>',
  '# heading',
  '> quote',
  '- item',
  '1. item',
  '||spoiler||',
  ':smile:',
  '\\',
  '\n',
  '\r\n',
  '"',
  "'",
  '|',
  '{{x}}',
  '${x}',
  '\u0000',
  '🔥',
];
const hostile = fc
  .array(fc.oneof(fc.constantFrom(...HOSTILE), fc.string({ unit: 'grapheme', maxLength: 12 })), {
    minLength: 1,
    maxLength: 6,
  })
  .map((p) => p.join(''));

const CTX = { externalUrl: 'https://fleet.example.org', now: Date.UTC(2026, 10, 27) };

function note(texts: { node: string; network: string; summary: string; description: string }, count = 2): Notification {
  const alerts: NotifiedAlert[] = Array.from({ length: count }, (_, i) => ({
    id: `id-${i}-0123456789abcdef`,
    status: i % 3 === 2 ? 'resolved' : 'firing',
    labels: { alertname: 'LedgerNodeDown', severity: 'critical', node: `${texts.node}${i}`, network: texts.network },
    annotations: {
      summary: texts.summary,
      description: texts.description,
      runbook_url: 'https://git.example.org/RUNBOOKS.md#ledgernodedown',
    },
    startsAt: CTX.now - 60_000,
  }));
  return {
    receiver: 'r',
    groupKey: `0:{network="${texts.network}"}`,
    groupLabels: { alertname: 'LedgerNodeDown', network: texts.network },
    status: 'firing',
    alerts,
    createdAt: CTX.now,
  };
}
const texts = fc.record({ node: hostile, network: hostile, summary: hostile, description: hostile });

const SPECS: Record<string, ReceiverSpec> = {
  slack: { name: 's', kind: 'slack', webhookUrl: 'https://hooks.slack.com/services/T/B/x' },
  telegram: { name: 't', kind: 'telegram', botToken: '1:x', chatId: '-100', apiUrl: 'https://api.telegram.org' },
  discord: { name: 'd', kind: 'discord', webhookUrl: 'https://discord.com/api/webhooks/1/x' },
  ntfy: { name: 'n', kind: 'ntfy', url: 'https://ntfy.sh/ops' },
  msteams: { name: 'm', kind: 'msteams', webhookUrl: 'https://example.webhook.office.com/x' },
  opsgenie: { name: 'o', kind: 'opsgenie', apiKey: 'k', url: 'https://api.eu.opsgenie.com' },
};
const payload = (kind: string, n: Notification) =>
  JSON.parse((deliveryParts(SPECS[kind]!, n, CTX)[0] as OutboundRequest).body) as Record<string, unknown>;

/** Every string under `key` anywhere in `v`, with the object holding it. */
function strings(v: unknown, key: string, out: Array<{ text: string; holder: Record<string, unknown> }> = []) {
  if (Array.isArray(v)) v.forEach((x) => strings(x, key, out));
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (k === key && typeof x === 'string') out.push({ text: x, holder: v as Record<string, unknown> });
      else strings(x, key, out);
    }
  }
  return out;
}

/** Backslash-escaped Markdown: specials appear only escaped, and unescaping gives the text back. */
// Adaptive Cards' JavaScript renderer hands TextBlock text to markdown-it; its default preset is the
// reference here: escaped text must come out as paragraphs of plain text only.
const markdown = createRequire(import.meta.url)('markdown-it') as () => { render(src: string): string };
const md = markdown();

/** The text a card shows for Markdown `src`: fails if the HTML holds anything but plain paragraphs. */
function shown(src: string): string {
  const html = md.render(src);
  const tags = html.match(/<[^>]*>/g) ?? [];
  for (const tag of tags) if (!['<p>', '</p>'].includes(tag)) throw new Error(`${tag} in ${JSON.stringify(html)}`);
  return html
    .split(/<\/?p>/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) =>
      p
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&quot;/g, '"')
        .replace(/&amp;/g, '&'),
    )
    .join('\n');
}

/** What a paragraph per line shows of `s` (blanks at the edges and empty lines are Markdown's to drop). */
function typed(s: string): string {
  return s
    .replace(/\u0000/g, '\ufffd')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean)
    .join('\n');
}

function rendersAsTyped(text: string): void {
  shown(text);
}

function unescapeMarkdown(s: string, specials: RegExp): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\') out += s[++i] ?? '';
    else if (specials.test(s[i]!)) throw new Error(`unescaped ${JSON.stringify(s[i])} in ${JSON.stringify(s)}`);
    else out += s[i];
  }
  return out;
}

describe('hostile text from nodes and config', () => {
  it('slack: only plain_text carries it; mrkdwn holds only our links; the fallback text has no < or >', () => {
    fc.assert(
      fc.property(texts, (t) => {
        const p = payload('slack', note(t));
        for (const { text, holder } of strings(p.blocks, 'text')) {
          if (holder.type === 'mrkdwn')
            expect(text).toMatch(/^(<https:\/\/[^\s|<>]+\|(runbook|Fleet status page)>|\.\.\. and \d+ more)$/);
          else if (holder.type === 'plain_text') expect(holder.emoji).toBe(false);
        }
        expect(p.text as string).not.toMatch(/[<>]/);
        expect(JSON.stringify(p.blocks)).toContain(JSON.stringify(t.summary).slice(1, -1));
      }),
    );
  });

  it('telegram: HTML holds only our tags, every & is an entity, and the text reads back as typed', () => {
    fc.assert(
      fc.property(texts, (t) => {
        const text = payload('telegram', note(t)).text as string;
        const rest = text.replace(/<\/?b>|<a href="https:\/\/[^"<>&]*(?:&amp;[^"<>&]*)*">|<\/a>/g, '');
        expect(rest).not.toMatch(/[<>]/);
        expect(rest).not.toMatch(/&(?!(amp|lt|gt|quot);)/);
        expect((text.match(/<b>/g) ?? []).length).toBe((text.match(/<\/b>/g) ?? []).length);
        const shown = rest
          .replace(/&lt;/g, '<')
          .replace(/&gt;/g, '>')
          .replace(/&quot;/g, '"')
          .replace(/&amp;/g, '&');
        expect(shown).toContain(t.summary);
      }),
    );
  });

  it('discord: mentions disabled, and every Markdown special from the text is escaped', () => {
    fc.assert(
      fc.property(texts, hostile, (t, s) => {
        const p = payload('discord', note(t));
        expect(p.allowed_mentions).toEqual({ parse: [] });
        expect(p.content as string).toContain(escapeMarkdown(t.summary));
        expect(unescapeMarkdown(escapeMarkdown(s), /[\\*_~`|>#\-[\]()<@:!+=.]/)).toBe(s);
      }),
    );
  });

  it('msteams: rendered as Markdown, every text block is its text as typed: no link, no formatting', () => {
    fc.assert(
      fc.property(texts, (t) => {
        const p = payload('msteams', note(t));
        for (const { text, holder } of strings(p, 'text')) if (holder.type === 'TextBlock') rendersAsTyped(text);
        for (const { text } of strings(p, 'url')) expect(text).toMatch(/^https:\/\/[^\s<>"]+$/);
        // The hostile text itself, alone: what it shows is exactly what it is.
        expect(shown(escapeTeamsMarkdown(t.summary))).toBe(typed(t.summary));
      }),
    );
  });

  it('msteams: punctuation Markdown does not act on stays unescaped', () => {
    expect(escapeTeamsMarkdown('r-2 (mainnet) is down (critical): v1.4.2 {x} a+b #3 val_eu_1 100%')).toBe(
      'r-2 (mainnet) is down (critical): v1.4.2 {x} a+b #3 val_eu_1 100%',
    );
    expect(escapeTeamsMarkdown('[x](https://evil.example) *b* _i_ `c` <https://e.example> - li')).toBe(
      '\\[x\\](https://evil.example) \\*b\\* \\_i\\_ \\`c\\` \\<https://e.example> - li',
    );
    expect(escapeTeamsMarkdown('- item\n1. two\n# h')).toBe('\\- item\n\n1\\. two\n\n\\# h');
  });

  it('ntfy: the title names the node or watched entry (at most three, then how many more)', () => {
    const one = note({ node: 'r-2', network: 'mainnet', summary: 's', description: 'd' });
    one.alerts = one.alerts.slice(0, 1);
    expect(payload('ntfy', one).title).toBe('[FIRING:1] LedgerNodeDown mainnet: r-20');
    const entry: Notification = {
      ...one,
      groupLabels: { alertname: 'LedgerValidatorOffline' },
      alerts: [
        { ...one.alerts[0]!, labels: { alertname: 'LedgerValidatorOffline', name: 'val-1', severity: 'warning' } },
      ],
    };
    expect(payload('ntfy', entry).title).toBe('[FIRING:1] LedgerValidatorOffline: val-1');
    const many = note({ node: 'n', network: 'm', summary: 's', description: 'd' }, 5);
    expect(payload('ntfy', many).title).toMatch(/^\[FIRING:\d+\] LedgerNodeDown m: n0, n1, n2 and \d+ more$/);
  });

  it('ntfy: plain text (Markdown off), shown as typed, priority and tags from the severity only', () => {
    fc.assert(
      fc.property(texts, (t) => {
        const p = payload('ntfy', note(t));
        expect(p).toMatchObject({ topic: 'ops', markdown: false, priority: 5, tags: ['rotating_light'] });
        expect(p.message as string).toContain(t.summary);
      }),
    );
  });
});

describe('email', () => {
  it('the HTML part holds only our tags and reads back as typed; the subject has no line breaks', () => {
    fc.assert(
      fc.property(texts, (t) => {
        const mail = mailOf(note(t), CTX);
        const rest = mail.html.replace(
          /<!doctype html>|<\/?(html|body|h2|ul|li|b|p)>|<br>|<a href="https:\/\/[^"<>&]*(?:&amp;[^"<>&]*)*">|<\/a>/g,
          '',
        );
        expect(rest).not.toMatch(/[<>]/);
        expect(rest).not.toMatch(/&(?!(amp|lt|gt|quot);)/);
        expect(mail.subject).not.toMatch(/[\r\n]/);
        expect(mail.text).toContain(t.summary);
      }),
    );
  });
});

describe('opsgenie, plain text', () => {
  it('keeps the message within 130 characters and shows every text as typed', () => {
    fc.assert(
      fc.property(texts, (t) => {
        const p = payload('opsgenie', note(t));
        expect([...(p.message as string)].length).toBeLessThanOrEqual(130);
        expect(p.description as string).toContain(t.summary);
        expect(p).toMatchObject({ priority: 'P1', source: 'ledger-fleet-exporter' });
      }),
    );
  });
});

describe('a message over its channel limit', () => {
  const many = note(
    { node: 'n', network: 'main', summary: 'Ledger node is down '.repeat(10), description: 'd'.repeat(1000) },
    300,
  );
  const more = (s: string) => Number(/\.\.\. and (\d+) more/.exec(s)?.[1]);

  it('telegram, discord and ntfy shorten it with "... and N more", N being the alerts left out', () => {
    const tg = payload('telegram', many).text as string;
    expect(tg.length).toBeLessThanOrEqual(4096);
    expect((tg.match(/🔴|🟢/g) ?? []).length + more(tg)).toBe(300);
    const dc = payload('discord', many).content as string;
    expect(dc.length).toBeLessThanOrEqual(2000);
    expect((dc.match(/🔴|🟢/g) ?? []).length + more(dc)).toBe(300);
    const nt = payload('ntfy', many).message as string;
    expect(Buffer.byteLength(nt)).toBeLessThanOrEqual(4096);
    expect((nt.match(/^(FIRING|RESOLVED): /gm) ?? []).length + more(nt)).toBe(300);
  });

  it('slack and msteams show at most 20 alerts and say how many more', () => {
    const slack = JSON.stringify(payload('slack', many).blocks);
    expect(slack).toContain('... and 280 more');
    const teams = JSON.stringify(payload('msteams', many));
    expect(teams).toContain(JSON.stringify(escapeTeamsMarkdown('... and 280 more')).slice(1, -1));
    expect(teams.length).toBeLessThan(28_000);
  });
});
