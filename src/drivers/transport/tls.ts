import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import net from 'node:net';
import tls from 'node:tls';
import type { TlsMode } from './tls-modes.js';

// In their own file, so that resolving a URL's sslmode loads neither node:tls nor node:net; also exported from here.
export { TLS_MODES, type TlsMode } from './tls-modes.js';

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
  /** Certificate revocation lists (a PEM file of one or more), and the parameter that named it ("sslcrl", "PGSSLCRL", "ssl-crl"), for messages. */
  crl?: string;
  crlSource?: string;
  /** PostgreSQL only: a folder of CRLs named by their issuer's hash (HASH.r0, as `openssl rehash` names them; libpq's sslcrldir). */
  crlDir?: string;
  crlDirSource?: string;
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
    this.context ??= this.secureContext();
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

  /** Node's context for the files; what OpenSSL cannot parse is told in one line naming the files. */
  private secureContext(): tls.SecureContext {
    const pem = this.pemFiles();
    try {
      return tls.createSecureContext(pem);
    } catch (error) {
      const named = crlSources(this.settings, (file) => `"${file}"`);
      // Node's message for a CRL it cannot parse, whose only source is the revocation lists.
      if (/CRL/.test((error as Error).message) && named.length > 0) {
        throw new TlsError(`a certificate revocation list in ${named.join(' or ')} cannot be parsed: ${(error as Error).message}`, 'TLS_FILE', CRL_HINT);
      }
      throw new TlsError(`the TLS files cannot be used: ${(error as Error).message}`, 'TLS_FILE', 'check the certificate and key files are PEM');
    }
  }

  /**
   * The PEM text of the files the settings name, read now (a file that cannot be used throws
   * TlsError). The revocation lists come one to an entry: Node's crl option parses only the first
   * of a text, where libpq (and the reactor) take every list in the file.
   */
  pemFiles(): { ca?: string; cert?: string; key?: string; crl?: string[] } {
    const { rootCert, cert, key, crl, crlDir } = this.settings;
    const options: { ca?: string; cert?: string; key?: string; crl?: string[] } = {};
    if (rootCert === 'system') options.ca = readPem(systemCaFile(), 'system CA store file');
    else if (rootCert !== undefined) options.ca = readPem(rootCert, 'root certificate file');
    if (cert !== undefined) options.cert = readPem(cert, 'client certificate file');
    if (key !== undefined) {
      checkKeyPermissions(key);
      options.key = readPem(key, 'client key file');
    }
    const lists = [
      ...(crl !== undefined ? crlsOf(crl, this.settings.crlSource ?? 'crl') : []),
      ...(crlDir !== undefined ? crlFolder(crlDir, this.settings.crlDirSource ?? 'crl folder') : []),
    ];
    if (lists.length > 0) options.crl = lists;
    return options;
  }
}

const CRL_HINT = 'give revocation lists in PEM ("-----BEGIN X509 CRL-----"; openssl crl -inform DER -in FILE -out FILE.pem converts a DER one)';
const PEM_CRL = /-----BEGIN X509 CRL-----[\s\S]*?-----END X509 CRL-----/g;

/** The PEM revocation lists in `file`; a file without any is an error, never a check silently left out. */
function crlsOf(file: string, source: string): string[] {
  const lists = readPem(file, `certificate revocation list file (${source})`).match(PEM_CRL) ?? [];
  if (lists.length === 0) throw new TlsError(`the certificate revocation list file (${source}) "${file}" holds no PEM revocation list`, 'TLS_FILE', CRL_HINT);
  return lists;
}

/**
 * The lists in a folder as libpq's sslcrldir reads it (OpenSSL's hashed directory): the files
 * named HASH.rN, other files ignored. All are loaded at once, which checks the same chains as
 * OpenSSL's lookup by hash; a folder without such files is refused rather than checking nothing.
 */
function crlFolder(folder: string, source: string): string[] {
  let names: string[];
  try {
    names = readdirSync(folder).filter((name) => /^[0-9a-f]{8}\.r\d+$/.test(name));
  } catch (error) {
    throw new TlsError(
      `cannot read the certificate revocation list folder (${source}) "${folder}": ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      'TLS_FILE',
      'check the path and its permissions',
    );
  }
  if (names.length === 0) {
    throw new TlsError(
      `the certificate revocation list folder (${source}) "${folder}" has no lists named by hash (HASH.r0)`,
      'TLS_FILE',
      `run openssl rehash ${folder} after putting the PEM lists there`,
    );
  }
  return names.sort().flatMap((name) => crlsOf(path.join(folder, name), source));
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

/** `what` names the file: "root certificate file", "certificate revocation list file (sslcrl)". */
function readPem(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new TlsError(
      `cannot read the ${what} "${file}": ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
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

/** Where the revocation lists came from, each as the parameter that named it and its path: `sslcrl /path/root.crl`. */
function crlSources(settings: TlsSettings, show: (file: string) => string = (file) => file): string[] {
  return [
    settings.crl !== undefined ? `${settings.crlSource ?? 'crl'} ${show(settings.crl)}` : '',
    settings.crlDir !== undefined ? `${settings.crlDirSource ?? 'crl folder'} ${show(settings.crlDir)}` : '',
  ].filter(Boolean);
}

/** The revocation lists' sources for a verification failure's message. */
function crlNames(settings: TlsSettings): string {
  const named = crlSources(settings);
  return named.length > 0 ? named.join(' and ') : 'the revocation lists';
}

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
  const crls = crlNames(settings);
  if (code === 'CERT_REVOKED')
    return new TlsError(
      `TLS: the certificate of ${where} is revoked: ${crls} lists it`,
      code,
      'the server needs a new certificate, or the list is out of date',
    );
  if (code === 'UNABLE_TO_GET_CRL')
    return new TlsError(`TLS: no certificate revocation list from the CA of ${where} in ${crls}`, code, 'add the revocation list of every CA in the chain');
  if (code === 'CRL_HAS_EXPIRED')
    return new TlsError(`TLS: the certificate revocation list for ${where} is out of date: ${crls}`, code, 'fetch a current list from the CA');
  if (code === 'CRL_NOT_YET_VALID')
    return new TlsError(`TLS: the certificate revocation list for ${where} is not valid yet: ${crls}`, code, 'check the clocks of the client and the CA');
  if (code === 'CRL_SIGNATURE_FAILURE' || code === 'UNABLE_TO_DECRYPT_CRL_SIGNATURE')
    return new TlsError(`TLS: the certificate revocation list for ${where} has a bad signature: ${crls}`, code, 'fetch the list again from the CA');
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return new TlsError(
      `TLS: host name mismatch: ${error.message.replace(/^Hostname\/IP does not match certificate's altnames: /, '')}`,
      code,
      'connect with a name the certificate lists, or use sslmode=verify-ca',
    );
  }
  return new TlsError(`TLS handshake with ${where} failed: ${error.message}`, code, undefined);
}
