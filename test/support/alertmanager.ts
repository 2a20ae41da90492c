// A private Debian Alertmanager on loopback for e2e tests: no clustering, short grouping so
// notifications reach the test's webhook within seconds.
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { stringify } from 'yaml';
import { freePort, startProcess, type ManagedProcess } from './processes.js';

export async function startAlertmanager(
  binary: string,
  dir: string,
  webhookUrl: string,
  extraArgs: string[] = [],
): Promise<{ url: string; process: ManagedProcess }> {
  const port = await freePort();
  writeFileSync(
    path.join(dir, 'alertmanager.yml'),
    stringify({
      route: {
        receiver: 'test',
        group_by: ['alertname', 'node'],
        group_wait: '1s',
        group_interval: '1s',
        repeat_interval: '1h',
      },
      receivers: [{ name: 'test', webhook_configs: [{ url: webhookUrl, send_resolved: true }] }],
    }),
  );
  const process = startProcess('alertmanager', binary, [
    `--config.file=${path.join(dir, 'alertmanager.yml')}`,
    `--storage.path=${path.join(dir, 'am-data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--cluster.listen-address=',
    '--log.level=warn',
    ...extraArgs,
  ]);
  return { url: `http://127.0.0.1:${port}`, process };
}

/** One webhook message as Alertmanager sends it (payload version "4"). */
export interface WebhookMessage {
  status: 'firing' | 'resolved';
  alerts: { status: string; labels: Record<string, string>; annotations: Record<string, string> }[];
}

/** A webhook receiver for Alertmanager on loopback: keeps every POSTed message, in order. */
export async function startWebhookSink(): Promise<{ url: string; received: WebhookMessage[]; close(): Promise<void> }> {
  const received: WebhookMessage[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      try {
        if (req.method === 'POST') received.push(JSON.parse(body) as WebhookMessage);
      } catch {
        /* not a webhook payload */
      }
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
