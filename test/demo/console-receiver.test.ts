// The demo's console receiver prints one short block per notification, over real webhook HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notificationBlock, startConsoleReceiver, type ConsoleReceiver } from '../../src/demo/consoleReceiver.js';

const alert = (status: string, alertname: string, node: string, summary: string) => ({
  status,
  labels: { alertname, severity: 'critical', node, network: 'mainnet' },
  annotations: { summary },
});

describe('demo console receiver', () => {
  let receiver: ConsoleReceiver;
  const printed: string[] = [];
  beforeAll(async () => {
    receiver = await startConsoleReceiver((block) => printed.push(block));
  });
  afterAll(() => receiver.close());

  const send = (payload: unknown) =>
    fetch(receiver.url, {
      method: 'POST',
      body: JSON.stringify(payload),
      headers: { 'content-type': 'application/json' },
    });

  it('prints one block per notification: a head line, then one indented line per alert', async () => {
    printed.length = 0;
    const res = await send({
      version: '4',
      status: 'firing',
      alerts: [alert('firing', 'NodeDown', 'r-2', 'r-2 is down'), alert('firing', 'NodeDown', 'r-3', 'r-3 is down')],
    });
    expect(res.status).toBe(200);
    await send({ version: '4', status: 'resolved', alerts: [alert('resolved', 'NodeDown', 'r-2', 'r-2 is up')] });
    expect(printed).toEqual([
      '[demo receiver] notification (firing, 2 alerts):\n' +
        '  FIRING NodeDown critical r-2 (mainnet): r-2 is down\n' +
        '  FIRING NodeDown critical r-3 (mainnet): r-3 is down',
      '[demo receiver] notification (resolved, 1 alert):\n  RESOLVED NodeDown critical r-2 (mainnet): r-2 is up',
    ]);
    expect(receiver.received()).toBe(2);
  });

  it('keeps the block short: at most five alert lines, one line each', () => {
    const alerts = [
      alert('firing', 'NodeDown', 'a', 'a is down'),
      alert('firing', 'BehindHead', 'b', 'b is\n  behind'),
      ...Array.from({ length: 5 }, (_, i) => alert('firing', 'NodeDown', `n${i}`, 'down')),
    ];
    const block = notificationBlock({ status: 'firing', alerts })!;
    const lines = block.split('\n');
    expect(lines[0]).toBe('[demo receiver] notification (firing, 7 alerts):');
    expect(lines[2]).toBe('  FIRING BehindHead critical b (mainnet): b is behind');
    expect(lines).toHaveLength(1 + 5 + 1);
    expect(lines.at(-1)).toBe('  ... and 2 more');
  });

  it('prints nothing for a payload without alerts, and answers 400 to a body that is not JSON', async () => {
    printed.length = 0;
    expect(notificationBlock({ alerts: [] })).toBeUndefined();
    expect(notificationBlock(null)).toBeUndefined();
    expect((await send({ status: 'firing', alerts: [] })).status).toBe(200);
    expect((await fetch(receiver.url, { method: 'POST', body: 'nope' })).status).toBe(400);
    expect(printed).toEqual([]);
  });
});
