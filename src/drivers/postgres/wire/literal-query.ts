import { literal, type LiteralValue } from '../../literals.js';
import { writeInteger } from './bind.js';

/** A statement's text around its values, encoded once (UTF-8) for every Query message built from it. */
export interface PgLiteralQuery {
  pieces: Buffer[];
  /** A piece holds a NUL byte, which a Query message cannot carry. */
  unframeable: boolean;
}

export function literalQuery(pieces: readonly string[]): PgLiteralQuery {
  return { pieces: pieces.map((piece) => Buffer.from(piece, 'utf8')), unframeable: pieces.some((piece) => piece.includes('\0')) };
}

const QUOTE = 0x27;
const NULL_LITERAL = Buffer.from('NULL', 'latin1');

/**
 * Builds a simple-protocol Query message with the values written in place as SQL literals, the
 * bytes of `encodeQuery(literalText(pieces, values))` (drivers/literals.ts) without the string, in
 * one buffer that lives as long as the connection (transports copy what they cannot send at once).
 * pgbench -M simple sends one per command; integers go in as digits written straight into it.
 */
export class QueryWriter {
  private out = Buffer.allocUnsafe(1024);

  /**
   * Writes the message and returns its length (the bytes are the first that many of `buffer`);
   * -1 when a string value holds a NUL byte, which the caller refuses as encodeQuery does.
   */
  write(query: PgLiteralQuery, values: readonly LiteralValue[]): number {
    const { pieces } = query;
    let at = this.copy(pieces[0]!, 5);
    for (let i = 0; i < values.length; i++) {
      const v = values[i]!;
      if (typeof v === 'number' && Number.isSafeInteger(v)) {
        this.ensure(at, 24);
        const out = this.out;
        if (v < 0) {
          out[at++] = 0x28; // (
          at += writeInteger(out, at, v);
          out[at++] = 0x29; // )
        } else at += writeInteger(out, at, v);
      } else if (typeof v === 'string') {
        if (v.includes('\0')) return -1;
        at = this.quoted(v, at);
      } else if (v === null) at = this.copy(NULL_LITERAL, at);
      else {
        // Other numbers, bigints, booleans: rare enough to go through their text.
        const text = literal(v);
        this.ensure(at, text.length);
        at += this.out.write(text, at, 'latin1');
      }
      at = this.copy(pieces[i + 1]!, at);
    }
    this.ensure(at, 1);
    const out = this.out;
    out[at++] = 0; // the text's terminating NUL
    out[0] = 0x51; // Query
    const length = at - 1;
    out[1] = length >>> 24;
    out[2] = (length >>> 16) & 0xff;
    out[3] = (length >>> 8) & 0xff;
    out[4] = length & 0xff;
    return at;
  }

  get buffer(): Buffer {
    return this.out;
  }

  /** A string between quotes, its own quotes doubled. */
  private quoted(v: string, at: number): number {
    const text = v.includes("'") ? v.replace(/'/g, "''") : v;
    // Worst case: 3 bytes per UTF-16 unit.
    this.ensure(at, text.length * 3 + 2);
    const out = this.out;
    out[at++] = QUOTE;
    at += out.write(text, at, 'utf8');
    out[at++] = QUOTE;
    return at;
  }

  private copy(bytes: Buffer, at: number): number {
    this.ensure(at, bytes.length);
    const out = this.out;
    // A byte loop for short pieces: for a few bytes it costs less than Buffer#copy's argument checks.
    if (bytes.length > 64) return at + bytes.copy(out, at);
    for (let i = 0; i < bytes.length; i++) out[at++] = bytes[i]!;
    return at;
  }

  private ensure(at: number, extra: number): void {
    if (at + extra <= this.out.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.out.length * 2, at + extra));
    this.out.copy(grown, 0, 0, at);
    this.out = grown;
  }
}
