// `alerting.peers`: the twin replicas of this shard, to which every silence change made here is
// sent (and from which this replica catches up at start). Credentials come from files only.
import { resolve as resolvePath } from 'node:path';
import * as z from 'zod';
import { commonUrlReason, parseUrl } from '../../config/rules.js';
import { filePath, reasoned, receiverUrlReason } from '../receivers/fields.js';

export interface PeerSettings {
  /** Base URL of the peer exporter, e.g. http://exporter-1:9715 (no credentials). */
  url: string;
  usernameFile?: string;
  passwordFile?: string;
}

function peerUrlReason(s: string): string | undefined {
  const u = parseUrl(s);
  if (u && (u.username || u.password)) return 'URL must not contain user:password (use usernameFile and passwordFile)';
  return commonUrlReason(s, u) ?? receiverUrlReason(s);
}

const peerSchema = z
  .strictObject({
    url: reasoned(
      peerUrlReason,
      "The peer exporter's base URL, e.g. http://ledger-exporter-1:9715 (credentials in the files).",
    ),
    usernameFile: filePath('File holding the basic-auth user this replica writes to the peer as.').optional(),
    passwordFile: filePath("File holding that user's password.").optional(),
  })
  .superRefine((p, ctx) => {
    if ((p.usernameFile === undefined) !== (p.passwordFile === undefined))
      ctx.addIssue({ code: 'custom', message: 'set both usernameFile and passwordFile, or neither' });
  });

export const peersSchema = z
  .array(peerSchema)
  .default([])
  .meta({
    description:
      'Twin replicas of this shard: each silence and acknowledgement made here is sent to them ' +
      '(POST /api/v2/silences, newest updatedAt wins), and this replica catches up from them at start.',
  });

export function resolvePeers(raw: z.output<typeof peersSchema>, baseDir: string): PeerSettings[] {
  return raw.map((p) => ({
    url: p.url.replace(/\/+$/, ''),
    ...(p.usernameFile !== undefined ? { usernameFile: resolvePath(baseDir, p.usernameFile) } : {}),
    ...(p.passwordFile !== undefined ? { passwordFile: resolvePath(baseDir, p.passwordFile) } : {}),
  }));
}
