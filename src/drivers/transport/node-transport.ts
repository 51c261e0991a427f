import net from 'node:net';
import { TransportError, type SocketAddress, type Transport, type TransportHandler } from './transport.js';
import { endSocket, socketDrained, writeCopy } from './socket-writes.js';

/**
 * One receive buffer for every socket of this thread: `onread` hands it to the handler, which
 * parses in place and copies only an incomplete message, so 1,000 terminals do not hold 1,000
 * buffers.
 */
const RECEIVE = Buffer.allocUnsafe(64 * 1024);

/**
 * net.Socket without its Readable stream (`onread` reads into the shared buffer, no chunk is
 * allocated per read). Used where the native reactor is not built or asked for.
 */
export function connectNode(address: SocketAddress, handler: TransportHandler, timeoutMs: number): Promise<Transport> {
  return new Promise((resolve, reject) => {
    let connected = false;
    let failure: TransportError | undefined;
    const onread = { buffer: RECEIVE, callback: (length: number, buffer: Buffer): boolean => (handler.onData(buffer, 0, length), true) };
    const socket = 'path' in address ? net.connect({ path: address.path, onread }) : net.connect({ host: address.host, port: address.port, onread });
    socket.setNoDelay(true);
    const timer = setTimeout(() => socket.destroy(new TransportError('timeout expired while connecting', 'ETIMEDOUT')), timeoutMs);
    socket.on('error', (error: NodeJS.ErrnoException) => {
      const at = (error as { address?: unknown }).address;
      failure ??=
        error instanceof TransportError ? error : new TransportError(`connection error: ${error.message}`, error.code, typeof at === 'string' ? at : undefined);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      if (!connected) reject(failure ?? new TransportError('connection closed while connecting', 'ECONNRESET'));
      else handler.onClose(failure);
    });
    socket.once('connect', () => {
      clearTimeout(timer);
      connected = true;
      resolve(new NodeTransport(socket));
    });
  });
}

class NodeTransport implements Transport {
  readonly kind = 'node';

  constructor(private readonly socket: net.Socket) {}

  write(buffer: Buffer, start: number, end: number): boolean {
    return writeCopy(this.socket, buffer, start, end);
  }

  drained(): Promise<void> {
    return socketDrained(this.socket);
  }

  close(last?: Buffer): void {
    this.socket.removeAllListeners('close');
    endSocket(this.socket, last);
  }
}
