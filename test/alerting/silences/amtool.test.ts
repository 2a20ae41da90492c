// Silences through the real amtool (Debian's prometheus-alertmanager) against the real exporter
// (dist/cli.js) over loopback, basic auth in the URL: add, query, expire. A silenced alert is
// evaluated, listed (suppressed, silencedBy) and exported but not notified; a kill -9 while the
// silence holds neither forgets it nor, once expired, revives it; the alert is notified when the
// silence ends; an acknowledgement quiets one alert and ends when it resolves.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimFleet } from '../../../src/sim/index.js';
import { startExporter, type ExporterChild } from '../../support/exporterChild.js';
import { writeNodeDownYaml } from '../../support/nodeDownYaml.js';
import { waitFor, waitReady } from '../../support/processes.js';
import { basicAuth, withCredentials, writeWebConfig } from '../../support/webAuth.js';

const AMTOOL = '/usr/bin/amtool';
const USER = 'alice';
const PASSWORD = 'pa55:word';
const ALICE = { username: USER, password: PASSWORD };
const VICTIM = 'sil-2';
const WAIT = 20_000;
const run = promisify(execFile);

interface Hook {
  status: string;
  alerts: Array<{ status: string; labels: Record<string, string> }>;
}
interface V2Alert {
  fingerprint: string;
  labels: Record<string, string>;
  status: { state: string; silencedBy: string[] };
}
interface V2Silence {
  id: string;
  status: { state: string };
  createdBy: string;
  comment: string;
  endsAt: string;
  matchers: Array<{ name: string; value: string }>;
}

