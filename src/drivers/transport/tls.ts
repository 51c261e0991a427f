import { existsSync, readFileSync, statSync } from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';

/**
 * How a connection uses TLS, in libpq's sslmode words (MariaDB's ssl options map onto them):
 * disable never; allow plaintext first, TLS if the server refuses it; prefer TLS when the server
 * offers it; require TLS without checking the certificate; verify-ca TLS with a certificate signed
 * by a trusted CA; verify-full that too, issued for the host name connected to.
 */
export type TlsMode = 'disable' | 'allow' | 'prefer' | 'require' | 'verify-ca' | 'verify-full';
export const TLS_MODES: readonly TlsMode[] = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'];

/** What the user asked for, as file names: the files are read when connecting, so no key ever lands in a result file. */
export interface TlsSettings {
  mode: TlsMode;
  /** Where the mode came from ("sslmode", "PGSSLMODE", "ssl-mode", "ssl"), for messages. */
  modeSource: string;
  /** CA certificates (PEM file), or "system" for the machine's store. */
  rootCert?: string;
  /** Client certificate and its key (PEM files), for certificate authentication. */
  cert?: string;
  key?: string;
  /** Certificate revocation list (PEM file). */
  crl?: string;
  /** PostgreSQL only: TLS at once, with ALPN "postgresql", without the SSLRequest (sslnegotiation=direct, PostgreSQL 17+). */
  direct?: boolean;
  /** PostgreSQL only: SCRAM-SHA-256-PLUS channel binding (libpq's channel_binding). */
  channelBinding?: 'disable' | 'prefer' | 'require';
  /**
   * MariaDB/MySQL only: caching_sha2_password's full authentication without TLS encrypts the
   * password with the server's RSA key: this PEM file, or (getServerPublicKey) the key the server
   * sends, which a man in the middle could replace (as MySQL's --get-server-public-key warns).
   */
  serverPublicKey?: string;
  getServerPublicKey?: boolean;
}

/** The session a connection negotiated, kept for the result and for channel binding. */
export interface TlsSession {
  protocol: string;
  cipher: string;
  /** The server's certificate in DER (tls-server-end-point channel binding hashes it). */
  peerCertificate: Buffer | undefined;
}

/**
 * A TLS setting or handshake failed: one line naming which (unknown CA, host name mismatch,
 * expired, a file that cannot be read, a server without TLS); drivers classify it as bad input.
 */
export class TlsError extends Error {
  override readonly name = 'TlsError';
  constructor(
    message: string,
    readonly code: string,
    readonly hint: string | undefined,
  ) {
    super(message);
  }
}

/** Where OpenSSL keeps the machine's trusted CAs on common systems (SSL_CERT_FILE first, as OpenSSL reads it). */
const SYSTEM_CA_FILES = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt', '/etc/ssl/cert.pem', '/etc/ssl/ca-bundle.pem'];

/**
 * The options for tls.connect: a secure context built once per settings (reading the files,
 * parsing the CAs) and the checks the mode asks for. `host` is what verify-full compares the
 * certificate's names with.
 */
export class TlsContext {
  private context: tls.SecureContext | undefined;

  constructor(readonly settings: TlsSettings) {}

  /**
   * True when the server's certificate must be signed by a trusted CA: verify-ca and verify-full,
   * and (as libpq and MySQL's clients do) any mode once a root certificate is given.
   */
  get verifiesChain(): boolean {
    return this.settings.mode === 'verify-ca' || this.settings.mode === 'verify-full' || this.settings.rootCert !== undefined;
  }

  connectOptions(host: string, socket: net.Socket | undefined, alpn: string[] | undefined): tls.ConnectionOptions {
    this.context ??= tls.createSecureContext(this.pemFiles());
    const fullCheck = this.settings.mode === 'verify-full';
    return {
      ...(socket ? { socket } : {}),
      host,
      // SNI takes a name, never an address (RFC 6066, 3).
      ...(net.isIP(host) === 0 ? { servername: host } : {}),
      secureContext: this.context,
      rejectUnauthorized: this.verifiesChain,
      checkServerIdentity: fullCheck ? tls.checkServerIdentity : () => undefined,
      ...(alpn ? { ALPNProtocols: alpn } : {}),
    };
  }

