import { connectTransport } from '../../transport/connect.js';
import { connectTlsCapable, TlsCapableTransport, upgradableInPlace, type TlsUpgradable } from '../../transport/tls-transport.js';
import { TlsError, type TlsContext } from '../../transport/tls.js';
import type { SocketAddress, Transport, TransportHandler } from '../../transport/transport.js';

/** SSLRequest: length 8, then the code 80877103 (protocol "SSLRequest"). */
export const SSL_REQUEST = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);
const YES = 0x53; // 'S'
const NO = 0x4e; // 'N'

/** The connection being opened: it hands over the one-byte answer to SSLRequest. */
export interface SslAnswering extends TransportHandler {
  sslAnswer(timeoutMs: number): Promise<number>;
}

const STRONG = new Set(['require', 'verify-ca', 'verify-full']);

/** As sslmode asks; or plaintext only (allow's first try, prefer's second); or TLS (allow's second). */
export type Attempt = 'asked' | 'plaintext' | 'tls';

/**
 * Opens the byte stream of a PostgreSQL connection as libpq's sslmode asks (protocol "SSL Session
 * Encryption"). Without TLS the connection rides the usual transport (the native reactor where it
 * is built), and so does TLS where the reactor can run it (tls-transport.ts: connectTlsCapable);
 * else TLS runs on a Node socket. `prefer` asks on the usual transport first, so a server without
 * TLS costs one round trip; one that answers 'S' gets the handshake on the same socket when it
 * is the reactor's, else is connected to again over a Node socket. `direct` starts TLS at once
 * (Node's tls, for ALPN).
 * Under `prefer` a failed handshake falls back to plaintext, as libpq's does.
 */
export async function openPostgresTransport(
  connection: SslAnswering,
  address: SocketAddress,
  host: string,
  tls: TlsContext | undefined,
  timeoutMs: number,
  attempt: Attempt,
): Promise<Transport> {
  const settings = tls?.settings;
  const mode = settings?.mode ?? 'disable';
  const where = 'path' in address ? address.path : `${address.host}:${address.port}`;
  if ('path' in address) {
    // libpq never asks for TLS over a Unix-domain socket: the kernel carries the bytes.
    if (STRONG.has(mode))
      throw new TlsError(
        `${settings!.modeSource}=${mode} asks for TLS, which PostgreSQL does not use over the Unix-domain socket ${address.path}`,
        'TLS_UNIX_SOCKET',
        'connect over TCP (host=127.0.0.1), or use sslmode=prefer',
      );
    return connectTransport(address, connection, timeoutMs);
  }
  if (!tls || mode === 'disable' || attempt === 'plaintext' || (mode === 'allow' && attempt !== 'tls')) return connectTransport(address, connection, timeoutMs);
  if (settings!.direct) return TlsCapableTransport.connectDirect(address, connection, tls, ['postgresql'], timeoutMs);
  let socket: TlsUpgradable | undefined;
  let answer = NO;
  if (mode === 'prefer') {
    const plain = await connectTransport(address, connection, timeoutMs);
    answer = await ask(plain, connection, timeoutMs);
    if (answer === NO) return plain;
    // The native reactor turns this very socket into TLS; Node's tls needs a Node socket.
    if (upgradableInPlace(plain, tls)) socket = plain;
    else plain.close();
  }
  if (!socket) {
    socket = await connectTlsCapable(address, connection, timeoutMs, tls);
    answer = await ask(socket, connection, timeoutMs);
  }
  if (answer === YES) {
    try {
      await socket.upgrade(tls, host, where, timeoutMs);
    } catch (error) {
      if (mode !== 'prefer') throw error;
      return connectTransport(address, connection, timeoutMs);
    }
    return socket;
  }
  if (!STRONG.has(mode)) return socket;
  socket.close();
  throw new TlsError(
    `the server at ${where} does not support TLS, but ${settings!.modeSource}=${mode} asks for it`,
    'TLS_UNSUPPORTED',
    "turn ssl on in the server's postgresql.conf, or use sslmode=prefer or disable",
  );
}

async function ask(transport: Transport, connection: SslAnswering, timeoutMs: number): Promise<number> {
  const answer = connection.sslAnswer(timeoutMs);
  transport.write(SSL_REQUEST, 0, SSL_REQUEST.length);
  try {
    const byte = await answer;
    if (byte !== YES && byte !== NO)
      throw new TlsError(`the server answered the TLS request with 0x${byte.toString(16)}, not S or N`, 'TLS_PROTOCOL', 'is this a PostgreSQL server?');
    return byte;
  } catch (error) {
    transport.close();
    throw error;
  }
}
