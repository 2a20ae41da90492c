// Why a node fails, in words: every failure the HTTP client can report (src/http/classify.ts),
// taken through the same steps as a probe's failure (classify -> ProbeFailure -> Reason -> words),
// reads as words, never as the library's or the system's code.
import { errors } from 'undici';
import { describe, expect, it } from 'vitest';
import type { FailureReason } from '../../src/domain.js';
import { classifyTransportError, CONNECT_CODES } from '../../src/http/classify.js';
import { CONNECT_WORDS } from '../../src/status/failureWords.js';
import { failureToReason, reasonText } from '../../src/status/words.js';

const URL_SHOWN = 'http://10.0.0.7:9710/';
const coded = (code: string) => Object.assign(new Error(`failed: ${code}`), { code });
const undiciCause = (code: string) => Object.assign(new TypeError('fetch failed'), { cause: coded(code) });

/** The words the status page shows for a transport error of a probe with a 2 s timeout. */
function wordsFor(err: unknown, deadlinePassed = false): string {
  const c = classifyTransportError(err, URL_SHOWN, deadlinePassed);
  const f = { at: 0, reason: c.reason as FailureReason, message: `GET /health: ${c.message}`, fromProxy: false };
  return reasonText(failureToReason(f, 2000));
}

const TRANSPORT: [what: string, err: unknown, words: string][] = [
  ['ECONNREFUSED', coded('ECONNREFUSED'), "connection refused: nothing listens on the node's port"],
  ['ECONNRESET', coded('ECONNRESET'), 'connection reset by the node'],
  ['UND_ERR_SOCKET', new errors.SocketError('other side closed'), 'connection closed by the node before it answered'],
  ['UND_ERR_CLOSED', new errors.ClientClosedError(), 'connection closed before the node answered'],
  ['EPIPE', coded('EPIPE'), 'connection closed by the node while the request was sent'],
  ['ECONNABORTED', coded('ECONNABORTED'), 'connection aborted'],
  ['ENOTFOUND (as undici wraps it)', undiciCause('ENOTFOUND'), 'host name not found (DNS)'],
  ['EAI_AGAIN', coded('EAI_AGAIN'), 'host name lookup failed for now (DNS)'],
  ['EHOSTUNREACH', coded('EHOSTUNREACH'), 'host unreachable: no route to the node'],
  ['ENETUNREACH', coded('ENETUNREACH'), 'network unreachable from the exporter'],
  ['ETIMEDOUT', coded('ETIMEDOUT'), 'timeout after 2 s'],
  ['UND_ERR_CONNECT_TIMEOUT', new errors.ConnectTimeoutError(), 'timeout after 2 s'],
  ['UND_ERR_HEADERS_TIMEOUT', new errors.HeadersTimeoutError(), 'timeout after 2 s'],
  ['the exchange deadline', coded('UND_ERR_ABORTED'), 'timeout after 2 s'],
  ['CERT_HAS_EXPIRED', coded('CERT_HAS_EXPIRED'), "TLS: the node's certificate has expired"],
  ['CERT_NOT_YET_VALID', coded('CERT_NOT_YET_VALID'), "TLS: the node's certificate is not valid yet"],
  [
    'DEPTH_ZERO_SELF_SIGNED_CERT',
    coded('DEPTH_ZERO_SELF_SIGNED_CERT'),
    "TLS: the node's certificate is self-signed and not trusted (set tls.caFile)",
  ],
  [
    'SELF_SIGNED_CERT_IN_CHAIN',
    coded('SELF_SIGNED_CERT_IN_CHAIN'),
    "TLS: the node's certificate chain ends in an untrusted root (set tls.caFile)",
  ],
  [
    'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    coded('UNABLE_TO_VERIFY_LEAF_SIGNATURE'),
    "TLS: the node's certificate is signed by an unknown authority (set tls.caFile)",
  ],
  [
    'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
    coded('UNABLE_TO_GET_ISSUER_CERT_LOCALLY'),
    "TLS: the node's certificate is signed by an unknown authority (set tls.caFile)",
  ],
  [
    'ERR_TLS_CERT_ALTNAME_INVALID',
    coded('ERR_TLS_CERT_ALTNAME_INVALID'),
    "TLS: the node's certificate does not name this host",
  ],
  [
    'ERR_SSL_WRONG_VERSION_NUMBER',
    coded('ERR_SSL_WRONG_VERSION_NUMBER'),
    'TLS: the node does not speak TLS on this port',
  ],
  [
    'TLS_KEYFILE_ENOENT (tls settings)',
    coded('TLS_KEYFILE_ENOENT'),
    "TLS: a file named in the node's tls settings does not exist",
  ],
  [
    'TLS_FILES_ERR_OSSL_PEM_NO_START_LINE',
    coded('TLS_FILES_ERR_OSSL_PEM_NO_START_LINE'),
    "TLS: the node's tls settings name a key or certificate that cannot be used",
  ],
  ['UND_ERR_RES_CONTENT_LENGTH_MISMATCH', new errors.ResponseContentLengthMismatchError(), 'invalid answer'],
  ['HPE_* (HTTPParserError)', new errors.HTTPParserError('bad'), 'invalid answer'],
];

describe('failure reasons in words', () => {
  it.each(TRANSPORT)('%s reads as words', (what, err, words) => {
    const shown = wordsFor(err, what === 'the exchange deadline');
    if (words === 'invalid answer')
      expect(shown).toMatch(/^invalid answer: (malformed HTTP|body length mismatch) from /);
    else expect(shown).toBe(words);
  });

  it('has words for every code the HTTP client counts as a connection failure', () => {
    for (const code of CONNECT_CODES) {
      expect(CONNECT_WORDS[code], code).toBeDefined();
      expect(wordsFor(coded(code)), code).not.toContain(code);
    }
  });

  it('keeps an unknown code as the only fact there is, after the words', () => {
    expect(wordsFor(coded('ESOMETHINGNEW'))).toBe('cannot connect (ESOMETHINGNEW)');
    expect(wordsFor(coded('ERR_SSL_SOMETHING_NEW'))).toBe('TLS handshake failed (ERR_SSL_SOMETHING_NEW)');
    expect(wordsFor(new Error('no code'))).toBe('cannot connect');
  });

  const ANSWERS: [reason: FailureReason, message: string, status: number | undefined, proxy: boolean, words: string][] =
    [
      ['http_5xx', 'POST claw_blockNumber: HTTP 502', 502, true, 'HTTP 502 from proxy'],
      ['http_5xx', 'POST claw_blockNumber: HTTP 500', 500, false, 'HTTP 500 from node'],
      ['http_5xx', 'GET /health: HTTP 503', 503, false, 'HTTP 503 from node'],
      ['http_4xx', 'GET /metrics: HTTP 401', 401, true, 'HTTP 401 from proxy'],
      ['invalid_response', 'GET /health: body is not JSON', undefined, false, 'invalid answer: body is not JSON'],
      ['rpc_error', 'POST claw_validators: -32000 method busy', undefined, false, 'RPC error: -32000 method busy'],
    ];
  it.each(ANSWERS)('%s (%s) reads "%s"', (reason, message, httpStatus, fromProxy, words) => {
    expect(reasonText(failureToReason({ at: 0, reason, message, httpStatus, fromProxy }, 2000))).toBe(words);
  });
});
