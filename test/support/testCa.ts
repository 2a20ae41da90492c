// Test certificates made with the openssl command line (installed with the toolchain): a CA, a
// server leaf for 127.0.0.1 and node.internal, a client certificate for mutual TLS, a throwaway
// self-signed certificate. The openssl arguments are exported too, for certificates made
// otherwise (under faketime, say). Keys are EC P-256: made in milliseconds, unlike RSA.
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const openssl = (args: string[], cwd: string) =>
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });

export interface Issued {
  cert: string;
  key: string;
  /** Unix seconds of the certificate's notAfter. */
  notAfter: number;
}

/** `openssl req` arguments making a new P-256 key written to `keyFile`, unencrypted. */
const newKeyArgs = (keyFile: string) => [
  '-newkey',
  'ec',
  '-pkeyopt',
  'ec_paramgen_curve:P-256',
  '-nodes',
  '-keyout',
  keyFile,
];

/** `openssl req` arguments of a self-signed certificate with a new key; `extra` e.g. `-addext subjectAltName=...`. */
export const selfSignedArgs = (
  keyFile: string,
  certFile: string,
  days: number,
  subject: string,
  ...extra: string[]
) => ['req', '-x509', ...newKeyArgs(keyFile), '-out', certFile, '-days', String(days), '-subj', subject, ...extra];

/** `openssl x509` arguments signing `<name>.csr` with CA `<ca>` into `<name>.crt`, extensions from `<name>.ext`. */
export const signArgs = (name: string, ca: string, days: number) => [
  'x509',
  '-req',
  '-in',
  `${name}.csr`,
  '-CA',
  `${ca}.crt`,
  '-CAkey',
  `${ca}.key`,
  '-CAcreateserial',
  '-out',
  `${name}.crt`,
  '-days',
  String(days),
  '-extfile',
  `${name}.ext`,
];

/** A self-signed CA valid for `days`; files `<name>.crt` and `<name>.key` in `dir`. */
export function makeCa(dir: string, name: string, days: number): Issued {
  openssl(selfSignedArgs(`${name}.key`, `${name}.crt`, days, `/CN=${name}`), dir);
  return issued(dir, name);
}

/** Extensions of a server leaf ("IP:127.0.0.1,DNS:node.internal"), a client leaf, an intermediate CA. */
export const serverExt = (san: string) => `subjectAltName=${san}\nextendedKeyUsage=serverAuth\n`;
export const CLIENT_EXT = 'extendedKeyUsage=clientAuth\n';
export const INTERMEDIATE_EXT = 'basicConstraints=critical,CA:true\nkeyUsage=critical,keyCertSign,cRLSign\n';

/** A certificate signed by `ca` valid for `days`, with the given extensions. */
export function issue(dir: string, ca: string, name: string, days: number, ext: string): Issued {
  openssl(['req', ...newKeyArgs(`${name}.key`), '-out', `${name}.csr`, '-subj', `/CN=${name}`], dir);
  writeFileSync(join(dir, `${name}.ext`), ext);
  openssl(signArgs(name, ca, days), dir);
  return issued(dir, name);
}

/** Unix seconds of the notAfter of the PEM certificate in `certFile`. */
export const notAfterOf = (certFile: string) =>
  Math.floor(Date.parse(new X509Certificate(readFileSync(certFile)).validTo) / 1000);

function issued(dir: string, name: string): Issued {
  const cert = join(dir, `${name}.crt`);
  return { cert, key: join(dir, `${name}.key`), notAfter: notAfterOf(cert) };
}

/** True when the openssl CLI can be run. */
export function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export interface SelfSignedCert {
  key: string;
  cert: string;
  cleanup(): void;
}

/** A throwaway self-signed certificate for 127.0.0.1, made with the openssl CLI in a temp dir. */
export function makeSelfSignedCert(): SelfSignedCert {
  const dir = mkdtempSync(join(tmpdir(), 'lfe-tls-'));
  const keyPath = join(dir, 'key.pem');
  const certPath = join(dir, 'cert.pem');
  try {
    const args = selfSignedArgs(keyPath, certPath, 1, '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1');
    execFileSync('openssl', args, { stdio: 'ignore', timeout: 10_000 });
    return {
      key: readFileSync(keyPath, 'utf8'),
      cert: readFileSync(certPath, 'utf8'),
      cleanup: () => rmSync(dir, { recursive: true, force: true }),
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
