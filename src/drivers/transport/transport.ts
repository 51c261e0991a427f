import { constants } from 'node:os';

/**
 * The byte stream under a protocol client (drivers/postgres/wire, drivers/mariadb/wire). Two
 * implementations: `native`, headroom's socket reactor (native/reactor.c: each socket a bare libuv
 * poll handle), which hands a whole batch of ready sockets to JavaScript in one call and writes
 * with one send(2); and `node`,
 * a net.Socket read through `onread` into a reused buffer. Both give the client the same
 * contract, so a protocol is written once. A connection that negotiated TLS is `tls` when the
 * native reactor encrypts it (native/reactor.c, native-tls.ts), `node-tls` when Node's tls
 * module does (tls-transport.ts): their client costs differ, so the result tells them apart.
 */
export type TransportKind = 'native' | 'node' | 'tls' | 'node-tls';

export type SocketAddress = { host: string; port: number } | { path: string };

export interface TransportHandler {
  /** Bytes from the server. `buffer` is reused once this returns: copy what must outlive the call. */
  onData(buffer: Buffer, start: number, end: number): void;
  /** The connection ended under the client: closed by the peer (no error) or by a socket error. */
  onClose(error: TransportError | undefined): void;
}

export interface Transport {
  readonly kind: TransportKind;
  /**
   * Sends bytes [start, end) of `buffer`; the caller may reuse the buffer once this returns.
   * False when some bytes wait for the socket: await drained() before sending much more.
   */
  write(buffer: Buffer, start: number, end: number): boolean;
  drained(): Promise<void>;
  /** Sends `last` (a protocol's goodbye) if given, then closes; onClose is not called. */
  close(last?: Buffer): void;
}

/** A socket error with its errno name in `code` (ECONNREFUSED, ECONNRESET, ...), as Node's own. */
export class TransportError extends Error {
  override readonly name = 'TransportError';
  constructor(
    message: string,
    readonly code: string | undefined,
    /** The IP address a failed connect was made to (a host name's, once looked up), where known. */
    readonly address?: string,
  ) {
    super(message);
  }
}

const ERRNO_NAMES = new Map<number, string>(Object.entries(constants.errno).map(([name, number]) => [number, name]));

/** `errno` as Node names it; the number itself when Node knows no name for it. */
export function errnoName(errno: number): string {
  return ERRNO_NAMES.get(errno) ?? `errno ${errno}`;
}

export function describeAddress(address: SocketAddress): string {
  return 'path' in address ? address.path : `${address.host}:${address.port}`;
}
