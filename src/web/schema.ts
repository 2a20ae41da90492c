// The exporter-toolkit web config file (the `--web.config.file` of node_exporter and friends),
// as documented at https://github.com/prometheus/exporter-toolkit/blob/master/docs/web-configuration.md
// Keys are snake_case as users already write them; unknown keys are errors.
import { z } from 'zod';

export const CLIENT_AUTH_TYPES = [
  'NoClientCert',
  'RequestClientCert',
  'RequireAnyClientCert',
  'VerifyClientCertIfGiven',
  'RequireAndVerifyClientCert',
] as const;
export type ClientAuthType = (typeof CLIENT_AUTH_TYPES)[number];

export const TLS_VERSIONS = { TLS10: 'TLSv1', TLS11: 'TLSv1.1', TLS12: 'TLSv1.2', TLS13: 'TLSv1.3' } as const;

/** Go curve names -> OpenSSL group names. */
export const CURVES = { CurveP256: 'P-256', CurveP384: 'P-384', CurveP521: 'P-521', X25519: 'X25519' } as const;

/** Go cipher suite names (TLS 1.2 and below, as Go's crypto/tls spells them) -> OpenSSL names. */
export const CIPHER_SUITES: Record<string, string> = {
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
};

/** Response headers exporter-toolkit lets users set. */
export const ALLOWED_HEADERS = [
  'Content-Security-Policy',
  'X-Frame-Options',
  'X-Content-Type-Options',
  'X-XSS-Protection',
  'Strict-Transport-Security',
] as const;

const BCRYPT_HASH = /^\$2[aby]?\$\d{2}\$[./A-Za-z0-9]{53}$/;

const nonEmpty = z.string().trim().min(1, { error: 'must not be empty' });
const headerValue = z.string().regex(/^[^\r\n\0]*$/, { error: 'must be a single line' });

const tlsServerConfig = z.strictObject({
  cert_file: nonEmpty.nullish(),
  key_file: nonEmpty.nullish(),
  cert: nonEmpty.nullish(),
  key: nonEmpty.nullish(),
  client_auth_type: z.enum(CLIENT_AUTH_TYPES).nullish(),
  client_ca_file: nonEmpty.nullish(),
  client_allowed_sans: z.array(nonEmpty).nullish(),
  min_version: z.enum(Object.keys(TLS_VERSIONS) as [keyof typeof TLS_VERSIONS]).nullish(),
  max_version: z.enum(Object.keys(TLS_VERSIONS) as [keyof typeof TLS_VERSIONS]).nullish(),
  cipher_suites: z
    .array(
      z.string().refine((s) => s in CIPHER_SUITES, {
        error: (i) => `unknown cipher suite ${String(i.input)} (Go crypto/tls names, TLS 1.2 suites)`,
      }),
    )
    .nullish(),
  curve_preferences: z.array(z.enum(Object.keys(CURVES) as [keyof typeof CURVES])).nullish(),
  prefer_server_cipher_suites: z.boolean().nullish(),
});

const httpServerConfig = z.strictObject({
  // We serve HTTP/1.1; the flag is accepted so node_exporter files load unchanged.
  http2: z.boolean().nullish(),
  headers: z
    .strictObject({
      'Content-Security-Policy': headerValue.nullish(),
      'X-Frame-Options': z
        .string()
        .regex(/^(deny|sameorigin)$/i, { error: 'must be deny or sameorigin' })
        .nullish(),
      'X-Content-Type-Options': z
        .string()
        .regex(/^nosniff$/i, { error: 'must be nosniff' })
        .nullish(),
      'X-XSS-Protection': headerValue.nullish(),
      'Strict-Transport-Security': headerValue.nullish(),
    })
    .nullish(),
});

export const webConfigSchema = z
  .strictObject({
    tls_server_config: tlsServerConfig.nullish(),
    http_server_config: httpServerConfig.nullish(),
    basic_auth_users: z
      .record(
        z
          .string()
          .min(1, { error: 'user name must not be empty' })
          .regex(/^[^:]*$/, { error: 'user name must not contain ":"' }),
        z.string().regex(BCRYPT_HASH, {
          error: 'must be a bcrypt hash ($2y$..., e.g. from `htpasswd -nBC 10 "" | tr -d \':\\n\'`)',
        }),
      )
      .nullish(),
  })
  .nullish();

export type RawWebConfig = NonNullable<z.infer<typeof webConfigSchema>>;
