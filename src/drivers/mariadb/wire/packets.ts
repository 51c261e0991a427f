import { MAX_PACKET_PAYLOAD } from './protocol.js';
import { unframeableString } from '../../unframeable.js';

/**
 * Reads the fields of one packet's payload in place (a transport's buffer, valid during the call):
 * little-endian integers, length-encoded integers and strings (Protocol::LengthEncodedInteger).
 */
export class PacketReader {
  data: Buffer = Buffer.alloc(0);
  at = 0;
  end = 0;

  reset(data: Buffer, start: number, end: number): this {
    this.data = data;
    this.at = start;
    this.end = end;
    return this;
  }

  u8(): number {
    return this.data[this.at++]!;
  }

  u16(): number {
    const { data, at } = this;
    this.at += 2;
    return data[at]! | (data[at + 1]! << 8);
  }

  u32(): number {
    const value = this.data.readUInt32LE(this.at);
    this.at += 4;
    return value;
  }

  /** A length-encoded integer; null for the NULL marker (0xfb) of text rows. */
  lenenc(): number | null {
    const first = this.data[this.at++]!;
    if (first < 0xfb) return first;
    if (first === 0xfb) return null;
    if (first === 0xfc) return this.u16();
    if (first === 0xfd) {
      const { data, at } = this;
      this.at += 3;
      return data[at]! | (data[at + 1]! << 8) | (data[at + 2]! << 16);
    }
    const low = this.data.readUInt32LE(this.at);
    const high = this.data.readUInt32LE(this.at + 4);
    this.at += 8;
    return high * 2 ** 32 + low;
  }

  skipLenencString(): void {
    const length = this.lenenc() ?? 0;
    this.at += length;
  }

  lenencString(): string {
    const length = this.lenenc() ?? 0;
    const text = this.data.toString('utf8', this.at, this.at + length);
    this.at += length;
    return text;
  }

  /** A NUL-terminated string. */
  cstring(): string {
    const stop = this.data.indexOf(0, this.at);
    const end = stop < 0 || stop > this.end ? this.end : stop;
    const text = this.data.toString('utf8', this.at, end);
    this.at = end + 1;
    return text;
  }

  rest(): Buffer {
    const bytes = Buffer.from(this.data.subarray(this.at, this.end));
    this.at = this.end;
    return bytes;
  }

  restString(): string {
    const text = this.data.toString('utf8', this.at, this.end);
    this.at = this.end;
    return text;
  }
}

/**
 * Builds client packets in one buffer reused for the connection's life (transports copy what
 * they cannot send at once). `begin(sequence)` reserves the 4-byte header, `finish()` fills it
 * in and splits payloads longer than 16 MiB - 1 into continuation packets.
 */
export class PacketWriter {
  buffer = Buffer.allocUnsafe(4096);
  length = 0;
  private packetStart = 0;
  private sequence = 0;

  begin(sequence = 0): this {
    this.length = 4;
    this.packetStart = 0;
    this.sequence = sequence;
    return this;
  }

  ensure(extra: number): void {
    if (this.length + extra <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + extra + 1024));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }

  u8(value: number): this {
    this.ensure(1);
    this.buffer[this.length++] = value;
    return this;
  }

  // Byte stores rather than Buffer#writeUInt16LE/32LE: no argument checks on the hot path.
  u16(value: number): this {
    this.ensure(2);
    const b = this.buffer;
    b[this.length++] = value & 0xff;
    b[this.length++] = (value >>> 8) & 0xff;
    return this;
  }

  u32(value: number): this {
    this.ensure(4);
    const b = this.buffer;
    b[this.length++] = value & 0xff;
    b[this.length++] = (value >>> 8) & 0xff;
    b[this.length++] = (value >>> 16) & 0xff;
    b[this.length++] = (value >>> 24) & 0xff;
    return this;
  }

  zeros(count: number): this {
    this.ensure(count);
    // A loop: Buffer#fill costs more than a few stores for the few bytes of a NULL bitmap.
    for (let i = 0; i < count; i++) this.buffer[this.length++] = 0;
    return this;
  }

  bytes(value: Buffer): this {
    this.ensure(value.length);
    this.length += value.copy(this.buffer, this.length);
    return this;
  }

  /** UTF-8 text without a terminator (a query's text). */
  text(value: string): this {
    this.ensure(value.length * 3);
    this.length += this.buffer.write(value, this.length, 'utf8');
    return this;
  }

  /** A NUL-terminated string (the user and database at login): one holding a NUL is refused, the packet dropped. */
  cstring(value: string): this {
    if (value.includes('\0')) {
      this.length = 0;
      throw unframeableString('MariaDB', value);
    }
    return this.text(value).u8(0);
  }

  lenenc(value: number): this {
    if (value < 0xfb) return this.u8(value);
    if (value < 0x10000) return this.u8(0xfc).u16(value);
    if (value < 0x1000000) {
      this.u8(0xfd).u16(value & 0xffff);
      return this.u8(value >>> 16);
    }
    return this.u8(0xfe)
      .u32(value % 2 ** 32)
      .u32(Math.floor(value / 2 ** 32));
  }

  lenencBytes(value: Buffer): this {
    return this.lenenc(value.length).bytes(value);
  }

  /** Fills in the header(s); returns the number of bytes to send from `buffer`. */
  finish(): number {
    const payload = this.length - this.packetStart - 4;
    if (payload < MAX_PACKET_PAYLOAD) {
      this.header(this.packetStart, payload, this.sequence);
      return this.length;
    }
    return this.split();
  }

  private header(at: number, payload: number, sequence: number): void {
    const b = this.buffer;
    b[at] = payload & 0xff;
    b[at + 1] = (payload >>> 8) & 0xff;
    b[at + 2] = payload >>> 16;
    b[at + 3] = sequence & 0xff;
  }

  /** A payload of 16 MiB or more goes out as full packets and a shorter last one (possibly empty). */
  private split(): number {
    const payload = this.buffer.subarray(4, this.length);
    const chunks = Math.floor(payload.length / MAX_PACKET_PAYLOAD) + 1;
    const out = Buffer.allocUnsafe(payload.length + 4 * chunks);
    let at = 0;
    for (let i = 0; i < chunks; i++) {
      const start = i * MAX_PACKET_PAYLOAD;
      const size = Math.min(MAX_PACKET_PAYLOAD, payload.length - start);
      const b = out;
      b[at] = size & 0xff;
      b[at + 1] = (size >>> 8) & 0xff;
      b[at + 2] = size >>> 16;
      b[at + 3] = (this.sequence + i) & 0xff;
      payload.copy(out, at + 4, start, start + size);
      at += 4 + size;
    }
    this.buffer = out;
    this.length = at;
    return at;
  }
}
