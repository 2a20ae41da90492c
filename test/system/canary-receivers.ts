// Receiver part of the confinement proof, run from test/canary.test.ts (not a test file of its own,
// so one canary test covers every kind of secret). The real exporter (dist/cli.js) pages through receivers
// whose URLs, routing keys, tokens and passwords are canaries (from the config, the environment
// and files). Receivers echo what they got in 500 answers. Every output is then searched for
// every canary in every encoding: logs, /metrics, /api/alerts, the status page, the alert state
// file and notify-test's output. The fake receivers prove the secrets were really sent.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
import { SimFleet } from '../../src/sim/index.js';
import { findCanaries, makeCanary, type Canary } from '../support/canaries.js';
import { requireBuiltCli, runCli, startDaemonProcess, type DaemonProcess } from '../support/cliProcess.js';
import { writeNodeDownYaml } from '../support/nodeDownYaml.js';
import { waitFor, waitReady } from '../support/processes.js';

const C = {
  slackPath: makeCanary('r1-slack-url'),
  routingKey: makeCanary('r2-pd-routing-key'),
  hookToken: makeCanary('r3-webhook-token-env'),
  amBearer: makeCanary('r4-am-bearer-file'),
  amPassword: makeCanary('r5-am-basic-password'),
  tgToken: makeCanary('r6-telegram-bot-token-file'),
  discordPath: makeCanary('r7-discord-webhook-url'),
  ntfyToken: makeCanary('r8-ntfy-token'),
  teamsPath: makeCanary('r9-teams-webhook-url-file'),
  genieKey: makeCanary('r10-opsgenie-api-key'),
  smtpPassword: makeCanary('r11-smtp-password'),
};
/** Letters only: no digit, so nothing about it looks like a token (about 1.5% of Slack's do not have one). */
const letters = (n: number) =>
  Array.from(randomBytes(n), (b) => String.fromCharCode((b % 26) + (b & 32 ? 97 : 65))).join('');
const WORDS = {
  slackToken: { label: 'r6-slack-token-without-digit', value: letters(24) },
  slackTeam: { label: 'r6-slack-team', value: `T${letters(9).toUpperCase()}` },
  hookToken: { label: 'r7-webhook-short-path-token', value: letters(6) },
};
const CANARIES: Canary[] = [...Object.values(C), ...Object.values(WORDS)];

