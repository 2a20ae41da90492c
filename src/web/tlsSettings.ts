// The tls_server_config section of a web config: certificate, key and client CAs read, the
// client-certificate policy checked for contradictions, and the key pair tried once, so a bad
// section fails at start-up rather than at the first connection.
import tls from 'node:tls';
import { CIPHER_SUITES, CURVES, TLS_VERSIONS, type ClientAuthType, type RawWebConfig } from './schema.js';

export interface WebTlsConfig {
  cert: Buffer;
  key: Buffer;
  /** Client CA bundle (client_ca_file). */
  ca?: Buffer;
  /** Ask clients for a certificate (any client_auth_type but NoClientCert). */
  requestClientCert: boolean;
  clientAuth: ClientAuthType;
  minVersion?: tls.SecureVersion;
  maxVersion?: tls.SecureVersion;
  /** OpenSSL cipher list (TLS 1.3 suites kept), from cipher_suites. */
  ciphers?: string;
  /** OpenSSL group list, from curve_preferences. */
  ecdhCurve?: string;
  honorCipherOrder?: boolean;
  /** A verified client certificate must carry one of these SANs (client_allowed_sans). */
  clientAllowedSans?: string[];
}

/** How the section reports a problem at a key path (file:line:col) and reads a file it names. */
export interface WebConfigRefs {
  fail(p: (string | number)[], msg: string): never;
  readRef(p: (string | number)[], ref: string): Promise<Buffer>;
}

type RawTls = NonNullable<RawWebConfig['tls_server_config']>;

const tp = (k: string) => ['tls_server_config', k];

/** The TLS settings, or undefined for plain HTTP (an empty section, as in exporter-toolkit). */
export async function tlsSettings(t: RawTls, refs: WebConfigRefs): Promise<WebTlsConfig | undefined> {
  const { fail, readRef } = refs;
  if (t.cert_file && t.cert) fail(tp('cert'), 'set cert_file or cert, not both');
  if (t.key_file && t.key) fail(tp('key'), 'set key_file or key, not both');
  const hasCert = Boolean(t.cert_file || t.cert);
  const hasKey = Boolean(t.key_file || t.key);
  const others = Object.entries(t).some(
    ([k, v]) => v !== null && v !== undefined && !['cert_file', 'key_file', 'cert', 'key'].includes(k),
  );
  if (!hasCert && !hasKey && !others) return undefined;
  if (!hasCert) fail(['tls_server_config'], 'missing cert_file');
  if (!hasKey) fail(['tls_server_config'], 'missing key_file');
  const cert = t.cert ? Buffer.from(t.cert) : await readRef(tp('cert_file'), t.cert_file!);
  const key = t.key ? Buffer.from(t.key) : await readRef(tp('key_file'), t.key_file!);
  const ca = t.client_ca_file ? await readRef(tp('client_ca_file'), t.client_ca_file) : undefined;
  const clientAuth: ClientAuthType = t.client_auth_type ?? 'NoClientCert';
  checkClientAuth(t, clientAuth, ca !== undefined, fail);
  const tlsCfg: WebTlsConfig = {
    cert,
    key,
    ...(ca ? { ca } : {}),
    requestClientCert: clientAuth !== 'NoClientCert',
    clientAuth,
    ...protocolOptions(t),
    ...(t.client_allowed_sans?.length ? { clientAllowedSans: t.client_allowed_sans } : {}),
  };
  try {
    // Catches a key that does not match the certificate, bad PEM, impossible version ranges.
    tls.createSecureContext(secureContextOptions(tlsCfg));
  } catch (err) {
    fail(['tls_server_config'], `TLS setup failed: ${(err as Error).message}`);
  }
  return tlsCfg;
}

function checkClientAuth(t: RawTls, clientAuth: ClientAuthType, hasCa: boolean, fail: WebConfigRefs['fail']): void {
  const verifies = clientAuth === 'VerifyClientCertIfGiven' || clientAuth === 'RequireAndVerifyClientCert';
  if (hasCa && !verifies) {
    fail(
      tp('client_ca_file'),
      `client CAs are configured but client_auth_type is ${clientAuth}; use RequireAndVerifyClientCert or ` +
        `VerifyClientCertIfGiven`,
    );
  }
  // Without our own CA list Node would accept any client certificate from a public CA.
  if (verifies && !hasCa) fail(tp('client_auth_type'), `${clientAuth} needs client_ca_file`);
  if (t.client_allowed_sans?.length && !verifies)
    fail(tp('client_allowed_sans'), 'needs a verifying client_auth_type and client_ca_file');
}

/** Versions, cipher suites, curves and cipher order, in Node's terms. */
function protocolOptions(t: RawTls): Partial<WebTlsConfig> {
  return {
    ...(t.min_version ? { minVersion: TLS_VERSIONS[t.min_version] } : {}),
    ...(t.max_version ? { maxVersion: TLS_VERSIONS[t.max_version] } : {}),
    ...(t.cipher_suites?.length
      ? {
          ciphers: [
            ...tls.DEFAULT_CIPHERS.split(':').filter((c) => c.startsWith('TLS_')),
            ...t.cipher_suites.map((c) => CIPHER_SUITES[c]!),
          ].join(':'),
        }
      : {}),
    ...(t.curve_preferences?.length ? { ecdhCurve: t.curve_preferences.map((c) => CURVES[c]).join(':') } : {}),
    ...(t.prefer_server_cipher_suites !== null && t.prefer_server_cipher_suites !== undefined
      ? { honorCipherOrder: t.prefer_server_cipher_suites }
      : {}),
  };
}

export function secureContextOptions(t: WebTlsConfig): tls.SecureContextOptions {
  return {
    cert: t.cert,
    key: t.key,
    ...(t.ca ? { ca: t.ca } : {}),
    ...(t.minVersion ? { minVersion: t.minVersion } : {}),
    ...(t.maxVersion ? { maxVersion: t.maxVersion } : {}),
    ...(t.ciphers ? { ciphers: t.ciphers } : {}),
    ...(t.ecdhCurve ? { ecdhCurve: t.ecdhCurve } : {}),
    ...(t.honorCipherOrder !== undefined ? { honorCipherOrder: t.honorCipherOrder } : {}),
  };
}