  /** The PEM text of the files the settings name, read now (a file that cannot be used throws TlsError). */
  pemFiles(): { ca?: string; cert?: string; key?: string; crl?: string } {
    const { rootCert, cert, key, crl } = this.settings;
    const options: { ca?: string; cert?: string; key?: string; crl?: string } = {};
    if (rootCert === 'system') options.ca = readPem(systemCaFile(), 'the system CA store');
    else if (rootCert !== undefined) options.ca = readPem(rootCert, 'root certificate');
    if (cert !== undefined) options.cert = readPem(cert, 'client certificate');
    if (key !== undefined) {
      checkKeyPermissions(key);
      options.key = readPem(key, 'client key');
    }
    if (crl !== undefined) options.crl = readPem(crl, 'certificate revocation list');
    return options;
  }
}

function systemCaFile(): string {
  const fromEnv = process.env['SSL_CERT_FILE'];
  const found = [...(fromEnv ? [fromEnv] : []), ...SYSTEM_CA_FILES].find((file) => existsSync(file));
  if (!found)
    throw new TlsError(
      'sslrootcert=system, but this machine has no CA bundle where OpenSSL keeps it',
      'TLS_FILE',
      'install ca-certificates, or name a CA file',
    );
  return found;
}

function readPem(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new TlsError(
      `cannot read the ${what} file "${file}": ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      'TLS_FILE',
      'check the path and its permissions',
    );
  }
}

/**
 * libpq refuses a private key others may read: 0600 or less when the user owns it, 0640 or less
 * when root does (fe-secure-openssl.c), so that a key a psql user has works here and no other.
 */
function checkKeyPermissions(file: string): void {
  let stat;
  try {
    stat = statSync(file);
  } catch (error) {
    throw new TlsError(
      `cannot read the client key file "${file}": ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      'TLS_FILE',
      'check the path and its permissions',
    );
  }
  if (process.platform === 'win32' || !stat.isFile()) return;
  const tooOpen = stat.uid === 0 ? (stat.mode & 0o037) !== 0 : (stat.mode & 0o077) !== 0;
  if (tooOpen) {
    throw new TlsError(
      `the client key file "${file}" has group or world access`,
      'TLS_KEY_PERMISSIONS',
      `chmod 0600 ${file} (or 0640 when root owns it), as libpq demands`,
    );
  }
}

/** Node's certificate verification codes (OpenSSL's X509_V_ERR_* names), told in one line each. */
const UNKNOWN_CA = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
]);

/** A handshake failure as the user can act on it; `where` names the server, `settings` the options. */
export function tlsFailure(error: Error, where: string, settings: TlsSettings): TlsError {
  if (error instanceof TlsError) return error;
  const code = (error as NodeJS.ErrnoException).code ?? 'TLS_HANDSHAKE';
  const ca = settings.rootCert === undefined ? 'no root certificate given' : `root certificate ${settings.rootCert}`;
  if (UNKNOWN_CA.has(code)) {
    return new TlsError(
      `TLS: the certificate of ${where} is signed by an unknown CA (${code}, ${ca})`,
      code,
      'give the CA that signed it (sslrootcert / ssl-ca), or use sslmode=require to skip verification',
    );
  }
  if (code === 'CERT_HAS_EXPIRED') return new TlsError(`TLS: the certificate of ${where} has expired`, code, 'the server needs a renewed certificate');
  if (code === 'CERT_NOT_YET_VALID')
    return new TlsError(`TLS: the certificate of ${where} is not valid yet`, code, 'check the clocks of the client and the server');
  if (code === 'CERT_REVOKED') return new TlsError(`TLS: the certificate of ${where} is revoked`, code, 'the certificate revocation list (sslcrl) lists it');
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return new TlsError(
      `TLS: host name mismatch: ${error.message.replace(/^Hostname\/IP does not match certificate's altnames: /, '')}`,
      code,
      'connect with a name the certificate lists, or use sslmode=verify-ca',
    );
  }
  return new TlsError(`TLS handshake with ${where} failed: ${error.message}`, code, undefined);
}
