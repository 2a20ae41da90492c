// Set-up shared by the receiver kind tests: one notification through a receiver's real queue and
// transport (waits recorded, not slept). Their fleet config in YAML is ./nodeDownYaml.ts.
import type { Notification } from '../../src/alerting/notify/notification.js';
import { ReceiverQueue, type DeliveryReport } from '../../src/alerting/notify/queue.js';
import type { ReceiverSettings } from '../../src/alerting/receivers/kind.js';
import { deliveryParts, kindSend, materializeReceiver } from '../../src/alerting/receivers/materialize.js';
import type { HttpClient } from '../../src/http/client.js';
import type { Secrets } from '../../src/redact.js';
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
