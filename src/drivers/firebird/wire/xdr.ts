/**
 * XDR, the encoding of Firebird's wire protocol: big-endian 32-bit words, strings and byte
 * arrays as a length word and the bytes padded to a multiple of 4.
 */

/** Builds one or more packets in a buffer reused for every request of a connection. */
export class XdrWriter {
  buffer = Buffer.allocUnsafe(8192);
  length = 0;

  reset(): this {
    this.length = 0;
    return this;
  }

  private room(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + bytes));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }

  int32(value: number): this {
    this.room(4);
    this.buffer.writeInt32BE(value | 0, this.length);
    this.length += 4;
    return this;
  }

  int64(value: bigint): this {
    this.room(8);
    this.buffer.writeBigInt64BE(value, this.length);
    this.length += 8;
    return this;
  }

  double(value: number): this {
    this.room(8);
    this.buffer.writeDoubleBE(value, this.length);
    this.length += 8;
    return this;
  }

  float(value: number): this {
    this.room(4);
    this.buffer.writeFloatBE(value, this.length);
    this.length += 4;
    return this;
  }

  /** Bytes with a length word in front, padded to 4. */
  bytes(data: Buffer | Uint8Array): this {
    this.int32(data.length);
    return this.opaque(data);
  }

  /** A string's UTF-8 bytes with a length word in front, padded to 4, written without a copy. */
  string(text: string): this {
    const max = text.length * 3;
    this.room(4 + max + 3);
    const written = this.buffer.write(text, this.length + 4, 'utf8');
    this.buffer.writeInt32BE(written, this.length);
    this.length += 4 + written;
    return this.pad(written);
  }

  /** Bytes without a length, padded to 4 (fixed-length fields). */
  opaque(data: Buffer | Uint8Array): this {
    this.room(data.length + 3);
    this.buffer.set(data, this.length);
    this.length += data.length;
    return this.pad(data.length);
  }

  pad(written: number): this {
    const extra = (4 - (written & 3)) & 3;
    this.room(extra);
    for (let i = 0; i < extra; i++) this.buffer[this.length++] = 0;
    return this;
  }

  take(): Buffer {
    return Buffer.from(this.buffer.subarray(0, this.length));
  }
}

/** Thrown by XdrReader when the packet goes on past the bytes received so far. */
export const NEED_MORE = Symbol('need more bytes');

/** Reads packets where the transport put them; running past `end` throws NEED_MORE. */
export class XdrReader {
  buffer: Buffer = Buffer.alloc(0);
  pos = 0;
  end = 0;

  at(buffer: Buffer, pos: number, end: number): this {
    this.buffer = buffer;
    this.pos = pos;
    this.end = end;
    return this;
  }

  private need(bytes: number): void {
    if (this.pos + bytes > this.end) throw NEED_MORE;
  }

  int32(): number {
    this.need(4);
    const value = this.buffer.readInt32BE(this.pos);
    this.pos += 4;
    return value;
  }

  uint32(): number {
    this.need(4);
    const value = this.buffer.readUInt32BE(this.pos);
    this.pos += 4;
    return value;
  }

  int64(): bigint {
    this.need(8);
    const value = this.buffer.readBigInt64BE(this.pos);
    this.pos += 8;
    return value;
  }

  double(): number {
    this.need(8);
    const value = this.buffer.readDoubleBE(this.pos);
    this.pos += 8;
    return value;
  }

  float(): number {
    this.need(4);
    const value = this.buffer.readFloatBE(this.pos);
    this.pos += 4;
    return value;
  }

  /** A length word and that many bytes (padded to 4): [start, end) of the buffer. */
  span(maxLength: number): { start: number; end: number } {
    const length = this.int32();
    if (length < 0 || length > maxLength) throw new MalformedPacket(`a field of ${length} bytes (at most ${maxLength} expected)`);
    return this.fixed(length);
  }

  /** `length` bytes without a length word, padded to 4. */
  fixed(length: number): { start: number; end: number } {
    const padded = (length + 3) & ~3;
    this.need(padded);
    const start = this.pos;
    this.pos += padded;
    return { start, end: start + length };
  }

  bytes(maxLength: number): Buffer {
    const { start, end } = this.span(maxLength);
    return Buffer.from(this.buffer.subarray(start, end));
  }

  string(maxLength: number): string {
    const { start, end } = this.span(maxLength);
    return this.buffer.toString('utf8', start, end);
  }
}

/** Bytes that cannot be a Firebird packet: the stream is corrupt, the connection is dropped. */
export class MalformedPacket extends Error {
  override readonly name = 'MalformedPacket';
}
