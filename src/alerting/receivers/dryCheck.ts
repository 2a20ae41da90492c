// Start-up dry check of receivers: find one that is unreachable or rejects its credentials before
// the first real alert needs it, without sending a notification. Each kind says how it checks
// (Alertmanager reads its status with the same credentials; a webhook API that offers no check
// that sends nothing gets a reachability check of its origin).
import type { HttpOutcome, HttpRequest } from '../../http/index.js';
import { withDeadline } from './deadline.js';
import type { DryCheckResult, ReceiverSpec } from './kind.js';
import { receiverKind } from './registry.js';

export type { DryCheckResult };

type Send = (req: HttpRequest) => Promise<HttpOutcome>;

const TIMEOUT_MS = 5_000;

export async function dryCheckReceivers(specs: readonly ReceiverSpec[], send: Send): Promise<DryCheckResult[]> {
  return Promise.all(
    specs.map((s) =>
      withDeadline(
        TIMEOUT_MS,
        (signal) => receiverKind(s.kind).dryCheck(s, { http: send, timeoutMs: TIMEOUT_MS, signal }),
        (why): DryCheckResult => ({ receiver: s.name, ok: false, detail: `${s.kind} ${s.name}: ${why}` }),
      ).catch((err: Error) => ({
        receiver: s.name,
        ok: false,
        detail: `${s.kind} ${s.name}: check failed (${err.message})`,
      })),
    ),
  );
}

/**
 * Start-up: checks the receivers alerting built (secrets already read), and logs one warning per
 * receiver that fails. One whose secret could not be read is not among them: building it logged that.
 */
export async function warnUnusableReceivers(
  built: readonly ReceiverSpec[],
  deps: { send: Send; log: { warn(obj: object, msg: string): void } },
): Promise<DryCheckResult[]> {
  const results = await dryCheckReceivers(built, deps.send);
  for (const r of results)
    if (!r.ok)
      deps.log.warn(
        { receiver: r.receiver, reason: r.detail },
        `receiver ${r.receiver} failed its start-up check: ${r.detail}`,
      );
  return results;
}
