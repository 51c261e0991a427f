import net from 'node:net';
import tls from 'node:tls';
import { connectTransport, transportKind } from './connect.js';
import { loadReactor, NativeSocket } from './native-transport.js';
import { nativeTlsContext } from './native-tls.js';
import { TransportError, type SocketAddress, type Transport, type TransportHandler, type TransportKind } from './transport.js';
import { tlsFailure, type TlsContext, type TlsSession } from './tls.js';
import { endSocket, socketDrained, writeCopy } from './socket-writes.js';

/** A plaintext connection a protocol can turn into TLS once it has asked the server for it. */
export interface TlsUpgradable extends Transport {
  readonly session: TlsSession | undefined;
  /** Runs the TLS handshake over the open connection; `host` is the name the certificate is checked against. */
  upgrade(context: TlsContext, host: string, where: string, timeoutMs: number): Promise<TlsSession>;
}

/** True when the native reactor runs TLS with these settings (its OpenSSL context could be built). */
function nativeTls(context: TlsContext): boolean {
  const addon = loadReactor();
  return addon !== null && transportKind() === 'native' && nativeTlsContext(addon, context) !== null;
}

/**
 * Opens a connection that may turn into TLS: on the native reactor, which runs TLS itself and
 * keeps its batching (native/reactor.c), when it is the process's transport and can take these
 * settings; else a Node socket for Node's tls module. Unix-domain sockets never carry TLS here.
 */
export async function connectTlsCapable(address: SocketAddress, handler: TransportHandler, timeoutMs: number, context: TlsContext): Promise<TlsUpgradable> {
  if (!('path' in address) && nativeTls(context)) return (await connectTransport(address, handler, timeoutMs)) as NativeSocket;
  return TlsCapableTransport.connect(address, handler, timeoutMs);
}

/** True when `transport`, already open in plaintext, can itself be turned into TLS (a native reactor socket). */
export function upgradableInPlace(transport: Transport, context: TlsContext): transport is TlsUpgradable {
  return transport instanceof NativeSocket && nativeTls(context);
}

/**
 * A Node socket that can turn into TLS in the middle of a protocol's start (PostgreSQL's
 * SSLRequest, MariaDB's SSL request packet): plaintext first, then tls.connect over the same
 * socket. The path where the native reactor cannot run TLS (HEADROOM_TRANSPORT=node, no reactor,
 * settings its OpenSSL context refuses, such as an encrypted key) and for sslnegotiation=direct
 * (ALPN); its kind is `node-tls` once encrypted, else `node`. Plaintext reads arrive as 'data' events
 * (only the protocol's start runs here unencrypted); decrypted reads go straight into one buffer
 * per thread (`onread`), as the Node transport's do: no chunk per read, no stream machinery.
 */
/** One buffer for the decrypted reads of every TLS connection of this thread (see node-transport.ts). */
const DECRYPTED = Buffer.allocUnsafe(64 * 1024);

/** tls.connect's `onread`: decrypted bytes into the shared buffer; the handler copies what it keeps. */
function decryptedInto(handler: TransportHandler): { buffer: Buffer; callback(length: number, buffer: Buffer): boolean } {
  return { buffer: DECRYPTED, callback: (length, buffer) => (handler.onData(buffer, 0, length), true) };
}

export class TlsCapableTransport implements TlsUpgradable {
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
  static async connectDirect(
    address: { host: string; port: number },
    handler: TransportHandler,
    context: TlsContext,
    alpn: string[],
    timeoutMs: number,
  ): Promise<TlsCapableTransport> {
    const socket = await new Promise<tls.TLSSocket>((resolve, reject) => {
      const secure = tls.connect({
        ...context.connectOptions(address.host, undefined, alpn),
        port: address.port,
        onread: decryptedInto(handler),
      } as tls.ConnectionOptions);
      const timer = setTimeout(() => secure.destroy(new TransportError('timeout expired while connecting', 'ETIMEDOUT')), timeoutMs);
      secure.once('error', (error) => {
        clearTimeout(timer);
        reject(
          error instanceof TransportError || (error as NodeJS.ErrnoException).syscall
            ? new TransportError(`connection error: ${error.message}`, (error as NodeJS.ErrnoException).code)
            : tlsFailure(error, `${address.host}:${address.port}`, context.settings),
        );
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
    this.kind = 'node-tls';
    const cipher = socket.getCipher();
    this.session = {
      protocol: socket.getProtocol() ?? 'unknown',
      cipher: cipher.standardName ?? cipher.name,
      peerCertificate: socket.getPeerCertificate().raw,
    };
    return this.session;
  }

  private listen(): void {
    this.socket.on('data', this.onData).on('error', this.onError).on('close', this.onClose);
  }

  private unlisten(): void {
    this.socket.off('data', this.onData).off('error', this.onError).off('close', this.onClose);
  }
}
