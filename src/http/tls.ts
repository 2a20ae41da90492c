// TLS of node connections: per-origin client settings (Prometheus's tls_config: caFile, certFile +
// keyFile, serverName, insecureSkipVerify) with their files read at connect time and again when
// they change, and the earliest certificate expiry of the chain each new connection was verified through.
// File contents never go into a message: errors name the setting and an error code only.
import { readFile, stat } from 'node:fs/promises';
import type { TLSSocket } from 'node:tls';
import type { buildConnector as BuildConnector } from 'undici';
import { buildConnector } from '../deps/undici.js';
import type { X509Certificate } from 'node:crypto';
import { anchorsOf, systemAnchors, verifiedChainExpiry } from './verifiedChain.js';
import type { TlsSettings } from '../domain.js';

type Connector = BuildConnector.connector;

const FILES = [
  ['caFile', 'ca'],
  ['certFile', 'cert'],
  ['keyFile', 'key'],
] as const;

/** An error that says which TLS file could not be read and why, and nothing of its content. */
function fileError(setting: string, err: unknown): Error {
  const code = `TLS_${setting.toUpperCase()}_${(err as NodeJS.ErrnoException).code ?? 'UNREADABLE'}`;
  return Object.assign(new Error(`cannot read the TLS ${setting}: ${code}`), { code });
}

/** One file as last read, kept while its inode, size and mtime stay the same. */
interface FileCopy {
  stamp: string;
  data: Buffer;
}

/** Reads the settings' files, again only when one changed; `stamp` changes when any did. */
export class TlsFiles {
  private readonly copies = new Map<string, FileCopy>();

  constructor(private readonly settings: TlsSettings) {}

  async load(): Promise<{ stamp: string; material: { ca?: Buffer; cert?: Buffer; key?: Buffer } }> {
    const material: { ca?: Buffer; cert?: Buffer; key?: Buffer } = {};
    const stamps: string[] = [];
    for (const [setting, field] of FILES) {
      const path = this.settings[setting];
      if (path === undefined) continue;
      const copy = await this.read(setting, path);
      material[field] = copy.data;
      stamps.push(copy.stamp);
    }
    return { stamp: stamps.join('|'), material };
  }

  private async read(setting: string, path: string): Promise<FileCopy> {
    try {
      const s = await stat(path);
      const stamp = `${s.ino}:${s.size}:${s.mtimeMs}`;
      const known = this.copies.get(path);
      if (known?.stamp === stamp) return known;
      const copy = { stamp, data: await readFile(path) };
      this.copies.set(path, copy);
      return copy;
    } catch (err) {
      throw fileError(setting, err);
    }
  }
}

export interface OriginTls {
  /** The connector for origins without settings (shared: one session cache for them all). */
  shared: Connector;
  /** Build options of a connector made for settings (connect timeout). */
  base: BuildConnector.BuildOptions;
  settings?: TlsSettings;
  /** No TLS session resumption (a re-check must see the certificate served now). */
  fresh?: boolean;
  /** Called with the earliest expiry of each new TLS connection's verified chain (verifiedChain.ts). */
  onExpiry: (unixSeconds: number) => void;
}

/**
 * A connector for one origin. Certificates are verified here rather than by the TLS socket
 * (rejectUnauthorized off below, the same checks on `authorized` after the handshake), so a
 * certificate refused as expired still has its expiry read and shown before the socket is closed.
 */
export function originConnector(o: OriginTls): Connector {
  const verify = !o.settings?.insecureSkipVerify;
  const finish =
    (cb: BuildConnector.Callback, anchors: () => readonly X509Certificate[]) =>
    (err: Error | null, socket: Parameters<BuildConnector.Callback>[1]) => {
      if (err || !socket) return cb(err ?? new Error('no socket'), null);
      const tls = socket as TLSSocket;
      if (typeof tls.getPeerCertificate !== 'function') return cb(null, socket);
      const expiry = verifiedChainExpiry(tls, anchors());
      if (expiry !== undefined) o.onExpiry(expiry);
      if (verify && !tls.authorized) {
        const code = String(tls.authorizationError ?? 'UNABLE_TO_VERIFY_LEAF_SIGNATURE');
        socket.destroy();
        return cb(Object.assign(new Error(`TLS certificate not accepted: ${code}`), { code }), null);
      }
      cb(null, socket);
    };
  if (!o.settings) return (opts, cb) => o.shared(opts, finish(cb, systemAnchors));
  const files = new TlsFiles(o.settings);
  const serverName = o.settings.serverName;
  let built: { stamp: string; connect: Connector; anchors: () => readonly X509Certificate[] } | undefined;
  return (opts, cb) => {
    files.load().then(
      ({ stamp, material }) => {
        if (built?.stamp !== stamp) {
          // A caFile replaces the system roots (as Node's `ca` does): its certificates are the anchors.
          const own = material.ca ? anchorsOf(material.ca) : undefined;
          built = {
            stamp,
            connect: buildConnector({
              ...o.base,
              ...material,
              rejectUnauthorized: false,
              maxCachedSessions: o.fresh ? 0 : 16,
            }),
            anchors: own ? () => own : systemAnchors,
          };
        }
        try {
          built.connect(serverName ? { ...opts, servername: serverName } : opts, finish(cb, built.anchors));
        } catch (err) {
          // Files that are no certificate or key: the TLS context cannot be made (OpenSSL's code only).
          const code = `TLS_FILES_${(err as NodeJS.ErrnoException).code ?? 'UNUSABLE'}`;
          cb(Object.assign(new Error(`TLS files not usable: ${code}`), { code }), null);
        }
      },
      (err: Error) => cb(err, null),
    );
  };
}

/** The connect options every connector shares: certificates are checked by originConnector. */
export function sharedConnectOptions(connectTimeoutMs: number): BuildConnector.BuildOptions {
  return { timeout: connectTimeoutMs, maxCachedSessions: 65_536, rejectUnauthorized: false };
}
