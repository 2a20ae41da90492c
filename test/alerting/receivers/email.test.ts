// The email kind against a real SMTP server run in the test (smtp-server, from nodemailer's
// project): STARTTLS with a test CA and AUTH, implicit TLS, plain text and HTML parts, Alertmanager's
// subject; a temporary 451 is retried, refused credentials are not; the dry check connects, says
// EHLO and authenticates without sending; in the daemon a dead node mails and its revival resolves.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Notification } from '../../../src/alerting/notify/notification.js';
import { runNotifyTest } from '../../../src/cli/notifyTest.js';
import { dryCheckReceivers } from '../../../src/alerting/receivers/dryCheck.js';
import type { ReceiverSettings } from '../../../src/alerting/receivers/kind.js';
import { materializeReceiver } from '../../../src/alerting/receivers/materialize.js';
import { loadConfigFile } from '../../../src/config/index.js';
import { HttpClient } from '../../../src/http/client.js';
import { Secrets } from '../../../src/redact.js';
import { SimFleet } from '../../../src/sim/index.js';
import { closeAlertingRig, deliveriesLogged, startAlertingDaemon } from '../../support/alertingDaemon.js';
import { waitFor } from '../../support/processes.js';
import { writeNodeDownYaml } from '../../support/nodeDownYaml.js';
import { deliverOnce } from '../../support/receiverTests.js';
import { issue, makeCa, serverExt } from '../../support/testCa.js';

const PASSWORD = 'smtp-password-canary-4711';
const CTX = { externalUrl: 'https://fleet.example.org', now: Date.UTC(2026, 10, 27, 12) };
const dir = mkdtempSync(path.join(tmpdir(), 'lfe-email-'));
makeCa(dir, 'ca', 30);
const leaf = issue(dir, 'ca', 'smtp', 30, serverExt('IP:127.0.0.1'));

interface Received {
  from: string;
  to: string[];
  user?: string;
  secure: boolean;
  raw: string;
}
const received: Received[] = [];
/** Answers the next recipients get (then they are accepted). */
const rcptAnswers: number[] = [];

function smtpServer(secure: boolean): Promise<{ server: SMTPServer; port: number }> {
  const options: SMTPServerOptions = {
    secure,
    key: readFileSync(leaf.key),
    cert: readFileSync(leaf.cert),
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === 'exporter' && auth.password === PASSWORD) return cb(null, { user: 'exporter' });
      cb(Object.assign(new Error('5.7.8 Authentication credentials invalid'), { responseCode: 535 }));
    },
    onRcptTo(_address, _session, cb) {
      const code = rcptAnswers.shift();
      cb(code ? Object.assign(new Error('4.3.0 Mailbox temporarily unavailable'), { responseCode: code }) : null);
    },
    onData(stream, session, cb) {
      let raw = '';
      stream.setEncoding('utf8');
      stream.on('data', (c: string) => (raw += c));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          user: session.user as string | undefined,
          secure: session.secure,
          raw,
        });
        cb();
      });
    },
  };
  const server = new SMTPServer(options);
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.server.address() as AddressInfo).port })),
  );
}

let starttls: { server: SMTPServer; port: number };
let implicit: { server: SMTPServer; port: number };
const secrets = new Secrets();
const client = new HttpClient({ secrets });

