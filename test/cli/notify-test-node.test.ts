// notify-test --node: prints which receivers a critical alert for that node reaches (real
// routes, real config file, maintenance windows) and sends the test notification only to those.
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runNotifyTest } from '../../src/cli/notifyTest.js';
import { Secrets } from '../../src/redact.js';

let server: Server;
let base: string;
let dir: string;
let file: string;
const hits: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(req.url ?? '');
    req.resume();
    req.on('end', () => res.writeHead(200).end('{}'));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = mkdtempSync(join(tmpdir(), 'lfe-notify-node-'));
  file = join(dir, 'config.yaml');
  const now = Date.now();
  writeFileSync(
    file,
    `nodes:
  - {name: val-eu-1, url: http://127.0.0.1:1, network: mainnet}
  - {name: val-us-1, url: http://127.0.0.1:2, network: mainnet}
  - {name: val-test-1, url: http://127.0.0.1:3, network: testnet}
alerting:
  receivers:
    - {name: pager, webhook: {url: "${base}/pager"}}
    - {name: chat, webhook: {url: "${base}/chat"}}
  routes:
    - match: {network: testnet}
      receivers: []
    - match: {severity: critical, node: "~val-eu-.*"}
      receivers: [pager]
    - receivers: [chat, pager]
  maintenance:
    - name: us-swap
      start: ${new Date(now - 60_000).toISOString()}
      end: ${new Date(now + 3_600_000).toISOString()}
      match: {node: val-us-1}
`,
  );
});
afterAll(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => void hits.splice(0));

async function run(...args: string[]) {
  const lines: string[] = [];
  const code = await runNotifyTest(['--config', file, ...args], {
    secrets: new Secrets(),
    write: (l) => void lines.push(l),
  });
  return { code, lines };
}

describe('notify-test --node', () => {
  it('names the receivers of the first matching route and sends only to them', async () => {
    const r = await run('--node', 'val-eu-1');
    expect(r.lines[0]).toBe('node val-eu-1 (mainnet): critical alerts reach pager (route #2)');
    expect(r.lines.slice(1)).toEqual([expect.stringMatching(/^pager \(webhook\): ok \(HTTP 200\)$/)]);
    expect(r.code).toBe(0);
    expect(hits).toEqual(['/pager']);
  });

  it('says when a maintenance window silences the node now', async () => {
    const r = await run('--node', 'val-us-1');
    expect(r.lines[0]).toBe(
      'node val-us-1 (mainnet): critical alerts reach pager, chat (route #3); silenced now by maintenance window ' +
        'us-swap',
    );
    expect(hits.sort()).toEqual(['/chat', '/pager']);
  });

  it('a node whose alerts reach nobody: says so, sends nothing, exits 1', async () => {
    const r = await run('--node', 'val-test-1');
    expect(r).toEqual({ code: 1, lines: ['node val-test-1 (testnet): critical alerts reach no receiver (route #1)'] });
    expect(hits).toEqual([]);
  });

  it('an unknown node is an error', async () => {
    const r = await run('--node', 'nope');
    expect(r).toEqual({ code: 1, lines: ['no node named "nope"; configured: val-eu-1, val-us-1, val-test-1'] });
    expect(hits).toEqual([]);
  });
});
