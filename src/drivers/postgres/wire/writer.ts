import { unframeableString } from '../../unframeable.js';

/**
 * Builds frontend messages of PostgreSQL's wire protocol (v3) into one growing buffer, so that
 * several messages (Bind, Execute, Sync) leave in a single socket write.
 */
export class MessageWriter {
  private buffer = Buffer.allocUnsafe(4096);
  private length = 0;
  private messageStart = -1;

  /** Starts a message with its one-byte type; the length is filled in by end(). */
  begin(type: number): this {
    this.ensure(5);
    this.messageStart = this.length;
    this.buffer[this.length] = type;
    this.length += 5;
    return this;
  }

  /** The startup and SSL-request messages have no type byte. */
  beginUntyped(): this {
    this.ensure(4);
    this.messageStart = this.length - 1;
    this.length += 4;
    return this;
  }

  int16(value: number): this {
    this.ensure(2);
    this.buffer.writeInt16BE(value, this.length);
    this.length += 2;
    return this;
  }

  int32(value: number): this {
    this.ensure(4);
    this.buffer.writeInt32BE(value, this.length);
    this.length += 4;
    return this;
  }

  /**
   * A NUL-terminated string: query text, statement names, login fields. One holding a NUL is
   * refused, and what this writer held since the last take() dropped, so nothing half-built is sent.
   */
  cstring(value: string): this {
    if (value.includes('\0')) {
      this.length = 0;
      throw unframeableString('PostgreSQL', value);
    }
    const bytes = Buffer.byteLength(value);
    this.ensure(bytes + 1);
    this.buffer.write(value, this.length, 'utf8');
    this.length += bytes;
    this.buffer[this.length++] = 0;
    return this;
  }

  /** A length-prefixed value in text form, or -1 for NULL (Bind parameters). */
  lengthPrefixed(value: string | null): this {
    if (value === null) return this.int32(-1);
    const bytes = Buffer.byteLength(value);
    this.ensure(bytes + 4);
    this.buffer.writeInt32BE(bytes, this.length);
    this.length += 4;
    this.buffer.write(value, this.length, 'utf8');
    this.length += bytes;
    return this;
  }

  bytes(value: Buffer | string): this {
    const size = typeof value === 'string' ? Buffer.byteLength(value) : value.length;
    this.ensure(size);
    if (typeof value === 'string') this.buffer.write(value, this.length, 'utf8');
    else value.copy(this.buffer, this.length);
    this.length += size;
    return this;
  }

  end(): this {
    this.buffer.writeInt32BE(this.length - this.messageStart - 1, this.messageStart + 1);
    return this;
  }

  /**
   * Hands what was written since the last take() to `send` in this writer's own buffer, without a
   * copy, and empties the writer: for a message sent as it is built (the transport copies or sends
   * it before returning), such as a statement's text that is never sent twice.
   */
  sendFrom<T>(send: (buffer: Buffer, length: number) => T): T {
    const length = this.length;
    this.length = 0;
    return send(this.buffer, length);
  }

  /** Everything written since the last take(), as a buffer the caller owns. */
  take(): Buffer {
    const out = Buffer.from(this.buffer.subarray(0, this.length));
    this.length = 0;
    return out;
  }

  private ensure(extra: number): void {
    if (this.length + extra <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + extra));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }
}