beforeAll(async () => {
  starttls = await smtpServer(false);
  implicit = await smtpServer(true);
});
afterAll(async () => {
  await client.close();
  await new Promise<void>((r) => starttls.server.close(() => r()));
  await new Promise<void>((r) => implicit.server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

const mailer = (over: Partial<ReceiverSettings> = {}): ReceiverSettings => ({
  name: 'mail',
  kind: 'email',
  host: '127.0.0.1',
  port: starttls.port,
  tls: 'starttls',
  from: 'exporter@example.org',
  to: ['oncall@example.org', 'backup@example.org'],
  username: 'exporter',
  password: { value: PASSWORD },
  caFile: path.join(dir, 'ca.crt'),
  timeoutMs: 3000,
  ...over,
});

const note: Notification = {
  receiver: 'mail',
  groupKey: '0:{alertname="LedgerNodeDown",network="mainnet"}',
  groupLabels: { alertname: 'LedgerNodeDown', network: 'mainnet' },
  status: 'firing',
  alerts: ['a', 'b', 'c'].map((n) => ({
    id: `id-${n}-0123456789abcdef`,
    status: 'firing' as const,
    labels: { alertname: 'LedgerNodeDown', severity: 'critical', node: n, network: 'mainnet' },
    annotations: { summary: `Ledger node ${n} <down>`, description: 'No answer & no blocks.' },
    startsAt: CTX.now,
  })),
  createdAt: CTX.now,
};

const deliver = (r: ReceiverSettings) => deliverOnce(r, note, { client, secrets, ctx: CTX, timeoutMs: 15_000 });

describe('email over SMTP', () => {
  it("STARTTLS and AUTH: one mail to all recipients, Alertmanager's subject, text and HTML parts", async () => {
    received.length = 0;
    const { report } = await deliver(mailer());
    expect(report).toMatchObject({ result: 'success', attempts: 1, status: 250 });
    expect(received).toHaveLength(1);
    const mail = received[0]!;
    expect(mail).toMatchObject({
      from: 'exporter@example.org',
      to: ['oncall@example.org', 'backup@example.org'],
      user: 'exporter',
      secure: true,
    });
    expect(mail.raw).toMatch(/^Subject: \[FIRING:3\] LedgerNodeDown mainnet\r?$/m);
    expect(mail.raw).toMatch(/Content-Type: multipart\/alternative/);
    expect(mail.raw).toMatch(/Content-Type: text\/plain/);
    expect(mail.raw).toMatch(/Content-Type: text\/html/);
    expect(mail.raw).toContain('FIRING: Ledger node a <down> (critical)');
    expect(mail.raw).toContain('Ledger node a &lt;down&gt;');
  });

  it('implicit TLS (tls: tls) delivers too', async () => {
    received.length = 0;
    const { report } = await deliver(mailer({ port: implicit.port, tls: 'tls' }));
    expect(report.result).toBe('success');
    expect(received[0]?.secure).toBe(true);
  });

  it('retries a temporary 451 with backoff; refused credentials (535) fail at once, password unshown', async () => {
    received.length = 0;
    rcptAnswers.push(451);
    const retried = await deliver(mailer());
    expect(retried.report).toMatchObject({ result: 'success', attempts: 2 });
    expect(retried.sleeps).toHaveLength(1);
    const refused = await deliver(mailer({ password: { value: 'wrong-password-canary' } }));
    expect(refused.report).toMatchObject({ result: 'failure', attempts: 1, status: 535 });
    expect(refused.report.message).toMatch(/EAUTH/);
    expect(refused.report.message).not.toContain('wrong-password-canary');
  });

  it('dry check: connects, says EHLO and authenticates, and sends no mail', async () => {
    received.length = 0;
    const good = await materializeReceiver(mailer(), secrets);
    const bad = await materializeReceiver(
      mailer({ name: 'mail-bad', password: { value: 'wrong-password-canary' } }),
      secrets,
    );
    const [ok, refused] = await dryCheckReceivers([good, bad], (req) => client.send(req));
    expect(ok).toMatchObject({ ok: true, detail: 'SMTP smarthost answers EHLO and accepts the credentials' });
    expect(refused!.ok).toBe(false);
    expect(refused!.detail).toMatch(/EAUTH/);
    expect(refused!.detail).not.toContain('wrong-password-canary');
    expect(received).toHaveLength(0);
  });

  it('refuses tls: none to a smarthost off loopback', async () => {
    const file = path.join(dir, 'bad.yaml');
    writeFileSync(
      file,
      stringify({
        nodes: [{ name: 'n1', url: 'http://127.0.0.1:1' }],
        alerting: {
          receivers: [
            {
              name: 'm',
              email: { smarthost: 'smtp.example.org:25', from: 'a@example.org', to: ['b@example.org'], tls: 'none' },
            },
          ],
        },
      }),
    );
    await expect(loadConfigFile(file)).rejects.toThrow(
      /bad\.yaml:\d+:\d+: .*tls: none is only allowed to a loopback smarthost/,
    );
  });

  it(
    'in the daemon: a dead node mails and its revival resolves; notify-test says SMTP 250',
    { timeout: 60_000 },
    async () => {
      received.length = 0;
      const fleet = await SimFleet.start([{ name: 'mail-1', network: 'mainnet', build: 'current', peers: 5 }], {
        host: '127.0.0.1',
        layout: 'port-per-node',
        blockTimeMs: 500,
      });
      writeFileSync(path.join(dir, 'smtp-password'), `${PASSWORD}\n`);
      const email = {
        smarthost: `127.0.0.1:${starttls.port}`,
        from: 'exporter@example.org',
        to: ['oncall@example.org'],
        username: 'exporter',
        passwordFile: 'smtp-password',
        caFile: 'ca.crt',
      };
      const configFile = writeNodeDownYaml(dir, fleet.nodes, 'mainnet', [{ name: 'mail', email }]);
      const { daemon, log } = await startAlertingDaemon(await loadConfigFile(configFile));
      try {
        await waitFor('first poll round', () => (daemon.ready() ? true : undefined), { timeoutMs: 20_000 });
        await fleet.node('mail-1').kill();
        await waitFor(
          'a firing mail',
          () => (received.some((m) => m.raw.includes('Subject: [FIRING:1] LedgerNodeDown mainnet')) ? true : undefined),
          { timeoutMs: 20_000, context: log },
        );
        await fleet.node('mail-1').revive();
        // A delivery is counted once the server's answer is back at the daemon, after the server has the mail.
        const delivered = () => deliveriesLogged(log());
        await waitFor(
          'a resolved mail, and its answer back at the daemon',
          () =>
            received.some((m) => m.raw.includes('Subject: [RESOLVED] LedgerNodeDown mainnet')) && delivered() >= 2
              ? true
              : undefined,
          { timeoutMs: 20_000, context: log },
        );
        const metrics = await (await fetch(`${daemon.url}/metrics`)).text();
        expect(metrics).toMatch(/ledger_alert_notifications_total\{receiver="mail",result="success"\} 2\n/);
        expect(log()).not.toContain('failed its start-up check');
        expect(log()).not.toContain(PASSWORD);
      } finally {
        await closeAlertingRig({ daemon, fleet });
      }
      const lines: string[] = [];
      expect(
        await runNotifyTest(['--config', configFile], { secrets: new Secrets(), write: (l) => void lines.push(l) }),
      ).toBe(0);
      expect(lines).toEqual(['mail (email): ok (SMTP 250)']);
    },
  );
});
