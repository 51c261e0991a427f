import type net from 'node:net';

/** Writes a copy: the socket may keep the bytes past this call, and the caller reuses its buffer. */
export function writeCopy(socket: net.Socket, buffer: Buffer, start: number, end: number): boolean {
  return socket.write(Buffer.from(buffer.subarray(start, end)));
}

/** Resolves once the socket's queued writes have gone out, or it closed. */
export function socketDrained(socket: net.Socket): Promise<void> {
  if (socket.writableLength === 0 || socket.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      socket.off('drain', done).off('close', done);
      resolve();
    };
    socket.on('drain', done).on('close', done);
  });
}

/** Sends `last` (a protocol's goodbye) where the socket still can, then destroys it; its later errors are of no interest. */
export function endSocket(socket: net.Socket, last?: Buffer): void {
  socket.on('error', () => {});
  if (last && !socket.destroyed) socket.end(Buffer.from(last), () => socket.destroy());
  else socket.destroy();
}
