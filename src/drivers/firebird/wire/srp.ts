import { createHash, randomBytes } from 'node:crypto';

/**
 * The client side of Firebird's SRP-6a login (plugins Srp and Srp256): Firebird's own variant,
 * whose choices a client must follow to the byte. Every number is hashed as its shortest
 * big-endian bytes, except k = H(N, g) over both padded to 128 bytes; the exponents are reduced
 * mod N; the salt is hashed as the hex text the server sends; the proof's first term is
 * H(N)^H(g) mod N. Only the proof's outer hash follows the plugin (SHA-1 or SHA-256).
 */
const N = BigInt(
  '0xE67D2E994B2F900C3F41F08F5BB2627ED0D49EE1FE767A52EFCD565CD6E768812C3E1E9CE8F0A8BEA6CB13CD29DDEBF7A96D4A93B55D488DF099A15C89DCB0640738EB2CBDD9A8F7BAB561AB1B0DC1C6CDABF303264A08D1BCA932D1F1EE428B619D970F342ABA9A65793B8B2F041AE5364350C16F735F56ECBCA87BD57B29E7',
);
const g = 2n;
const KEY_BYTES = 128;

export type SrpPlugin = 'Srp' | 'Srp256';
const PROOF_HASH: Record<SrpPlugin, string> = { Srp: 'sha1', Srp256: 'sha256' };

function modPow(base: bigint, exponent: bigint, modulus: bigint): bigint {
  let result = 1n;
  base %= modulus;
  while (exponent > 0n) {
    if (exponent & 1n) result = (result * base) % modulus;
    exponent >>= 1n;
    base = (base * base) % modulus;
  }
  return result;
}

/** The shortest big-endian bytes of a non-negative number. */
function bytesOf(n: bigint): Buffer {
  const hex = n.toString(16);
  return Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
}

function padded(n: bigint): Buffer {
  const bytes = bytesOf(n);
  const out = Buffer.alloc(KEY_BYTES);
  bytes.copy(out, KEY_BYTES - bytes.length);
  return out;
}

function hash(algorithm: string, ...parts: (Buffer | string)[]): Buffer {
  const h = createHash(algorithm);
  for (const part of parts) h.update(part);
  return h.digest();
}

const toBig = (bytes: Buffer): bigint => BigInt(`0x${bytes.toString('hex') || '0'}`);
const k = toBig(hash('sha1', padded(N), padded(g)));

export interface SrpClient {
  /** A, as the hex text the login's first packet carries. */
  publicHex: string;
  /** The proof M for the server's salt and B, and the session key K (the wire-crypt key). */
  proof(user: string, password: string, saltHex: string, serverPublicHex: string, plugin: SrpPlugin): { proofHex: string; sessionKey: Buffer };
}

export function srpClient(): SrpClient {
  // a in [1, N): the server reduces a + ux mod N, so an a past N would give another key.
  let a = 0n;
  while (a === 0n) a = toBig(randomBytes(KEY_BYTES)) % N;
  const A = modPow(g, a, N);
  return {
    publicHex: A.toString(16),
    proof(user, password, saltHex, serverPublicHex, plugin) {
      if (!/^[0-9a-f]+$/i.test(serverPublicHex)) throw new Error('the server sent an Srp public key that is not hex');
      const B = BigInt(`0x${serverPublicHex}`);
      if (B % N === 0n) throw new Error('the server sent an Srp public key of 0 mod N');
      const login = user.toUpperCase();
      const u = toBig(hash('sha1', bytesOf(A), bytesOf(B)));
      const x = toBig(hash('sha1', saltHex, hash('sha1', login, ':', password)));
      let base = (B - ((k * modPow(g, x, N)) % N)) % N;
      if (base < 0n) base += N;
      const S = modPow(base, (a + ((u * x) % N)) % N, N);
      const K = hash('sha1', bytesOf(S));
      const first = modPow(toBig(hash('sha1', bytesOf(N))), toBig(hash('sha1', bytesOf(g))), N);
      const M = hash(PROOF_HASH[plugin], bytesOf(first), bytesOf(toBig(hash('sha1', login))), saltHex, bytesOf(A), bytesOf(B), K);
      return { proofHex: toBig(M).toString(16), sessionKey: K };
    },
  };
}
