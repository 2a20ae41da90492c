// Slack reads the top-level `text` (the notification and fallback) as mrkdwn, as it reads the
// blocks: node-supplied text in a summary must not mention @channel or make a link there either.
import { describe, expect, it } from 'vitest';
import { slackPayload } from '../../src/alerting/receivers/slack.js';

describe('Slack payload text', () => {
  it('escapes mrkdwn control characters in the top-level text as in the blocks', () => {
    const hostile = 'node <!channel> says <https://evil.example|click> & more';
    const payload = slackPayload(
      { name: 's', kind: 'slack', webhookUrl: 'https://hooks.slack.com/services/T/B/x' },
      {
        receiver: 's',
        groupKey: 'g',
        groupLabels: { alertname: 'LedgerNodeDown' },
        status: 'firing',
        createdAt: 0,
        alerts: [
          {
            id: 'a',
            status: 'firing',
            labels: { alertname: 'LedgerNodeDown', severity: 'critical' },
            annotations: { summary: hostile },
            startsAt: 0,
          },
        ],
      },
      { externalUrl: 'http://127.0.0.1:9715', now: 0 },
    ) as { text: string; blocks: Array<{ text?: { type: string; text: string } }> };
    expect(payload.text).toContain('node &lt;!channel&gt; says &lt;https://evil.example|click&gt; &amp; more');
    expect(payload.text).not.toMatch(/<!channel>|<https:/);
    // In the blocks the same text is plain_text, which Slack never formats.
    for (const b of payload.blocks.filter((x) => x.text?.text.includes('channel')))
      expect(b.text!.type).toBe('plain_text');
  });
});
