import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';

/** MD5 password answer: "md5" + md5(md5(password + user) + salt) (PostgreSQL protocol docs, AuthenticationMD5Password). */
export function md5Answer(user: string, password: string, salt: Buffer): string {
  const inner = createHash('md5')
    .update(password + user)
    .digest('hex');
  return `md5${createHash('md5')
    .update(Buffer.concat([Buffer.from(inner), salt]))
    .digest('hex')}`;
}

/**
 * One SCRAM-SHA-256 exchange (RFC 5802 / RFC 7677), as PostgreSQL's SASL authentication runs it.
 * `binding` is the tls-server-end-point data for SCRAM-SHA-256-PLUS; `tlsWithoutPlus` says the
 * client could bind but the server offered no -PLUS (gs2 flag "y", so a server that does offer it
 * detects a downgrade).
 */
export class ScramSession {
  private readonly clientNonce = randomBytes(18).toString('base64');
  private readonly clientFirstBare: string;
  private readonly gs2Header: string;
  private serverSignature: Buffer | undefined;

  constructor(
    private readonly password: string,
    private readonly binding?: Buffer,
    tlsWithoutPlus = false,
  ) {
    // PostgreSQL ignores the SCRAM user name and takes the startup message's (RFC 5802 allows n=).
    this.clientFirstBare = `n=,r=${this.clientNonce}`;
    this.gs2Header = binding ? 'p=tls-server-end-point,,' : tlsWithoutPlus ? 'y,,' : 'n,,';
  }

  clientFirst(): string {
    return `${this.gs2Header}${this.clientFirstBare}`;
  }

  clientFinal(serverFirst: string): string {
    const attributes = parseAttributes(serverFirst);
    const nonce = attributes.get('r');
    const salt = attributes.get('s');
    const iterations = Number(attributes.get('i'));
    if (!nonce?.startsWith(this.clientNonce) || !salt || !Number.isInteger(iterations) || iterations < 1) {
      throw new Error('SCRAM: the server sent an invalid first message');
    }
    const salted = pbkdf2Sync(this.password.normalize('NFKC'), Buffer.from(salt, 'base64'), iterations, 32, 'sha256');
    const clientKey = hmac(salted, 'Client Key');
    const storedKey = createHash('sha256').update(clientKey).digest();
    const channel = Buffer.concat([Buffer.from(this.gs2Header), this.binding ?? Buffer.alloc(0)]).toString('base64');
    const withoutProof = `c=${channel},r=${nonce}`;
    const authMessage = `${this.clientFirstBare},${serverFirst},${withoutProof}`;
    const signature = hmac(storedKey, authMessage);
    const proof = Buffer.alloc(clientKey.length);
    for (let i = 0; i < proof.length; i++) proof[i] = clientKey[i]! ^ signature[i]!;
    this.serverSignature = hmac(hmac(salted, 'Server Key'), authMessage);
    return `${withoutProof},p=${proof.toString('base64')}`;
  }

  /** The server proves it knew the password too; a mismatch means we talked to an impostor. */
  verifyServerFinal(serverFinal: string): void {
    const verifier = parseAttributes(serverFinal).get('v');
    const expected = this.serverSignature;
    if (!verifier || !expected || !timingSafeEqual(Buffer.from(verifier, 'base64'), expected)) {
      throw new Error('SCRAM: the server signature does not match');
    }
  }
}

function hmac(key: Buffer, text: string): Buffer {
  return createHmac('sha256', key).update(text).digest();
}

function parseAttributes(message: string): Map<string, string> {
  return new Map(message.split(',').map((part) => [part.slice(0, 1), part.slice(2)] as [string, string]));
}