describe('receiver secrets never leave their receiver', () => {
  let dir = '';
  let fleet: SimFleet;
  let fake: Server;
  let smtp: SMTPServer | undefined;
  let exporter: DaemonProcess | undefined;
  const seen: string[] = [];
  const outputs: Array<{ name: string; text: string }> = [];
  let configPath = '';
  let failAll = () => {};
  const env = { ...process.env, HOOK_TOKEN: C.hookToken.value };

  beforeAll(async () => {
    requireBuiltCli();
    dir = await mkdtemp(join(tmpdir(), 'lfe-canary-alerting-'));
    fleet = await SimFleet.start(
      [
        { name: 'cn-1', network: 'cn', build: 'current', peers: 5 },
        { name: 'cn-2', network: 'cn', build: 'current', peers: 5 },
      ],
      { host: '127.0.0.1', layout: 'port-per-node', blockTimeMs: 500 },
    );
    // Fails every first request of a path and echoes it back (headers and body), succeeds after.
    const hits = new Map<string, number>();
    let alwaysFail = false;
    failAll = () => (alwaysFail = true);
    fake = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        const echo = `${req.method} ${req.url}\n${JSON.stringify(req.headers)}\n${body}`;
        seen.push(decodeURIComponent(echo));
        const n = (hits.get(req.url ?? '') ?? 0) + 1;
        hits.set(req.url ?? '', n);
        // Express-style refusal: the path in clear in a 404's body.
        const words = (req.url ?? '').startsWith('/services/') || (req.url ?? '').startsWith('/hooks/');
        if (words && (n === 1 || alwaysFail))
          return res.writeHead(404, { 'content-type': 'text/html' }).end(`<pre>Cannot POST ${req.url}</pre>\n${echo}`);
        if (n === 1 || alwaysFail)
          return res
            .writeHead(500, { 'content-type': 'text/plain', 'x-echo': encodeURIComponent(echo).slice(0, 4000) })
            .end(echo);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
    // The SMTP smarthost: refuses each first recipient with a 451 that echoes the password it was given.
    let rcpts = 0;
    smtp = new SMTPServer({
      allowInsecureAuth: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onAuth: (auth, _s, cb) => {
        seen.push(`AUTH /smtp ${auth.username}:${auth.password ?? ''}`);
        cb(null, { user: auth.username });
      },
      onRcptTo: (_a, session, cb) => {
        seen.push(`RCPT /smtp ${String(session.user)}`);
        const fail = ++rcpts % 2 === 1 || alwaysFail;
        cb(fail ? Object.assign(new Error(`4.3.0 try again, ${C.smtpPassword.value}`), { responseCode: 451 }) : null);
      },
      onData: (stream, _s, cb) => {
        stream.resume();
        stream.on('end', () => cb());
      },
    });
    await new Promise<void>((r) => smtp!.listen(0, '127.0.0.1', () => r()));
    const smtpPort = (smtp.server.address() as AddressInfo).port;
    await writeFile(join(dir, 'am-bearer'), `${C.amBearer.value}\n`);
    await writeFile(join(dir, 'pd-key'), C.routingKey.value);
    await writeFile(join(dir, 'tg-token'), `${C.tgToken.value}\n`);
    await writeFile(join(dir, 'teams-url'), `${base}/teams/${encodeURIComponent(C.teamsPath.value)}\n`);
    configPath = writeNodeDownYaml(
      dir,
      fleet.nodes,
      'cn',
      [
        { name: 'slack', slack: { webhookUrl: `${base}/slack/${encodeURIComponent(C.slackPath.value)}` } },
        { name: 'pager', pagerduty: { routingKeyFile: join(dir, 'pd-key'), url: `${base}/pd` } },
        { name: 'hook', webhook: { url: `${base}/hook`, headers: { authorization: 'Bearer ${HOOK_TOKEN}' } } },
        { name: 'am', alertmanager: { urls: [`${base}/am1`], bearerTokenFile: join(dir, 'am-bearer') } },
        {
          name: 'am-basic',
          alertmanager: { urls: [`${base}/am2`], basicAuth: { username: 'ops', password: C.amPassword.value } },
        },
        { name: 'tg', telegram: { botTokenFile: join(dir, 'tg-token'), chatId: '-100123', apiUrl: `${base}/tg` } },
        { name: 'discord', discord: { webhookUrl: `${base}/discord/${encodeURIComponent(C.discordPath.value)}` } },
        { name: 'phone', ntfy: { url: `${base}/ntfy/oncall`, token: C.ntfyToken.value } },
        { name: 'teams', msteams: { webhookUrlFile: join(dir, 'teams-url') } },
        { name: 'genie', opsgenie: { apiKey: C.genieKey.value, url: `${base}/opsgenie` } },
        {
          name: 'mail',
          email: {
            smarthost: `127.0.0.1:${smtpPort}`,
            from: 'x@example.org',
            to: ['y@example.org'],
            username: 'ops',
            password: C.smtpPassword.value,
            tls: 'none',
          },
        },
        {
          name: 'slack-words',
          slack: { webhookUrl: `${base}/services/${WORDS.slackTeam.value}/BWORDS/${WORDS.slackToken.value}` },
        },
        { name: 'hook-short', webhook: { url: `${base}/hooks/${WORDS.hookToken.value}` } },
      ],
      { for: '1s' },
    );
  }, 60_000);

  afterAll(async () => {
    await exporter?.stop();
    await fleet?.close();
    await new Promise<void>((r) => (smtp ? smtp.close(() => r()) : r()));
    fake?.closeAllConnections();
    await new Promise((r) => fake?.close(r));
    await rm(dir, { recursive: true, force: true });
  });

  it(
    'pages through every receiver (secrets sent), retries the echoed 500s, and no output holds a canary',
    { timeout: 120_000 },
    async () => {
      exporter = await startDaemonProcess(['--config', configPath, '--log-format', 'json'], { env });
      await waitReady(exporter.url, 'first poll round', { timeoutMs: 20_000 });
      await fleet.node('cn-2').kill();
      // Each receiver: a 500 echoing everything, then a success after the retry.
      await waitFor(
        'every receiver retried after its 500',
        () =>
          [
            '/slack',
            '/pd',
            '/hook',
            '/am1',
            '/am2',
            '/tg',
            '/discord',
            '/ntfy',
            '/teams',
            '/opsgenie',
            '/smtp',
            '/services/',
            '/hooks/',
          ].every((p) => seen.filter((s) => s.includes(` ${p}`)).length >= 2)
            ? true
            : undefined,
        { timeoutMs: 30_000 },
      );
      // The secrets really were sent (so the search below cannot pass by sending nothing).
      const sent = seen.join('\n');
      for (const c of CANARIES.filter((x) => x !== C.amPassword)) expect(sent, c.label).toContain(c.value);
      expect(sent).toContain(`"authorization":"Basic ${Buffer.from(`ops:${C.amPassword.value}`).toString('base64')}"`);

      for (const p of ['/metrics', '/api/alerts', '/', '/api/v1/status']) {
        const res = await fetch(`${exporter.url}${p}`);
        outputs.push({ name: `GET ${p}`, text: await res.text() });
      }
      const alerts = outputs.find((o) => o.name === 'GET /api/alerts')!.text;
      expect(alerts).toContain('LedgerNodeDown');
      const run = await exporter.stop();
      exporter = undefined;
      outputs.push({ name: 'stdout', text: run.stdout }, { name: 'stderr', text: run.stderr });
      expect(run.stdout).toContain('notification sent');
      for (const f of await readdir(join(dir, 'state')))
        outputs.push({ name: `state/${f}`, text: await readFile(join(dir, 'state', f), 'utf8') });

      // notify-test: once with successes, once with every receiver answering 500 and echoing the request.
      const ok = await runCli(['notify-test', '--config', configPath], { env, timeoutMs: 30_000 });
      expect(ok.stdout).toMatch(/^slack \(slack\): ok/m);
      failAll();
      const bad = await runCli(['notify-test', '--config', configPath], { env, timeoutMs: 30_000 });
      expect(bad.code).toBe(1);
      expect(bad.stdout).toMatch(/^pager \(pagerduty\): failed: .*HTTP 500/m);
      for (const r of [
        'tg \\(telegram\\)',
        'discord \\(discord\\)',
        'phone \\(ntfy\\)',
        'teams \\(msteams\\)',
        'genie \\(opsgenie\\)',
      ]) {
        expect(ok.stdout).toMatch(new RegExp(`^${r}: ok`, 'm'));
        expect(bad.stdout).toMatch(new RegExp(`^${r}: failed: .*HTTP 500`, 'm'));
      }
      expect(bad.stdout).toMatch(/^mail \(email\): failed: .*451/m);
      outputs.push(
        { name: 'notify-test ok', text: ok.stdout + ok.stderr },
        { name: 'notify-test failing', text: bad.stdout + bad.stderr },
      );

      const hits = outputs.flatMap((o) => findCanaries(o.name, o.text, CANARIES));
      expect(hits).toEqual([]);
    },
  );
});
