// An SMTP server that drips one EHLO continuation line a second never trips nodemailer's per-phase
// and per-line timeouts: every attempt of the email kind is still bounded by the receiver's timeout
// (one overall deadline): the queue records a failed attempt and moves on, notify-test answers, the
// start-up check fails in time, and the exporter closes its connection each time.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Notification } from '../../../src/alerting/notify/notification.js';
import { dryCheckReceivers } from '../../../src/alerting/receivers/dryCheck.js';
import type { ReceiverSettings } from '../../../src/alerting/receivers/kind.js';
import { deliveryParts, kindSend, materializeReceiver } from '../../../src/alerting/receivers/materialize.js';
import { DEFAULT_RETRY, ReceiverQueue, type DeliveryReport } from '../../../src/alerting/notify/queue.js';
import { runNotifyTest } from '../../../src/cli/notifyTest.js';
import { HttpClient } from '../../../src/http/client.js';
import { Secrets } from '../../../src/redact.js';
import { waitFor } from '../../support/processes.js';

const CTX = { externalUrl: 'https://fleet.example.org', now: Date.UTC(2026, 10, 28, 12) };

let drip: net.Server;
let port: number;
const open = new Set<net.Socket>();
let closedByClient = 0;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'lfe-email-drip-'));
  // Greets, then answers EHLO with one continuation line a second and never the last line.
  drip = net.createServer((socket) => {
    open.add(socket);
    let timer: NodeJS.Timeout | undefined;
    socket.on('close', () => {
      clearInterval(timer);
      open.delete(socket);
      closedByClient++;
    });
    socket.on('error', () => undefined);
    socket.write('220 drip.example.org ESMTP\r\n');
    socket.on('data', (chunk: Buffer) => {
      if (timer || !/^(EHLO|HELO)/im.test(chunk.toString('latin1'))) return;
      let n = 0;
      timer = setInterval(() => socket.write(`250-drip.example.org continuation ${++n}\r\n`), 1000);
    });
  });
  await new Promise<void>((r) => drip.listen(0, '127.0.0.1', r));
  port = (drip.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const s of open) s.destroy();
  await new Promise((r) => drip.close(r));
  rmSync(dir, { recursive: true, force: true });
});

const mailer = (timeoutMs: number): ReceiverSettings => ({
  name: 'mail',
  kind: 'email',
  host: '127.0.0.1',
  port,
  tls: 'none',
  from: 'exporter@example.org',
  to: ['oncall@example.org'],
  timeoutMs,
});

const note: Notification = {
  receiver: 'mail',
  groupKey: '0:{alertname="LedgerNodeDown"}',
  groupLabels: { alertname: 'LedgerNodeDown' },
  status: 'firing',
  alerts: [
    {
      id: 'id-a-0123456789abcdef',
      status: 'firing',
      labels: { alertname: 'LedgerNodeDown', severity: 'critical', node: 'a', network: 'mainnet' },
      annotations: { summary: 'Ledger node a down' },
      startsAt: CTX.now,
    },
  ],
  createdAt: CTX.now,
};

describe('an SMTP server dripping its EHLO answer', () => {
  it('fails each queued attempt at the receiver timeout; the queue gives up and the sockets close', async () => {
    // 2.5 s: longer than the drip's pace, so nodemailer's own per-line timeout never trips.
    const r = mailer(2_500);
    const secrets = new Secrets();
    const client = new HttpClient({ secrets });
    const spec = await materializeReceiver(r, secrets);
    const reports: DeliveryReport[] = [];
    const queue = new ReceiverQueue({
      receiver: r.name,
      send: kindSend(r, { client, secrets }),
      sleep: async () => undefined,
      now: Date.now,
      random: () => 0.5,
      retry: { ...DEFAULT_RETRY, maxAttempts: 2 },
      onReport: (x) => reports.push(x),
    });
    const before = closedByClient;
    const t0 = performance.now();
    try {
      queue.enqueue(note, deliveryParts(spec, note, CTX));
      await waitFor('the delivery report', () => reports.length > 0, { timeoutMs: 15_000 });
    } finally {
      await client.close();
    }
    expect(reports[0]).toMatchObject({ result: 'failure', attempts: 2 });
    expect(reports[0]!.message).toMatch(/email mail: no answer within 2500 ms/);
    // Two attempts of a 2.5 s deadline (and its grace), not the drip's pace for ever.
    expect(performance.now() - t0).toBeLessThan(2 * 3_500 + 1_000);
    await waitFor('the exporter closed both connections', () => closedByClient - before >= 2, { timeoutMs: 5_000 });
  }, 30_000);

  it('notify-test reports the receiver failed within its timeout', async () => {
    const file = path.join(dir, 'fleet.yaml');
    writeFileSync(
      file,
      stringify({
        nodes: [{ name: 'n1', url: 'http://127.0.0.1:1' }],
        alerting: {
          receivers: [
            {
              name: 'mail',
              email: {
                smarthost: `127.0.0.1:${port}`,
                from: 'a@example.org',
                to: ['b@example.org'],
                tls: 'none',
                timeout: '2500ms',
              },
            },
          ],
        },
      }),
    );
    const lines: string[] = [];
    const code = await runNotifyTest(['--config', file], { secrets: new Secrets(), write: (l) => void lines.push(l) });
    expect(code).toBe(1);
    expect(lines).toEqual([expect.stringMatching(/^mail \(email\): failed: .*no answer within 2500 ms/)]);
  }, 15_000);

  it('the start-up check fails at its deadline instead of waiting', async () => {
    const spec = await materializeReceiver(mailer(2_500), new Secrets());
    const client = new HttpClient({ secrets: new Secrets() });
    try {
      const [result] = await dryCheckReceivers([spec], (req) => client.send(req));
      expect(result).toMatchObject({ receiver: 'mail', ok: false });
      expect(result!.detail).toMatch(/email mail: no answer within 5000 ms/);
    } finally {
      await client.close();
    }
  }, 15_000);
});
