// `ledger-fleet-exporter notify-test --config <file> [--receiver <name>]`: one test notification
// to each (or one) receiver, one line per receiver with the result; exit 0 when all succeeded.
import { parseArgs } from 'node:util';
import { ConfigError, formatProblem, loadConfigFile } from '../config/index.js';
import { secretsOf } from '../config/secrets.js';
import { HttpClient } from '../http/client.js';
import type { Secrets } from '../redact.js';
import { fingerprint } from '../alerting/rules/labels.js';
import type { Notification } from '../alerting/notify/notification.js';
import type { SendFn } from '../alerting/notify/queue.js';
import type { ReceiverSettings } from '../alerting/receivers/kind.js';
import { deliveryParts, kindSend, materializeReceiver } from '../alerting/receivers/materialize.js';
import { reachForNode } from '../alerting/notify/notifyReach.js';

export const TEST_ALERT = 'LedgerExporterNotifyTest';

export function testNotification(receiver: string, now: number): Notification {
  const labels = { alertname: TEST_ALERT, severity: 'info' };
  return {
    receiver,
    groupKey: `notify-test:{alertname="${TEST_ALERT}"}`,
    groupLabels: { alertname: TEST_ALERT },
    status: 'firing',
    createdAt: now,
    alerts: [
      {
        id: fingerprint(labels),
        status: 'firing',
        labels,
        annotations: {
          summary: 'Test notification from ledger-fleet-exporter',
          description: `Sent by notify-test at ${new Date(now).toISOString()}; no action needed.`,
        },
        startsAt: now,
      },
    ],
  };
}

export interface NotifyTestOptions {
  secrets: Secrets;
  write: (line: string) => void;
  sendFor?: (r: ReceiverSettings) => SendFn;
  now?: () => number;
}

export async function runNotifyTest(argv: string[], opts: NotifyTestOptions): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { config: { type: 'string', short: 'c' }, receiver: { type: 'string' }, node: { type: 'string' } },
    strict: true,
  });
  if (!values.config)
    throw new Error(
      'usage: ledger-fleet-exporter notify-test --config <file.yaml> [--receiver <name>] [--node <name>]',
    );
  let config;
  try {
    config = await loadConfigFile(values.config);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    for (const p of err.problems) opts.write(formatProblem(p));
    return 1;
  }
  secretsOf(config, opts.secrets);
  let all = config.alerting?.receivers ?? [];
  if (values.node !== undefined) {
    // Only the receivers a critical alert for this node would reach (routes, windows) are sent to.
    const reach = reachForNode(config, values.node);
    opts.write('error' in reach ? reach.error : reach.line);
    if ('error' in reach) return 1;
    all = all.filter((r) => reach.receivers.includes(r.name));
    if (all.length === 0) return 1; // the line above says why: nothing would page
  }
  const chosen = values.receiver === undefined ? all : all.filter((r) => r.name === values.receiver);
  if (chosen.length === 0) {
    opts.write(
      values.receiver === undefined
        ? 'no receivers configured (alerting.receivers)'
        : `no receiver named "${values.receiver}"; configured: ${all.map((r) => r.name).join(', ') || 'none'}`,
    );
    return 1;
  }
  const client = new HttpClient({ secrets: opts.secrets });
  const now = (opts.now ?? Date.now)();
  const externalUrl = config.alerting?.externalUrl ?? `http://${config.listen.host}:${config.listen.port}`;
  let failed = 0;
  try {
    for (const r of chosen) {
      const line = await sendOne(r, opts, client, { externalUrl, now });
      if (!line.ok) failed++;
      opts.write(opts.secrets.scrub(`${r.name} (${r.kind}): ${line.text}`));
    }
  } finally {
    await client.close();
  }
  return failed === 0 ? 0 : 1;
}

async function sendOne(
  r: ReceiverSettings,
  opts: NotifyTestOptions,
  client: HttpClient,
  ctx: { externalUrl: string; now: number },
): Promise<{ ok: boolean; text: string }> {
  let spec;
  try {
    spec = await materializeReceiver(r, opts.secrets);
  } catch (err) {
    return { ok: false, text: `failed: ${(err as Error).message}` };
  }
  const send = opts.sendFor ? opts.sendFor(r) : kindSend(r, { client, secrets: opts.secrets });
  const results = await Promise.all(
    deliveryParts(spec, testNotification(r.name, ctx.now), ctx).map((part) => send(part)),
  );
  const bad = results.find((o) => !o.ok);
  if (bad) return { ok: false, text: `failed: ${bad.message ?? `status ${bad.status ?? '?'}`}` };
  return { ok: true, text: `ok (${results.map((o) => o.message ?? o.status ?? 'delivered').join(', ')})` };
}
