import { createHash } from 'node:crypto';

/**
 * tls-server-end-point channel binding data (RFC 5929, 4.1): the hash of the server's
 * certificate, with the hash of its signature algorithm, SHA-256 in place of MD5 and SHA-1. The
 * server computes the same over its own certificate, so a man in the middle holding another
 * certificate cannot relay a SCRAM-SHA-256-PLUS login.
 */
export function serverEndPoint(certificate: Buffer): Buffer {
  return createHash(signatureHash(certificate)).update(certificate).digest();
}

/** Signature algorithm OIDs (DER content bytes, hex) and the hash each signs with. */
const HASH_OF: Record<string, string> = {
  '2a864886f70d010104': 'sha256', // md5WithRSAEncryption: MD5 is replaced by SHA-256
  '2a864886f70d010105': 'sha256', // sha1WithRSAEncryption: SHA-1 too
  '2a8648ce3d0401': 'sha256', // ecdsa-with-SHA1
  '2a864886f70d01010b': 'sha256', // sha256WithRSAEncryption
  '2a864886f70d01010c': 'sha384',
  '2a864886f70d01010d': 'sha512',
  '2a864886f70d01010e': 'sha224',
  '2a8648ce3d040302': 'sha256', // ecdsa-with-SHA256
  '2a8648ce3d040303': 'sha384',
  '2a8648ce3d040304': 'sha512',
  '2a8648ce3d040301': 'sha224', // ecdsa-with-SHA224
  '608648016503040302': 'sha256', // dsa-with-sha256
};

/**
 * The hash of the certificate's outer signatureAlgorithm: Certificate ::= SEQUENCE {
 * tbsCertificate, signatureAlgorithm AlgorithmIdentifier, signature } (RFC 5280, 4.1).
 */
function signatureHash(der: Buffer): string {
  let at = header(der, 0).content; // into the Certificate SEQUENCE
  at = header(der, at).end; // past tbsCertificate
  const algorithm = header(der, at); // AlgorithmIdentifier SEQUENCE
  const oid = header(der, algorithm.content);
  if (der[oid.start] !== 0x06) throw new Error('channel binding: the server certificate has no signature algorithm');
  const hash = HASH_OF[der.toString('hex', oid.content, oid.end)];
  // RSASSA-PSS and EdDSA name no single hash: RFC 5929 leaves them undefined, so does PostgreSQL.
  if (!hash)
    throw new Error('channel binding: the server certificate is signed with an algorithm tls-server-end-point does not define (use channel_binding=disable)');
  return hash;
}

/** A DER tag-length header at `start`: where its content begins and where the element ends. */
function header(der: Buffer, start: number): { start: number; content: number; end: number } {
  let length = der[start + 1]!;
  let content = start + 2;
  if (length & 0x80) {
    const bytes = length & 0x7f;
    length = 0;
    for (let i = 0; i < bytes; i++) length = length * 256 + der[content + i]!;
    content += bytes;
  }
  return { start, content, end: content + length };
}