describe('silences through amtool against the exporter', () => {
  let dir = '';
  let fleet: SimFleet;
  let hook: Server;
  const received: Hook[] = [];
  let exporter: ExporterChild | undefined;
  let configPath = '';
  let webPath = '';

  beforeAll(async () => {
    if (!existsSync(AMTOOL)) throw new Error(`${AMTOOL} missing: apt-get install prometheus-alertmanager`);
    dir = mkdtempSync(path.join(tmpdir(), 'lfe-silences-'));
    fleet = await SimFleet.start(
      ['sil-1', VICTIM].map((name) => ({ name, network: 'sil', build: 'current' as const, peers: 5 })),
      { host: '127.0.0.1', layout: 'port-per-node', blockTimeMs: 500 },
    );
    hook = createServer((req, res) => {
      if (req.method !== 'POST') return void res.writeHead(204).end();
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        received.push(JSON.parse(body) as Hook);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    const hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/`;
    configPath = writeNodeDownYaml(dir, fleet.nodes, 'sil', [{ name: 'hook', webhook: { url: hookUrl } }], {
      for: '1s',
      alerting: { repeatInterval: '1h' },
    });
    webPath = writeWebConfig(dir, [ALICE]);
  }, 60_000);

  afterAll(async () => {
    await exporter?.kill();
    await fleet?.close();
    hook?.closeAllConnections();
    await new Promise((r) => hook?.close(r));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const start = async () => (exporter = await startExporter(configPath, ['--web.config.file', webPath]));
  const authUrl = () => withCredentials(exporter!.url, ALICE);
  const auth = () => basicAuth(ALICE);
  const amtool = async (...args: string[]) =>
    (await run(AMTOOL, [`--alertmanager.url=${authUrl()}`, ...args], { timeout: WAIT })).stdout;
  const get = async <T>(p: string): Promise<T> => {
    const res = await fetch(`${exporter!.url}${p}`, { headers: auth() });
    expect(res.status).toBe(200);
    return (await res.json()) as T;
  };
  const victimAlert = async () =>
    (await get<V2Alert[]>('/api/v2/alerts')).find(
      (a) => a.labels.node === VICTIM && a.labels.alertname === 'LedgerNodeDown',
    );
  const firingNotices = () =>
    received.filter((m) => m.status === 'firing' && m.alerts.some((a) => a.labels.node === VICTIM)).length;
  const querySilences = async (...flags: string[]) =>
    JSON.parse(await amtool('silence', 'query', '-o', 'json', ...flags)) as V2Silence[];

  it(
    'add, query and expire with amtool; muted but shown while silenced, across kill -9; notified once it ends',
    { timeout: 10 * WAIT },
    async () => {
      let e = await start();
      await waitReady(e.url, 'ready', { timeoutMs: WAIT, headers: auth() });

      // Anonymous writes are refused; amtool with user:password in the URL writes.
      const anonymous = await fetch(`${e.url}/api/v2/silences`, { method: 'POST' });
      expect(anonymous.status).toBe(401);
      const id = (
        await amtool('silence', 'add', `node=${VICTIM}`, '--duration=1h', '--comment=disk swap', `--author=${USER}`)
      ).trim();
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      const [listed] = await querySilences();
      expect(listed).toMatchObject({ id, status: { state: 'active' }, createdBy: USER, comment: 'disk swap' });
      expect(listed!.matchers).toEqual([{ name: 'node', value: VICTIM, isRegex: false, isEqual: true }]);
      const added = await e.waitForLog('the change logged', (l) => l.action === 'create' && l.id === id);
      expect(added).toMatchObject({ user: USER, via: 'api', createdBy: USER, matchers: `node="${VICTIM}"` });
      expect(JSON.stringify(e.logs())).not.toContain(PASSWORD);

      // The node goes down: the alert fires, is shown suppressed and exported, and is not notified.
      await fleet.node(VICTIM).kill();
      const alert = await waitFor(
        'suppressed alert',
        async () => {
          const a = await victimAlert();
          return a?.status.state === 'suppressed' ? a : undefined;
        },
        { timeoutMs: WAIT },
      );
      expect(alert.status.silencedBy).toEqual([id]);
      const v1 = (
        await get<{ alerts: Array<{ labels: Record<string, string>; state: string; silencedBy?: string }> }>(
          '/api/alerts',
        )
      ).alerts.find((a) => a.labels.node === VICTIM);
      expect(v1).toMatchObject({ state: 'firing', silencedBy: id });
      const metrics = await (await fetch(`${e.url}/metrics`, { headers: auth() })).text();
      expect(metrics).toContain('ledger_alerts{alertname="LedgerNodeDown",severity="critical",state="suppressed"} 1');
      expect(metrics).toContain('ledger_alert_silences{state="active"} 1');
      const alertQuery = await amtool('alert', 'query', '--silenced', '-o', 'json', `node=${VICTIM}`);
      expect((JSON.parse(alertQuery) as V2Alert[])[0]?.status.state).toBe('suppressed');
      await new Promise((r) => setTimeout(r, 3_000)); // three group intervals
      expect(firingNotices()).toBe(0);

      // kill -9 while silenced: the silence is not forgotten, the alert stays muted.
      await exporter!.kill();
      e = await start();
      expect((await querySilences())[0]).toMatchObject({ id, status: { state: 'active' } });
      await waitFor(
        'suppressed after the restart',
        async () => ((await victimAlert())?.status.state === 'suppressed' ? true : undefined),
        { timeoutMs: WAIT },
      );
      await new Promise((r) => setTimeout(r, 3_000));
      expect(firingNotices()).toBe(0);

      // amtool expires it: the alert, still firing, is notified.
      await amtool('silence', 'expire', id);
      expect(await querySilences()).toEqual([]); // amtool leaves expired ones out...
      expect((await querySilences('--expired'))[0]).toMatchObject({ id, status: { state: 'expired' } });
      await waitFor('notified once the silence ended', () => (firingNotices() === 1 ? true : undefined), {
        timeoutMs: WAIT,
      });
      expect((await victimAlert())?.status).toMatchObject({ state: 'active', silencedBy: [] });

      // kill -9 after the expiry: it is not revived.
      await exporter!.kill();
      e = await start();
      expect((await querySilences('--expired'))[0]).toMatchObject({ id, status: { state: 'expired' } });
      await waitFor(
        'active after the restart',
        async () => ((await victimAlert())?.status.state === 'active' ? true : undefined),
        { timeoutMs: WAIT },
      );
    },
  );

  it(
    'an acknowledgement quiets exactly its alert and ends when the alert resolves',
    { timeout: 4 * WAIT },
    async () => {
      const e = exporter!;
      const alert = (await victimAlert())!;
      const res = await fetch(`${e.url}/api/v1/alerts/ack`, {
        method: 'POST',
        headers: { ...auth(), 'content-type': 'application/json' },
        body: JSON.stringify({ fingerprint: alert.fingerprint, createdBy: 'bob', comment: 'on it' }),
      });
      expect(res.status).toBe(200);
      const { silenceID } = (await res.json()) as { silenceID: string };
      const ack = (await querySilences()).find((s) => s.id === silenceID)!;
      expect(ack).toMatchObject({ createdBy: 'bob', comment: 'ack: on it', status: { state: 'active' } });
      expect(Date.parse(ack.endsAt) - Date.now()).toBeGreaterThan(23 * 3_600_000);
      expect(ack.matchers.map((m) => m.name)).toEqual(Object.keys(alert.labels).sort());
      expect((await victimAlert())?.status).toMatchObject({ state: 'suppressed', silencedBy: [silenceID] });
      const unknown = await fetch(`${e.url}/api/v1/alerts/ack`, {
        method: 'POST',
        headers: { ...auth(), 'content-type': 'application/json' },
        body: JSON.stringify({ fingerprint: 'nope' }),
      });
      expect(unknown.status).toBe(404);

      await fleet.node(VICTIM).revive();
      await waitFor(
        'ack expired on resolve',
        async () => {
          const s = (await querySilences('--expired')).find((x) => x.id === silenceID);
          return s?.status.state === 'expired' ? true : undefined;
        },
        { timeoutMs: WAIT },
      );
      // The resolve goes where the firing notice went.
      await waitFor(
        'resolved notice',
        () =>
          received.some((m) => m.status === 'resolved' && m.alerts.some((a) => a.labels.node === VICTIM)) || undefined,
        { timeoutMs: WAIT },
      );
    },
  );
});
