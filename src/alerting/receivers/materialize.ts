// Receivers at run time, whatever their kind: secrets read (a file again whenever it changed) and
// registered before use, a notification turned into the kind's parts, and each part delivered by
// the kind's own transport.
import { stat } from 'node:fs/promises';
import type { SecretValue } from '../../domain.js';
import type { HttpClient } from '../../http/client.js';
import { urlCredentials, urlSecretParts, type Secrets } from '../../redact.js';
import type { Notification } from '../notify/notification.js';
import type { SendFn } from '../notify/queue.js';
import type { DeliveryPart, PayloadContext, ReceiverSettings, ReceiverSpec } from './kind.js';
import { withDeadline } from './deadline.js';
import { receiverKind } from './registry.js';
import { readUtf8File } from '../../files/utf8.js';

/** Reads secret files, again only when one changed (size, mtime or inode: an atomic replace too). */
export class SecretReader {
  private readonly cache = new Map<string, { stamp: string; text: string }>();

  async read(v: SecretValue, what: string): Promise<string> {
    if ('value' in v) return v.value;
    try {
      const s = await stat(v.file);
      const stamp = `${s.size}:${s.mtimeMs}:${s.ino}`;
      const hit = this.cache.get(v.file);
      if (hit?.stamp === stamp) return hit.text;
      const text = (await readUtf8File(v.file)).trim();
      this.cache.set(v.file, { stamp, text });
      return text;
    } catch (err) {
      throw new Error(`cannot read ${what} from ${v.file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }

  /** True when one of the receiver's secrets is a file (its spec may change without a reload). */
  static hasFiles(r: ReceiverSettings): boolean {
    return Object.values(receiverKind(r.kind).secrets(r)).some((s) => s !== undefined && 'file' in s.source);
  }
}

/** The receiver with its secrets read; every secret is registered before it is used. */
export async function materializeReceiver(
  r: ReceiverSettings,
  secrets: Secrets,
  reader = new SecretReader(),
): Promise<ReceiverSpec> {
  const kind = receiverKind(r.kind);
  const keep = (s: string) => {
    secrets.add(s);
    secrets.addAll(urlCredentials(s));
    secrets.addAll(urlSecretParts(s));
    return s;
  };
  const values = new Map<string, string>();
  for (const [key, slot] of Object.entries(kind.secrets(r))) {
    if (slot) values.set(key, keep(await reader.read(slot.source, `receiver ${r.name} ${slot.what}`)));
  }
  const spec = kind.build(r, (key) => values.get(key));
  kind.derivedSecrets?.(spec).forEach(keep);
  return { ...spec, name: r.name, kind: r.kind };
}

/** One notification as the parts its receiver delivers. */
export function deliveryParts(spec: ReceiverSpec, n: Notification, ctx: PayloadContext): DeliveryPart[] {
  return receiverKind(spec.kind).parts(spec, n, ctx);
}

/**
 * The receiver's own transport (HTTP through the one client, or its kind's other protocol), every
 * attempt bounded by the receiver's timeout whatever the transport does.
 */
export function kindSend(r: ReceiverSettings, io: { client: HttpClient; secrets: Secrets }): SendFn {
  const kind = receiverKind(r.kind);
  return (part) =>
    withDeadline(
      r.timeoutMs,
      (signal) => kind.send(part, { client: io.client, secrets: io.secrets, timeoutMs: r.timeoutMs, signal }),
      (why) => ({ ok: false, retryable: true, message: `${part.label}: ${why}` }),
    );
}
