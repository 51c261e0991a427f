import assert from 'node:assert/strict';
import { Framer } from '../../src/drivers/transport/framer.js';

/** A big-endian 32-bit integer, as PostgreSQL's messages carry their lengths and counts. */
export function int32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
}

/** A big-endian 16-bit integer. */
export function int16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeInt16BE(n);
  return b;
}

/** Little-endian, as MariaDB's protocol writes its integers. */
export const u16 = (n: number): Buffer => Buffer.from([n & 0xff, n >> 8]);
export const u32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};

/** A MariaDB packet: 3-byte little-endian length, sequence number, payload. */
export const mariadbPacket = (sequence: number, payload: Buffer): Buffer =>
  Buffer.concat([Buffer.from([payload.length & 0xff, (payload.length >> 8) & 0xff, payload.length >> 16, sequence]), payload]);

/**
 * Delivers `stream` to `scan` as a transport does: through a Framer, in reads of the given sizes,
 * each landing at an offset inside one larger buffer that the next read overwrites (as the native
 * reactor's reads do), so that a reader keeping a reference into an earlier read sees it change.
 */
export function deliverInReads(stream: Buffer, sizes: readonly number[], scan: (buffer: Buffer, start: number, end: number) => number): void {
  const framer = new Framer(scan);
  const reused = Buffer.alloc(stream.length + 16, 0xee);
  let at = 0;
  for (const size of sizes) {
    stream.copy(reused, 8, at, at + size);
    reused.fill(0xee, 8 + size);
    framer.push(reused, 8, 8 + size);
    at += size;
  }
  assert.equal(at, stream.length);
}
