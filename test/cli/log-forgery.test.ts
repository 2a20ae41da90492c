// A node's text cannot forge log lines: a JSON-RPC error message with newlines and a terminal escape,
// logged (probe failed, at debug) by the real CLI in the pretty format, stays on its own line with
// its control characters escaped.
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_PATH, requireBuiltCli, trackChild } from '../support/cliProcess.js';
import { waitFor } from '../support/processes.js';

const FORGED = '[12:00:00.000] ERROR: FORGED node n9 is down';

let dir: string;
let node: Server;

beforeAll(async () => {
  requireBuiltCli();
  dir = mkdtempSync(join(tmpdir(), 'lfe-log-forgery-'));
  // Every JSON-RPC call fails with a message that carries a fake log line and a colour escape.
  node = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.method === 'GET') return res.end(JSON.stringify({ status: 'ok', version: '1.0' }));
      const id = (JSON.parse(body || '{}') as { id?: unknown }).id ?? 1;
      const message = `boom\n${FORGED}\r\n\u001b[31mred\u001b[0m`;
      res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32000, message } }));
    });
  });
  await new Promise<void>((r) => node.listen(0, '127.0.0.1', r));
  const port = (node.address() as AddressInfo).port;
  writeFileSync(
    join(dir, 'fleet.yaml'),
    [
      'nodes:',
      '  - name: n1',
      `    url: http://127.0.0.1:${port}`,
      '    rpcNamespace: claw',
      `evidence: {dir: ${join(dir, 'evidence')}}`,
      '',
    ].join('\n'),
  );
});
afterAll(async () => {
  await new Promise((r) => node.close(r));
  rmSync(dir, { recursive: true, force: true });
});

describe('node text in the pretty log', () => {
  it('has its newlines and escape characters escaped, so it forges no line', { timeout: 60_000 }, async () => {
    const args = ['--config', join(dir, 'fleet.yaml'), '--listen', '127.0.0.1:0'];
    const child = spawn(process.execPath, [CLI_PATH, ...args, '--log-format', 'pretty', '--log-level', 'debug'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    trackChild(child);
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    const exited = new Promise((resolve) => child.once('close', resolve));
    try {
      await waitFor('a probe failure logged with the node text', () => out.includes('FORGED'), {
        timeoutMs: 30_000,
        intervalMs: 100,
        context: () => out,
      });
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
    const lines = out.split('\n');
    expect(
      lines.filter((l) => l.startsWith(FORGED)),
      out,
    ).toEqual([]);
    const logged = lines.find((l) => l.includes('FORGED'))!;
    expect(logged).toContain(`boom\\n${FORGED}\\r\\n\\u001b[31mred\\u001b[0m`);
    expect(out).not.toContain('\u001b[31mred');
    expect(out).not.toContain('\r');
  });
});
