// Each https node's certificate expiry, as the newest handshake with its origin showed it (read
// during the handshake of the connection the probes use, and again on a fresh handshake of its own
// at least daily, hourly near the expiry: certRecheck.ts), copied onto the node's state after each
// probe result, where the node's metric family reads it.
import type { NodeTarget, NodeValues } from '../domain.js';
import type { HttpClient } from './client.js';

/** The probe-result listener; run before the views take the result in. */
export function certExpiryListener(
  client: Pick<HttpClient, 'certExpiry' | 'recheckCertificate'>,
): (target: NodeTarget, result: unknown, node: NodeValues) => void {
  // The origin per target, worked out once (null: not https); a reload makes new targets.
  const origins = new WeakMap<NodeTarget, string | null>();
  return (target, _result, node) => {
    let origin = origins.get(target);
    if (origin === undefined)
      origins.set(target, (origin = /^https:/i.test(target.url) ? new URL(target.url).origin : null));
    if (origin === null) return;
    client.recheckCertificate(origin);
    const expiry = client.certExpiry(origin);
    if (expiry !== undefined) node.tlsCertExpirySeconds = expiry;
  };
}
