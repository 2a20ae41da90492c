// A test CA and certificates made with the openssl command line (installed with the toolchain):
// a CA, a server leaf for 127.0.0.1 and node.internal, and a client certificate for mutual TLS.
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const openssl = (args: string[], cwd: string) =>
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });

export interface Issued {
  cert: string;
  key: string;
  /** Unix seconds of the certificate's notAfter. */
  notAfter: number;
}

/** A self-signed CA valid for `days`; files `<name>.crt` and `<name>.key` in `dir`. */
export function makeCa(dir: string, name: string, days: number): Issued {
  openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.crt`,
      '-days',
      String(days),
      '-subj',
      `/CN=${name}`,
    ],
    dir,
  );
  return issued(dir, name);
}

/** Extensions of a server leaf ("IP:127.0.0.1,DNS:node.internal"), a client leaf, an intermediate CA. */
export const serverExt = (san: string) => `subjectAltName=${san}\nextendedKeyUsage=serverAuth\n`;
export const CLIENT_EXT = 'extendedKeyUsage=clientAuth\n';
export const INTERMEDIATE_EXT = 'basicConstraints=critical,CA:true\nkeyUsage=critical,keyCertSign,cRLSign\n';

/** A certificate signed by `ca` valid for `days`, with the given extensions. */
export function issue(dir: string, ca: string, name: string, days: number, ext: string): Issued {
  openssl(
    [
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
      '-subj',
      `/CN=${name}`,
    ],
    dir,
  );
  writeFileSync(join(dir, `${name}.ext`), ext);
  openssl(
    [
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
    ],
    dir,
  );
  return issued(dir, name);
}

function issued(dir: string, name: string): Issued {
  const cert = join(dir, `${name}.crt`);
  return {
    cert,
    key: join(dir, `${name}.key`),
    notAfter: Math.floor(Date.parse(new X509Certificate(readFileSync(cert)).validTo) / 1000),
  };
}
