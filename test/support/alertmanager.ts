// A private Debian Alertmanager on loopback for e2e tests: no clustering, short grouping so
// notifications reach the test's webhook within seconds.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { freePort, startProcess, type ManagedProcess } from './processes.js';

export async function startAlertmanager(binary: string, dir: string, webhookUrl: string): Promise<{ url: string; process: ManagedProcess }> {
  const port = await freePort();
  writeFileSync(
    path.join(dir, 'alertmanager.yml'),
    stringify({
      route: { receiver: 'test', group_by: ['alertname', 'node'], group_wait: '1s', group_interval: '1s', repeat_interval: '1h' },
      receivers: [{ name: 'test', webhook_configs: [{ url: webhookUrl, send_resolved: true }] }],
    }),
  );
  const process = startProcess('alertmanager', binary, [
    `--config.file=${path.join(dir, 'alertmanager.yml')}`,
    `--storage.path=${path.join(dir, 'am-data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--cluster.listen-address=',
    '--log.level=warn',
  ]);
  return { url: `http://127.0.0.1:${port}`, process };
}
