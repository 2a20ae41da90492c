// Set-up shared by the receiver kind tests: one notification through a receiver's real queue and
// transport (waits recorded, not slept), and a fleet config in YAML whose dead node pages the
// receivers given through the built-in engine, fast.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import type { Notification } from '../../src/alerting/notify/notification.js';
import { ReceiverQueue, type DeliveryReport } from '../../src/alerting/notify/queue.js';
import type { ReceiverSettings } from '../../src/alerting/receivers/kind.js';
import { deliveryParts, kindSend, materializeReceiver } from '../../src/alerting/receivers/materialize.js';
import type { HttpClient } from '../../src/http/client.js';
import type { Secrets } from '../../src/redact.js';
import { onlyRules } from './alertingDaemon.js';
import { waitFor } from './processes.js';

/** Delivers `n` to receiver `r` and returns its delivery report and the retry waits asked for. */
export async function deliverOnce(
  r: ReceiverSettings,
  n: Notification,
  o: { client: HttpClient; secrets: Secrets; ctx: { externalUrl: string; now: number }; timeoutMs: number },
): Promise<{ report: DeliveryReport; sleeps: number[] }> {
  const spec = await materializeReceiver(r, o.secrets);
  const sleeps: number[] = [];
  const reports: DeliveryReport[] = [];
  const queue = new ReceiverQueue({
    receiver: r.name,
    send: kindSend(r, { client: o.client, secrets: o.secrets }),
    sleep: async (ms) => void sleeps.push(ms),
    now: Date.now,
    random: () => 0.5,
    onReport: (x) => reports.push(x),
  });
  queue.enqueue(n, deliveryParts(spec, n, o.ctx));
  await waitFor('the delivery report', () => (reports.length > 0 ? true : undefined), { timeoutMs: o.timeoutMs });
  return { report: reports[0]!, sleeps };
}

/**
 * Writes `dir`/fleet.yaml: the nodes polled every 500 ms for health and blockNumber, evidence and
 * alert state under `dir`, only LedgerNodeDown (firing after 500 ms) grouped at once and sent to
 * `receivers` (YAML as written by a user). Returns the file's path.
 */
export function writeNodeDownYaml(
  dir: string,
  nodes: ReadonlyArray<{ name: string; url: string }>,
  network: string,
  receivers: unknown[],
): string {
  const file = path.join(dir, 'fleet.yaml');
  writeFileSync(
    file,
    stringify({
      listen: '127.0.0.1:0',
      defaults: { interval: '500ms', timeout: '400ms', probes: ['health', 'blockNumber'] },
      nodes: nodes.map((n) => ({ name: n.name, url: n.url, network })),
      evidence: { dir: path.join(dir, 'evidence') },
      alerting: {
        stateDir: 'state',
        evaluationInterval: '250ms',
        rules: { ...onlyRules({}), LedgerNodeDown: { for: '500ms', keepFiringFor: '0s' } },
        groupWait: '0s',
        groupInterval: '1s',
        receivers,
      },
    }),
  );
  return file;
}
