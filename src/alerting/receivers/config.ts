// A receiver in the config: `name` and exactly one kind's section, each section built from the
// registered kinds (their fields, checks and `timeout`), resolved into settings, and the secret
// values the config itself holds.
import { resolve as resolvePath } from 'node:path';
import * as z from 'zod';
import { parseDuration } from '../../config/duration.js';
import { nameReason } from '../../config/rules.js';
import { reasoned, timeoutField } from './fields.js';
import type { AnyReceiverKind, ReceiverSettings } from './kind.js';
import { receiverKind, receiverKinds } from './registry.js';

export const DEFAULT_RECEIVER_TIMEOUT_MS = 10_000;

function sectionSchema(k: AnyReceiverKind) {
  const section = z.strictObject({ ...k.fields, timeout: timeoutField() });
  if (!k.check) return section;
  return section.superRefine((raw, ctx) =>
    k.check!(raw, (message, path = []) => ctx.addIssue({ code: 'custom', message, path })),
  );
}

function entrySchema() {
  const kinds = receiverKinds(true);
  const names = kinds.map((k) => k.kind);
  return z
    .strictObject({
      name: reasoned(
        (s) => nameReason(s) && `receiver name ${nameReason(s)}`,
        'Unique receiver name: routes refer to it, and it labels its metrics.',
      ),
      ...Object.fromEntries(
        kinds.map((k) => [k.kind, sectionSchema(k).optional().meta({ description: k.description })]),
      ),
    })
    .superRefine((r, ctx) => {
      const found = names.filter((k) => (r as Record<string, unknown>)[k] !== undefined);
      if (found.length !== 1)
        ctx.addIssue({
          code: 'custom',
          message:
            `a receiver has exactly one of ${names.join(', ')} ` +
            `(found ${found.length ? found.join(', ') : 'none'})`,
        });
    });
}

/** Built at the first parse (or schema export), from the kinds registered by then. */
export const receiverSchema = z.lazy(entrySchema);

export type ReceiverRaw = { name: string } & Record<string, unknown>;

export function resolveReceiver(r: ReceiverRaw, baseDir: string): ReceiverSettings {
  const kind = receiverKinds().find((k) => r[k.kind] !== undefined)!;
  const raw = r[kind.kind] as Record<string, unknown>;
  const timeoutMs = typeof raw.timeout === 'string' ? parseDuration(raw.timeout) : DEFAULT_RECEIVER_TIMEOUT_MS;
  return { ...kind.resolve(raw, (p) => resolvePath(baseDir, p)), name: r.name, kind: kind.kind, timeoutMs };
}

/** Secret values written in the config itself (file contents are added when read). */
export function receiverConfigSecrets(receivers: readonly ReceiverSettings[]): string[] {
  return receivers.flatMap((r) =>
    Object.values(receiverKind(r.kind).secrets(r)).flatMap((s) =>
      s && 'value' in s.source && s.source.value ? [s.source.value] : [],
    ),
  );
}
