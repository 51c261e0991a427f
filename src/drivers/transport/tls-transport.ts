import net from 'node:net';
import tls from 'node:tls';
import { TransportError, type SocketAddress, type Transport, type TransportHandler, type TransportKind } from './transport.js';
import { tlsFailure, type TlsContext, type TlsSession } from './tls.js';
import { endSocket, socketDrained, writeCopy } from './socket-writes.js';

/**
 * A Node socket that can turn into TLS in the middle of a protocol's start (PostgreSQL's
 * SSLRequest, MariaDB's SSL request packet): plaintext first, then tls.connect over the same
 * socket. Neither the native reactor nor `onread` can hand their socket to OpenSSL, so a
 * connection that may use TLS starts here; its kind is `tls` once encrypted, else `node`.
 * Plaintext reads arrive as 'data' events (only the protocol's start runs here unencrypted);
 * decrypted reads go straight into one buffer per thread (`onread`), as the Node transport's do:
 * no chunk per read and no stream machinery, which would cost more than the decryption.
 */
/** One buffer for the decrypted reads of every TLS connection of this thread (see node-transport.ts). */
const DECRYPTED = Buffer.allocUnsafe(64 * 1024);

/** tls.connect's `onread`: decrypted bytes into the shared buffer; the handler copies what it keeps. */
function decryptedInto(handler: TransportHandler): { buffer: Buffer; callback(length: number, buffer: Buffer): boolean } {
  return { buffer: DECRYPTED, callback: (length, buffer) => (handler.onData(buffer, 0, length), true) };
}

export class TlsCapableTransport implements Transport {
  kind: TransportKind = 'node';
  session: TlsSession | undefined;
  private socket: net.Socket;
  private upgrading = false;
  private readonly onData = (chunk: Buffer): void => this.handler.onData(chunk, 0, chunk.length);
  private failure: TransportError | undefined;
  private readonly onError = (error: NodeJS.ErrnoException): void => {
    this.failure ??= new TransportError(`connection error: ${error.message}`, error.code);
  };
  private readonly onClose = (): void => {
    if (!this.upgrading) this.handler.onClose(this.failure);
  };

  private constructor(
    socket: net.Socket,
    private readonly handler: TransportHandler,
  ) {
    this.socket = socket;
    this.listen();
  }

  /** A plaintext TCP or Unix-domain connection, ready for a protocol's TLS request. */
  static connect(address: SocketAddress, handler: TransportHandler, timeoutMs: number): Promise<TlsCapableTransport> {
    return new Promise((resolve, reject) => {
      const socket = 'path' in address ? net.connect({ path: address.path }) : net.connect({ host: address.host, port: address.port });
      socket.setNoDelay(true);
      const timer = setTimeout(() => socket.destroy(new TransportError('timeout expired while connecting', 'ETIMEDOUT')), timeoutMs);
      const failed = (error: NodeJS.ErrnoException): void => {
        clearTimeout(timer);
        reject(error instanceof TransportError ? error : new TransportError(`connection error: ${error.message}`, error.code));
      };
      socket.once('error', failed);
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.off('error', failed);
        resolve(new TlsCapableTransport(socket, handler));
      });
    });
  }

  /**
   * TLS from the first byte (PostgreSQL's sslnegotiation=direct): no plaintext exchange, the
   * protocol is chosen by ALPN.
   */
  static async connectDirect(address: { host: string; port: number }, handler: TransportHandler, context: TlsContext, alpn: string[], timeoutMs: number): Promise<TlsCapableTransport> {
    const socket = await new Promise<tls.TLSSocket>((resolve, reject) => {
      const secure = tls.connect({ ...context.connectOptions(address.host, undefined, alpn), port: address.port, onread: decryptedInto(handler) } as tls.ConnectionOptions);
      const timer = setTimeout(() => secure.destroy(new TransportError('timeout expired while connecting', 'ETIMEDOUT')), timeoutMs);
      secure.once('error', (error) => {
        clearTimeout(timer);
        reject(error instanceof TransportError || (error as NodeJS.ErrnoException).syscall ? new TransportError(`connection error: ${error.message}`, (error as NodeJS.ErrnoException).code) : tlsFailure(error, `${address.host}:${address.port}`, context.settings));
      });
      secure.once('secureConnect', () => {
        clearTimeout(timer);
        resolve(secure);
      });
    });
    socket.setNoDelay(true);
    socket.removeAllListeners('error');
    const transport = new TlsCapableTransport(socket, handler);
    transport.secured(socket);
    return transport;
  }

  /** Runs the TLS handshake over the open socket; `host` is the name the certificate is checked against. */
  upgrade(context: TlsContext, host: string, where: string, timeoutMs: number, alpn?: string[]): Promise<TlsSession> {
    const plain = this.socket;
    this.unlisten();
    this.upgrading = true;
    return new Promise((resolve, reject) => {
      const secure = tls.connect({ ...context.connectOptions(host, plain, alpn), onread: decryptedInto(this.handler) } as tls.ConnectionOptions);
      const timer = setTimeout(() => secure.destroy(new TransportError('timeout expired while connecting', 'ETIMEDOUT')), timeoutMs);
      const failed = (error: Error): void => {
        clearTimeout(timer);
        secure.destroy();
        reject(error instanceof TransportError ? error : tlsFailure(error, where, context.settings));
      };
      secure.once('error', failed);
      secure.once('secureConnect', () => {
        clearTimeout(timer);
        secure.off('error', failed);
        this.upgrading = false;
        this.socket = secure;
        this.listen();
        resolve(this.secured(secure));
      });
    });
  }

  write(buffer: Buffer, start: number, end: number): boolean {
    return writeCopy(this.socket, buffer, start, end);
  }

  drained(): Promise<void> {
    return socketDrained(this.socket);
  }

  close(last?: Buffer): void {
    this.unlisten();
    endSocket(this.socket, last);
  }

  private secured(socket: tls.TLSSocket): TlsSession {
    this.kind = 'tls';
    const cipher = socket.getCipher();
    this.session = { protocol: socket.getProtocol() ?? 'unknown', cipher: cipher.standardName ?? cipher.name, peerCertificate: socket.getPeerCertificate().raw };
    return this.session;
  }

  private listen(): void {
    this.socket.on('data', this.onData).on('error', this.onError).on('close', this.onClose);
  }

  private unlisten(): void {
    this.socket.off('data', this.onData).off('error', this.onError).off('close', this.onClose);
  }
}
