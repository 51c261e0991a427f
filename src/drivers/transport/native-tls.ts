import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import tls from 'node:tls';
import { tlsFailure, type TlsContext, type TlsSession } from './tls.js';

/** The TLS half of the native reactor (native/reactor.c): OpenSSL, Node's own copy, on the reactor's sockets. */
export interface NativeTlsAddon {
  tlsAvailable(): boolean;
  tlsContext(ca: string | null, cert: string | null, key: string | null, crl: string | null, cipherList: string, cipherSuites: string): object;
  startTls(id: number, context: object, serverName: string): number;
  tlsSession(id: number): NativeTlsSession;
  tlsError(id: number): string;
}

/** What a finished handshake negotiated, and OpenSSL's verdict on the server's chain (null codes: verified). */
export interface NativeTlsSession {
  protocol: string;
  cipher: string;
  verifyCode: string | null;
  verifyMessage: string | null;
  certificate: Buffer | null;
}

const contexts = new WeakMap<TlsContext, object | null>();

/**
 * The reactor's OpenSSL context for these settings, built once; null when the reactor cannot
 * take them (no OpenSSL in this process, a file Node's path must report on, an encrypted key):
 * such connections stay on Node's tls module, which says what is wrong as it always did.
 */
export function nativeTlsContext(addon: NativeTlsAddon, context: TlsContext): object | null {
  const known = contexts.get(context);
  if (known !== undefined) return known;
  let built: object | null = null;
  try {
    if (addon.tlsAvailable()) {
      const pem = context.pemFiles();
      // Node's client defaults: its bundled roots and NODE_EXTRA_CA_CERTS when no CA is given
      // (they matter only when the chain is checked), and its cipher list, split as Node splits it.
      const ca = pem.ca ?? (context.verifiesChain ? nodeDefaultCas() : null);
      const ciphers = tls.DEFAULT_CIPHERS.split(':');
      const suites = ciphers.filter((name) => name.startsWith('TLS_')).join(':');
      const list = ciphers.filter((name) => !name.startsWith('TLS_')).join(':');
      built = addon.tlsContext(ca, pem.cert ?? null, pem.key ?? null, pem.crl?.join('\n') ?? null, list, suites);
    }
  } catch {
    built = null;
  }
  contexts.set(context, built);
  return built;
}

/** The CAs Node's tls trusts when given none: its bundled roots, plus the NODE_EXTRA_CA_CERTS file. */
function nodeDefaultCas(): string {
  const extra = process.env['NODE_EXTRA_CA_CERTS'];
  let added = '';
  try {
    if (extra) added = readFileSync(extra, 'utf8');
  } catch {
    // Node warns about an unreadable file once at start and goes on without it: so does this.
  }
  return [...tls.rootCertificates, added].join('\n');
}

/**
 * Node's checks of a finished handshake (tls.connect's rejectUnauthorized and checkServerIdentity,
 * in its order), on what the reactor reports: the chain when the mode verifies it, then the host
 * name under verify-full; failures in the same lines as Node's path (tlsFailure).
 */
export function checkedSession(session: NativeTlsSession, context: TlsContext, host: string, where: string): TlsSession {
  if (context.verifiesChain) {
    if (session.verifyCode !== null) {
      throw tlsFailure(Object.assign(new Error(session.verifyMessage ?? session.verifyCode), { code: session.verifyCode }), where, context.settings);
    }
    if (context.settings.mode === 'verify-full') {
      const mismatch = tls.checkServerIdentity(host, new X509Certificate(session.certificate!).toLegacyObject());
      if (mismatch) throw tlsFailure(mismatch, where, context.settings);
    }
  }
  return { protocol: session.protocol, cipher: session.cipher, peerCertificate: session.certificate ?? undefined };
}
