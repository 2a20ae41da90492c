// Why a node could not be reached, in words an on-call engineer reads at 3 a.m. instead of the
// codes the HTTP library and the operating system give (UND_ERR_SOCKET, EHOSTUNREACH,
// CERT_HAS_EXPIRED): every code src/http/classify.ts passes on has its words here; a code none of
// these tables knows keeps "cannot connect" with the code, the only fact there is.

/** Connection failures (src/http/classify.ts CONNECT_CODES, and what else a socket reports). */
export const CONNECT_WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused: nothing listens on the node's port",
  ECONNRESET: 'connection reset by the node',
  UND_ERR_SOCKET: 'connection closed by the node before it answered',
  UND_ERR_CLOSED: 'connection closed before the node answered',
  EPIPE: 'connection closed by the node while the request was sent',
  ECONNABORTED: 'connection aborted',
  ENOTFOUND: 'host name not found (DNS)',
  EAI_AGAIN: 'host name lookup failed for now (DNS)',
  EHOSTUNREACH: 'host unreachable: no route to the node',
  ENETUNREACH: 'network unreachable from the exporter',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_HEADERS_TIMEOUT: 'the node sent no answer in time',
  UND_ERR_BODY_TIMEOUT: "the node's answer stalled",
  UND_ERR_DESTROYED: 'request cancelled: the connection was shut down',
  UND_ERR_ABORTED: 'request cancelled',
  UND_ERR_INFO: "the node's answer could not be read",
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: "the node's answer was cut short",
  UND_ERR_RES_EXCEEDED_MAX_SIZE: "the node's answer was too large",
  HPE_INVALID_CONSTANT: "the node's answer is not HTTP",
};

/** TLS failures: certificate checks first (Node's X509 codes), then the handshake. */
export const TLS_WORDS: Readonly<Record<string, string>> = {
  CERT_HAS_EXPIRED: "TLS: the node's certificate has expired",
  CERT_NOT_YET_VALID: "TLS: the node's certificate is not valid yet",
  DEPTH_ZERO_SELF_SIGNED_CERT: "TLS: the node's certificate is self-signed and not trusted (set tls.caFile)",
  SELF_SIGNED_CERT_IN_CHAIN: "TLS: the node's certificate chain ends in an untrusted root (set tls.caFile)",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "TLS: the node's certificate is signed by an unknown authority (set tls.caFile)",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "TLS: the node's certificate is signed by an unknown authority (set tls.caFile)",
  UNABLE_TO_GET_ISSUER_CERT: "TLS: the node's certificate is signed by an unknown authority (set tls.caFile)",
  CERT_SIGNATURE_FAILURE: "TLS: the node's certificate signature is invalid",
  CERT_REVOKED: "TLS: the node's certificate was revoked",
  ERR_TLS_CERT_ALTNAME_INVALID: "TLS: the node's certificate does not name this host",
  ERR_SSL_WRONG_VERSION_NUMBER: 'TLS: the node does not speak TLS on this port',
  ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION: 'TLS: no TLS version both sides accept',
  ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE: 'TLS: handshake refused by the node',
  ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED: 'TLS: the node asks for a client certificate (set tls.certFile)',
  ERR_SSL_TLSV1_ALERT_UNKNOWN_CA: 'TLS: the node does not trust the client certificate',
  ERR_TLS_HANDSHAKE_TIMEOUT: 'TLS: handshake timed out',
  EPROTO: 'TLS: handshake failed',
};

/** Codes of the exporter's own TLS settings (src/http): the files named in the config. */
const TLS_FILE_WORDS: readonly [RegExp, string][] = [
  [/^TLS_\w*FILE_ENOENT$/, "TLS: a file named in the node's tls settings does not exist"],
  [/^TLS_\w*FILE_EACCES$/, "TLS: a file named in the node's tls settings cannot be read"],
  [/^TLS_FILES_/, "TLS: the node's tls settings name a key or certificate that cannot be used"],
];

export function connectWords(code: string | undefined): string {
  if (code === undefined || code === '') return 'cannot connect';
  return CONNECT_WORDS[code] ?? `cannot connect (${code})`;
}

export function tlsWords(code: string | undefined): string {
  if (code === undefined || code === '') return 'TLS handshake failed';
  const known = TLS_WORDS[code] ?? TLS_FILE_WORDS.find(([re]) => re.test(code))?.[1];
  return known ?? `TLS handshake failed (${code})`;
}

/** "HTTP 502 from proxy": the status is the fact the operator looks up; who answered it is the clue. */
export function httpWords(status: number, fromProxy: boolean): string {
  return `HTTP ${status} from ${fromProxy ? 'proxy' : 'node'}`;
}
