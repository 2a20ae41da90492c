// A failed probe request or answer, classified by the reason the metrics use. Part of the
// catalogue (parsers throw it) as much as of the runner (HTTP failures are turned into it).
import type { FailureReason } from '../domain.js';
import type { HttpResponse } from '../http/client.js';

/** A failed request, already classified. `response` is set when the node answered with a status. */
export class ProbeError extends Error {
  constructor(
    readonly reason: FailureReason,
    message: string,
    readonly response?: HttpResponse,
    /** The request that got this answer ("POST claw_blockNumber"), when it is not the probe's own. */
    readonly request?: string,
  ) {
    super(message);
    this.name = 'ProbeError';
  }
}
