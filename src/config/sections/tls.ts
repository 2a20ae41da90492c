// `tls:` of defaults and nodes: the TLS client settings of Prometheus's tls_config (caFile,
// certFile + keyFile, serverName, insecureSkipVerify), inherited field by field from defaults.
// Files are named here and read at connect time (src/http/tls.ts), again when they change.
import { resolve as resolvePath } from 'node:path';
import * as z from 'zod';
import type { TlsSettings } from '../../domain.js';
import type { PathProblem, PathSegment } from '../problems.js';
import { isObj, type Obj } from './fields.js';

const file = (description: string) =>
  z
    .string()
    .min(1, 'file must not be empty')
    .meta({
      description: `${description} Relative to the config file; read at connect time and again when it changes.`,
    });

export const tlsSchema = z
  .strictObject({
    caFile: file('CA certificates (PEM) the node certificate must chain to, instead of the system CAs.').optional(),
    certFile: file('Client certificate (PEM) for mutual TLS; with keyFile.').optional(),
    keyFile: file('Private key (PEM) of certFile; a secret: never shown.').optional(),
    serverName: z
      .string()
      .min(1, 'serverName must not be empty')
      .max(253)
      .meta({ description: "Name the node certificate must carry, sent as SNI; default: the URL's host." })
      .optional(),
    insecureSkipVerify: z
      .boolean({ error: 'insecureSkipVerify must be true or false' })
      .meta({ description: 'Accept any certificate (no chain or name check). For labs only.' })
      .optional(),
  })
  .meta({ description: "TLS client settings for https nodes, as Prometheus's tls_config." });

export type RawTls = z.output<typeof tlsSchema>;

/** certFile and keyFile come together; a node's own tls is for an https URL. */
export function tlsProblems(tls: unknown, path: PathSegment[], url?: unknown): PathProblem[] {
  if (!isObj(tls)) return [];
  const out: PathProblem[] = [];
  if (tls.certFile !== undefined && tls.keyFile === undefined)
    out.push({ path: [...path, 'certFile'], message: 'certFile needs keyFile (mutual TLS takes both)' });
  if (tls.keyFile !== undefined && tls.certFile === undefined)
    out.push({ path: [...path, 'keyFile'], message: 'keyFile needs certFile (mutual TLS takes both)' });
  if (typeof url === 'string' && /^http:/i.test(url))
    out.push({ path, at: 'key', message: 'tls is set but the node url is http://, not https://' });
  return out;
}

/** Defaults first, the node's own fields over them; file paths made absolute. Undefined when neither sets any. */
export function resolveTls(
  base: RawTls | undefined,
  own: RawTls | undefined,
  baseDir: string,
): TlsSettings | undefined {
  const merged = { ...base, ...own };
  const out: TlsSettings = {};
  for (const key of ['caFile', 'certFile', 'keyFile'] as const)
    if (merged[key] !== undefined) out[key] = resolvePath(baseDir, merged[key]);
  if (merged.serverName !== undefined) out.serverName = merged.serverName;
  if (merged.insecureSkipVerify !== undefined) out.insecureSkipVerify = merged.insecureSkipVerify;
  return Object.keys(out).length > 0 ? out : undefined;
}

function originOf(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/**
 * Nodes behind one origin share its connections, so they must agree on TLS settings (as written,
 * with the defaults' fields under each node's own).
 */
export function sharedOriginProblems(nodes: unknown[], defaults: Obj): PathProblem[] {
  const first = new Map<string, { i: number; key: string }>();
  const out: PathProblem[] = [];
  nodes.forEach((node, i) => {
    if (!isObj(node)) return;
    const origin = originOf(node.url);
    if (!origin || !origin.startsWith('https:')) return;
    const key = JSON.stringify({ ...(isObj(defaults.tls) ? defaults.tls : {}), ...(isObj(node.tls) ? node.tls : {}) });
    const seen = first.get(origin);
    if (!seen) first.set(origin, { i, key });
    else if (seen.key !== key)
      out.push({
        path: ['nodes', i, node.tls === undefined ? 'url' : 'tls'],
        message:
          `tls differs from nodes[${seen.i}] at the same origin ${origin}: nodes behind one origin share its ` +
          `connections and their TLS settings`,
      });
  });
  return out;
}
