// The certificate expiry of the chain a connection was verified through: the leaf, the
// intermediates the node sent up to a trusted anchor, and that anchor; not every certificate the
// node sent. A node may send a long chain with an expired cross-signed root (the AddTrust 2020 and
// DST Root CA X3 cases) that verifies through the short path to a trusted root: that expired
// certificate is no part of what was verified, and its date must not page anyone.
import { X509Certificate } from 'node:crypto';
import { rootCertificates, type TLSSocket } from 'node:tls';

/** The longest chain followed (real ones have 2 to 4 certificates). */
const MAX_CHAIN = 10;

interface PeerCert {
  raw?: Buffer;
  issuerCertificate?: PeerCert;
}

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The certificates of a PEM bundle (a caFile), those that parse. */
export function anchorsOf(pem: Buffer | string): X509Certificate[] {
  const out: X509Certificate[] = [];
  for (const block of String(pem).match(PEM_BLOCK) ?? []) {
    try {
      out.push(new X509Certificate(block));
    } catch {
      // Not a certificate: the TLS context refuses the file anyway.
    }
  }
  return out;
}

let system: X509Certificate[] | undefined;

/** Node's bundled roots, the anchors of connections without a caFile; parsed at the first https handshake. */
export function systemAnchors(): X509Certificate[] {
  return (system ??= rootCertificates.flatMap((pem) => anchorsOf(pem)));
}

/** The certificates the peer sent (and any root Node added from its store), leaf first, each once. */
function sentCertificates(socket: Pick<TLSSocket, 'getPeerCertificate'>): X509Certificate[] {
  const out: X509Certificate[] = [];
  const seen = new Set<unknown>();
  let cert = socket.getPeerCertificate(true) as PeerCert | undefined;
  while (cert?.raw && !seen.has(cert) && out.length < MAX_CHAIN * 2) {
    seen.add(cert);
    try {
      out.push(new X509Certificate(cert.raw));
    } catch {
      break;
    }
    cert = cert.issuerCertificate;
  }
  return out;
}

const issues = (issuer: X509Certificate, cert: X509Certificate): boolean =>
  cert.checkIssued(issuer) && cert.verify(issuer.publicKey);

/**
 * The verified chain: from the leaf, issuer by issuer (name and signature), a trusted anchor taken
 * as soon as one issued the certificate at hand (as OpenSSL's trusted-first search does). Without
 * a path to an anchor (insecureSkipVerify, a root from elsewhere), the certificates sent as far as
 * they link.
 */
export function verifiedChain(
  socket: Pick<TLSSocket, 'getPeerCertificate'>,
  anchors: readonly X509Certificate[],
): X509Certificate[] {
  const sent = sentCertificates(socket);
  const leaf = sent[0];
  if (!leaf) return [];
  const chain = [leaf];
  for (let cur = leaf; chain.length < MAX_CHAIN;) {
    const anchor = anchors.find((a) => issues(a, cur));
    if (anchor) {
      if (anchor.fingerprint256 !== cur.fingerprint256) chain.push(anchor);
      break;
    }
    const next = sent.find((c) => !chain.includes(c) && issues(c, cur));
    if (!next) break;
    chain.push(next);
    cur = next;
  }
  return chain;
}

/** Unix seconds of the earliest expiry in the verified chain; undefined when the peer showed no certificate. */
export function verifiedChainExpiry(
  socket: Pick<TLSSocket, 'getPeerCertificate'>,
  anchors: readonly X509Certificate[],
): number | undefined {
  let earliest: number | undefined;
  for (const c of verifiedChain(socket, anchors)) {
    const t = Date.parse(c.validTo);
    if (Number.isFinite(t)) earliest = Math.min(earliest ?? Infinity, Math.floor(t / 1000));
  }
  return earliest;
}
