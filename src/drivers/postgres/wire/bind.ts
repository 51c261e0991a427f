import type { SqlValue } from '../../driver.js';
import { encodeText } from './values.js';

/** Execute("", 0 = all rows) and Sync, the same bytes after every Bind. */
const EXECUTE_SYNC = Buffer.from([0x45, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0x53, 0, 0, 0, 4]);
/** The longest text of a non-string parameter: a double ("-1.2345678901234567e-300"), an ISO date, an int8. */
const MAX_SCALAR_TEXT = 32;

/**
 * Builds Bind + Execute + Sync for a prepared statement into one buffer that lives as long as the
 * connection (transports copy what they cannot send at once), with integers written as digits
 * straight into it: no string, no buffer allocated per execution.
 */
export class BindWriter {
  private out = Buffer.allocUnsafe(1024);

  /** Writes the messages and returns their length; the bytes are the first that many of `buffer`. */
  write(bindHead: Buffer, params: readonly SqlValue[]): number {
    // Worst case: 3 bytes per UTF-16 unit of a string, plus 4 of length per parameter.
    let bound = 5 + bindHead.length + 4 + EXECUTE_SYNC.length;
    for (let i = 0; i < params.length; i++) {
      const value = params[i];
      bound += 4 + (typeof value === 'string' ? value.length * 3 : MAX_SCALAR_TEXT);
    }
    if (bound > this.out.length) this.out = Buffer.allocUnsafe(Math.max(bound, this.out.length * 2));
    const out = this.out;
    out[0] = 0x42; // Bind
    // Byte loops rather than Buffer#copy and #writeInt32BE: for a few bytes they cost less than
    // the calls' argument checks.
    let at = 5;
    for (let i = 0; i < bindHead.length; i++) out[at++] = bindHead[i]!;
    out[at++] = params.length >> 8;
    out[at++] = params.length & 0xff;
    for (let i = 0; i < params.length; i++) {
      const value = params[i];
      let written: number;
      if (typeof value === 'number' && Number.isSafeInteger(value)) written = writeInteger(out, at + 4, value);
      else if (typeof value === 'string') written = out.write(value, at + 4, 'utf8');
      else {
        const text = encodeText(value);
        written = text === null ? -1 : out.write(text, at + 4, 'utf8');
      }
      writeInt32(out, at, written);
      at += 4 + Math.max(written, 0);
    }
    out[at++] = 0; // results in text
    out[at++] = 0;
    writeInt32(out, 1, at - 1);
    for (let i = 0; i < EXECUTE_SYNC.length; i++) out[at++] = EXECUTE_SYNC[i]!;
    return at;
  }

  get buffer(): Buffer {
    return this.out;
  }
}

function writeInt32(out: Buffer, at: number, value: number): void {
  out[at] = value >>> 24;
  out[at + 1] = (value >>> 16) & 0xff;
  out[at + 2] = (value >>> 8) & 0xff;
  out[at + 3] = value & 0xff;
}

/** A safe integer's decimal digits at `at`; returns how many bytes were written. */
export function writeInteger(out: Buffer, at: number, value: number): number {
  const begin = at;
  if (value < 0) {
    out[at++] = 0x2d; // '-'
    value = -value;
  }
  let digits = 1;
  for (let v = value; v >= 10; v = Math.floor(v / 10)) digits++;
  for (let i = at + digits - 1; i >= at; i--) {
    out[i] = 0x30 + (value % 10);
    value = Math.floor(value / 10);
  }
  return at + digits - begin;
}
