import { constants, createHash, publicEncrypt } from 'node:crypto';
import { unframeableString } from '../../unframeable.js';

/** The answer to a scramble for an authentication plugin; undefined when headroom does not speak it. */
export function authAnswer(plugin: string, password: string, scramble: Buffer): Buffer | undefined {
  switch (plugin) {
    case 'mysql_native_password':
      return nativePassword(password, scramble);
    case 'caching_sha2_password':
      return cachingSha2(password, scramble);
    case 'mysql_clear_password':
      if (password.includes('\0')) throw unframeableString('MariaDB', password);
      return Buffer.from(`${password}\0`);
    default:
      return undefined;
  }
}

const sha1 = (...parts: Buffer[]): Buffer => parts.reduce((h, p) => h.update(p), createHash('sha1')).digest();
const sha256 = (...parts: Buffer[]): Buffer => parts.reduce((h, p) => h.update(p), createHash('sha256')).digest();

function xor(a: Buffer, b: Buffer): Buffer {
  const out = Buffer.allocUnsafe(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i]! ^ b[i]!;
  return out;
}

/** SHA1(password) XOR SHA1(scramble + SHA1(SHA1(password))); nothing for an empty password. */
function nativePassword(password: string, scramble: Buffer): Buffer {
  if (password === '') return Buffer.alloc(0);
  const stage1 = sha1(Buffer.from(password, 'utf8'));
  return xor(stage1, sha1(scramble.subarray(0, 20), sha1(stage1)));
}

/**
 * caching_sha2_password's full authentication without TLS (MySQL's "caching_sha2_password"
 * protocol page): the NUL-terminated password XOR the scramble (repeated), encrypted with the
 * server's RSA public key, OAEP padding.
 */
export function rsaEncryptedPassword(password: string, scramble: Buffer, publicKeyPem: string): Buffer {
  const plain = Buffer.from(`${password}\0`, 'utf8');
  const nonce = scramble.subarray(0, 20);
  for (let i = 0; i < plain.length; i++) plain[i] = plain[i]! ^ nonce[i % nonce.length]!;
  return publicEncrypt({ key: publicKeyPem, padding: constants.RSA_PKCS1_OAEP_PADDING }, plain);
}

/** SHA256(password) XOR SHA256(SHA256(SHA256(password)) + scramble) (MySQL 8's fast path). */
function cachingSha2(password: string, scramble: Buffer): Buffer {
  if (password === '') return Buffer.alloc(0);
  const stage1 = sha256(Buffer.from(password, 'utf8'));
  return xor(stage1, sha256(sha256(stage1), scramble.subarray(0, 20)));
}
