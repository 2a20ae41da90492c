// Two real daemons as twins of one shard (`alerting.peers` naming each other, basic auth on
// both), driven by the exporter's own CLI: an ack on one quiets the alert on both; a silence made
// while the twin is down reaches it when it is back; expire and query through the CLI.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimFleet } from '../../../src/sim/index.js';
import { requireBuiltCli, runCli, startDaemonProcess, type DaemonProcess } from '../../support/cliProcess.js';
import { writeNodeDownYaml } from '../../support/nodeDownYaml.js';
import { freePort, waitFor, waitReady } from '../../support/processes.js';
import { basicAuth, withCredentials, writeWebConfig } from '../../support/webAuth.js';

const USER = 'ops';
const PASSWORD = 'twin-pw-7Hq2';
const OPS = { username: USER, password: PASSWORD };
const AUTH = basicAuth(OPS);
const WAIT_MS = 30_000;

interface V2Alert {
  fingerprint: string;
  labels: Record<string, string>;
  status: { state: string; silencedBy: string[] };
}
interface V2Silence {
  id: string;
  status: { state: string };
  comment: string;
}

describe('twins replicate silences through alerting.peers', () => {
  let dir = '';
  let fleet: SimFleet | undefined;
  const twins: { a?: DaemonProcess; b?: DaemonProcess } = {};
  const ports = { a: 0, b: 0 };
  const configs = { a: '', b: '' };
  const url = (t: 'a' | 'b') => `http://127.0.0.1:${ports[t]}`;
  const authed = (t: 'a' | 'b') => withCredentials(url(t), OPS);
  const get = async <T>(t: 'a' | 'b', p: string) =>
    (await (await fetch(`${url(t)}${p}`, { headers: AUTH })).json()) as T;
  const context = () =>
    Object.entries(twins)
      .map(([k, d]) => `--- ${k} ---\n${d?.stdout().slice(-3000) ?? ''}${d?.stderr().slice(-1000) ?? ''}`)
      .join('\n');
  const start = async (t: 'a' | 'b') => {
    const d = await startDaemonProcess(
      ['--config', configs[t], '--log-format', 'json', '--web.config.file', path.join(dir, 'web.yml')],
      {
        readyTimeoutMs: WAIT_MS,
      },
    );
    twins[t] = d;
    await waitReady(url(t), `${t} ready`, { timeoutMs: WAIT_MS, headers: AUTH, context });
  };

  beforeAll(async () => {
    requireBuiltCli();
    dir = mkdtempSync(path.join(tmpdir(), 'lfe-twins-'));
    fleet = await SimFleet.start([{ name: 'val-eu-1', network: 'main', build: 'current' as const, peers: 5 }], {
      host: '127.0.0.1',
      layout: 'shared-port',
      blockTimeMs: 500,
    });
    await fleet.node('val-eu-1').kill();
    writeWebConfig(dir, [OPS]);
    writeFileSync(path.join(dir, 'peer-user'), `${USER}\n`);
    writeFileSync(path.join(dir, 'peer-password'), `${PASSWORD}\n`);
    ports.a = await freePort();
    ports.b = await freePort();
    for (const [t, peer] of [
      ['a', 'b'],
      ['b', 'a'],
    ] as const) {
      mkdirSync(path.join(dir, t));
      configs[t] = writeNodeDownYaml(path.join(dir, t), fleet.nodes, 'main', [], {
        top: { listen: `127.0.0.1:${ports[t]}` },
        alerting: { peers: [{ url: url(peer), usernameFile: '../peer-user', passwordFile: '../peer-password' }] },
      });
    }
    await Promise.all([start('a'), start('b')]);
  }, 3 * WAIT_MS);

  afterAll(async () => {
    const outs = await Promise.all([twins.a?.stop(), twins.b?.stop()]);
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    for (const o of outs) expect(`${o?.stdout ?? ''}${o?.stderr ?? ''}`).not.toContain(PASSWORD);
  });

  const firing = async (t: 'a' | 'b') =>
    (await get<V2Alert[]>(t, '/api/v2/alerts')).find((a) => a.labels.alertname === 'LedgerNodeDown');

  it('an ack through the CLI on one twin quiets the alert on both', { timeout: 3 * WAIT_MS }, async () => {
    const alert = await waitFor('LedgerNodeDown on a', () => firing('a'), { timeoutMs: WAIT_MS, context });
    await waitFor('LedgerNodeDown on b', () => firing('b'), { timeoutMs: WAIT_MS, context });
    const ack = await runCli([
      'ack',
      alert.fingerprint,
      '--comment',
      'on it',
      '--author',
      'alice',
      '--url',
      authed('a'),
    ]);
    expect(ack.stderr).toBe('');
    expect(ack.code).toBe(0);
    const id = ack.stdout.trim();
    expect((await firing('a'))?.status).toMatchObject({ state: 'suppressed', silencedBy: [id] });
    const onB = await waitFor(
      'the ack on b',
      async () => ((await firing('b'))?.status.state === 'suppressed' ? await firing('b') : undefined),
      {
        timeoutMs: WAIT_MS,
        context,
      },
    );
    expect(onB.status.silencedBy).toEqual([id]);
    // The log line is written apart from the change it reports: wait for it rather than race it.
    await waitFor('b logging the replicated change', () => /replicate/.test(twins.b!.stdout()), { timeoutMs: WAIT_MS });
  });

  it(
    'a silence made while the twin is down reaches it when it is back; expire replicates too',
    { timeout: 4 * WAIT_MS },
    async () => {
      await twins.b!.stop();
      const add = await runCli([
        'silence',
        'add',
        'node=val-us-9',
        '--duration=2h',
        '--comment=while b was down',
        '--url',
        authed('a'),
      ]);
      expect(add.code).toBe(0);
      const id = add.stdout.trim();
      await start('b');
      const onB = async () => (await get<V2Silence[]>('b', '/api/v2/silences')).find((s) => s.id === id);
      const got = await waitFor('the silence on b', onB, { timeoutMs: WAIT_MS, context });
      expect(got).toMatchObject({ comment: 'while b was down', status: { state: 'active' } });
      // The CLI lists it on b, and an expire on b reaches a.
      const query = await runCli(['silence', 'query', '-q', '--url', authed('b')]);
      expect(query.stdout.split('\n')).toContain(id);
      expect((await runCli(['silence', 'expire', id, '--url', authed('b')])).code).toBe(0);
      await waitFor(
        'the expire on a',
        async () =>
          (await get<V2Silence[]>('a', '/api/v2/silences')).find((s) => s.id === id)?.status.state === 'expired',
        { timeoutMs: WAIT_MS, context },
      );
    },
  );
});
