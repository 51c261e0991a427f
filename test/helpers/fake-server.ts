import net from 'node:net';
import type { TestContext } from 'node:test';
import type { ServerTarget } from '../../src/config/target.js';
import { createDriver } from './drivers.js';

/**
 * A TCP server on a loopback port of its own (port 0) that plays a misbehaving DBMS: `serve` gets
 * each accepted socket and the number of the connection (0, 1, ...). Closed after the test.
 */
export async function fakeServer(t: TestContext, serve: (socket: net.Socket, index: number) => void): Promise<number> {
  const sockets = new Set<net.Socket>();
  let index = 0;
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    serve(socket, index++);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  return (server.address() as net.AddressInfo).port;
}

/** Collects what the client sends; `until(bytes)` resolves once `complete(received)` holds. */
export function reader(socket: net.Socket): { until(complete: (received: Buffer) => boolean): Promise<Buffer> } {
  let received = Buffer.alloc(0);
  let waiting: { complete: (received: Buffer) => boolean; resolve: (received: Buffer) => void } | undefined;
  socket.on('data', (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    if (waiting && waiting.complete(received)) {
      const { resolve } = waiting;
      waiting = undefined;
      const whole = received;
      received = Buffer.alloc(0);
      resolve(whole);
    }
  });
  return {
    until(complete) {
      return new Promise((resolve) => {
        if (complete(received)) {
          const whole = received;
          received = Buffer.alloc(0);
          resolve(whole);
        } else waiting = { complete, resolve };
      });
    },
  };
}

/** Writes `bytes` in two parts cut at `cut`, the second a few milliseconds later (so that they arrive as two reads). */
export async function writeSplit(socket: net.Socket, bytes: Buffer, cut: number): Promise<void> {
  if (cut > 0) socket.write(bytes.subarray(0, cut));
  await new Promise((resolve) => setTimeout(resolve, 3));
  if (!socket.destroyed) socket.write(bytes.subarray(cut));
}

/** Writes `bytes` one at a time, a millisecond apart. */
export async function writeBytewise(socket: net.Socket, bytes: Buffer): Promise<void> {
  for (let i = 0; i < bytes.length && !socket.destroyed; i++) {
    socket.write(bytes.subarray(i, i + 1));
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** Reproducible "random" bytes (mulberry32), so that a failure can be replayed. */
export function noise(seed: number, length: number): Buffer {
  let state = seed >>> 0;
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    bytes[i] = ((x ^ (x >>> 14)) >>> 0) & 0xff;
  }
  return bytes;
}

/** Settles with the promise's outcome, or rejects when it takes longer than `ms` (a hang). */
export function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms (a hang)`)), ms);
    }),
  ]);
}

/** Connects to `target` and runs SELECT 1; settles with the rows or the error, within 6 s (else a hang). */
export function connectAndSelect(target: ServerTarget): Promise<unknown> {
  return within(
    6000,
    'connect and query',
    createDriver(target)
      .connect()
      .then(async (conn) => {
        try {
          return await conn.query('SELECT 1 AS x');
        } finally {
          await conn.close();
        }
      })
      .catch((error: unknown) => error),
  );
}
