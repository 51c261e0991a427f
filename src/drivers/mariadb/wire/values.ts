import type { SqlValue } from '../../driver.js';
import type { PacketReader, PacketWriter } from './packets.js';
import { BINARY_COLLATION, FLAG_UNSIGNED, TYPE, type Column } from './protocol.js';
import { checkWithin, MalformedPacket } from './responses.js';

/*
 * Values the way the mariadb npm connector gave them to headroom before (rowsAsArray, BIGINT as
 * bigint, DECIMAL as exact strings, dates as local-time Date), so that workloads see no change:
 * integers up to INT as numbers, BIGINT as bigint, DECIMAL as strings, FLOAT/DOUBLE as numbers,
 * DATE/DATETIME/TIMESTAMP as Date (local time), TIME as text, binary strings as Buffer.
 */

/** COM_STMT_EXECUTE's parameter types and values (binary protocol), after the NULL bitmap. */
export function writeParams(w: PacketWriter, params: readonly SqlValue[]): void {
  const count = params.length;
  // NULL bitmap, then "types follow" = 1, then each type as two bytes (type, unsigned flag).
  const bitmapAt = w.length;
  w.zeros((count + 7) >> 3);
  w.u8(1);
  for (let i = 0; i < count; i++) {
    const v = params[i];
    if (v === null || v === undefined) {
      w.buffer[bitmapAt + (i >> 3)]! |= 1 << (i & 7);
      w.u16(TYPE.NULL);
    } else if (typeof v === 'number') w.u16(Number.isSafeInteger(v) ? TYPE.LONGLONG : TYPE.DOUBLE);
    else if (typeof v === 'string') w.u16(TYPE.VAR_STRING);
    else if (typeof v === 'bigint') w.u16(v > 0x7fffffffffffffffn ? TYPE.LONGLONG | (0x80 << 8) : TYPE.LONGLONG);
    else if (typeof v === 'boolean') w.u16(TYPE.TINY);
    else w.u16(TYPE.DATETIME);
  }
  for (let i = 0; i < count; i++) {
    const v = params[i];
    if (v === null || v === undefined) continue;
    if (typeof v === 'number') {
      w.ensure(8);
      if (Number.isSafeInteger(v)) {
        // Two's complement in two halves, byte by byte: no bigint allocated, no argument checks.
        const b = w.buffer;
        const low = v >>> 0;
        const high = Math.floor(v / 2 ** 32) | 0;
        const at = w.length;
        b[at] = low & 0xff;
        b[at + 1] = (low >>> 8) & 0xff;
        b[at + 2] = (low >>> 16) & 0xff;
        b[at + 3] = low >>> 24;
        b[at + 4] = high & 0xff;
        b[at + 5] = (high >>> 8) & 0xff;
        b[at + 6] = (high >>> 16) & 0xff;
        b[at + 7] = (high >>> 24) & 0xff;
      } else w.buffer.writeDoubleLE(v, w.length);
      w.length += 8;
    } else if (typeof v === 'string') {
      // Length first: ASCII (the common case) is one byte a character.
      const bytes = v.length < 0x80 && isAscii(v) ? v.length : Buffer.byteLength(v);
      w.lenenc(bytes);
      w.ensure(bytes);
      w.length += w.buffer.write(v, w.length, 'utf8');
    } else if (typeof v === 'bigint') {
      w.ensure(8);
      if (v > 0x7fffffffffffffffn) w.buffer.writeBigUInt64LE(v, w.length);
      else w.buffer.writeBigInt64LE(v, w.length);
      w.length += 8;
    } else if (typeof v === 'boolean') w.u8(v ? 1 : 0);
    else {
      w.u8(11)
        .u16(v.getFullYear())
        .u8(v.getMonth() + 1)
        .u8(v.getDate())
        .u8(v.getHours())
        .u8(v.getMinutes())
        .u8(v.getSeconds())
        .u32(v.getMilliseconds() * 1000);
    }
  }
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** One row of a binary result set (Protocol::BinaryResultsetRow); the reader is past the 0x00 header. */
export function readBinaryRow(r: PacketReader, columns: readonly Column[]): unknown[] {
  const count = columns.length;
  const bitmapAt = r.at;
  r.at += (count + 9) >> 3;
  const row: unknown[] = new Array(count);
  const { data } = r;
  for (let i = 0; i < count; i++) {
    const bit = i + 2;
    if (data[bitmapAt + (bit >> 3)]! & (1 << (bit & 7))) {
      row[i] = null;
      continue;
    }
    const column = columns[i]!;
    const unsigned = (column.flags & FLAG_UNSIGNED) !== 0;
    switch (column.type) {
      case TYPE.TINY:
        row[i] = unsigned ? data[r.at]! : data.readInt8(r.at);
        r.at += 1;
        break;
      case TYPE.SHORT:
      case TYPE.YEAR:
        row[i] = unsigned || column.type === TYPE.YEAR ? data.readUInt16LE(r.at) : data.readInt16LE(r.at);
        r.at += 2;
        break;
      case TYPE.LONG:
      case TYPE.INT24:
        row[i] = unsigned ? data.readUInt32LE(r.at) : data.readInt32LE(r.at);
        r.at += 4;
        break;
      case TYPE.LONGLONG:
        row[i] = unsigned ? data.readBigUInt64LE(r.at) : data.readBigInt64LE(r.at);
        r.at += 8;
        break;
      case TYPE.FLOAT:
        row[i] = data.readFloatLE(r.at);
        r.at += 4;
        break;
      case TYPE.DOUBLE:
        row[i] = data.readDoubleLE(r.at);
        r.at += 8;
        break;
      case TYPE.DATE:
      case TYPE.DATETIME:
      case TYPE.TIMESTAMP:
        row[i] = binaryDate(r);
        break;
      case TYPE.TIME:
        row[i] = binaryTime(r);
        break;
      default:
        row[i] = bytesOrText(r, column);
    }
  }
  checkWithin(r, 'a binary row');
  return row;
}

/** One row of a text result set (Protocol::ResultsetRow): each value a length-encoded string or NULL. */
export function readTextRow(r: PacketReader, columns: readonly Column[]): unknown[] {
  const count = columns.length;
  const row: unknown[] = new Array(count);
  const { data } = r;
  for (let i = 0; i < count; i++) {
    // A value past the packet's end would be decoded from the next packet's bytes.
    if (r.at >= r.end) throw new MalformedPacket(`a text row's column ${i + 1} runs past the packet`);
    const length = r.lenenc();
    if (length === null) {
      row[i] = null;
      continue;
    }
    const start = r.at;
    const end = start + length;
    if (end > r.end) throw new MalformedPacket(`a text row's column ${i + 1} runs past the packet`);
    r.at = end;
    const column = columns[i]!;
    switch (column.type) {
      case TYPE.TINY:
      case TYPE.SHORT:
      case TYPE.LONG:
      case TYPE.INT24:
      case TYPE.YEAR:
        row[i] = parseInteger(data, start, end);
        break;
      case TYPE.LONGLONG:
        row[i] = BigInt(data.toString('latin1', start, end));
        break;
      case TYPE.FLOAT:
      case TYPE.DOUBLE:
        row[i] = Number(data.toString('latin1', start, end));
        break;
      case TYPE.DATE:
      case TYPE.DATETIME:
      case TYPE.TIMESTAMP:
        row[i] = textDate(data.toString('latin1', start, end));
        break;
      case TYPE.BIT:
        row[i] = Buffer.from(data.subarray(start, end));
        break;
      default:
        row[i] =
          column.collation === BINARY_COLLATION && isBinaryType(column.type) ? Buffer.from(data.subarray(start, end)) : data.toString('utf8', start, end);
    }
  }
  return row;
}

function isBinaryType(type: number): boolean {
  return (
    type === TYPE.BLOB ||
    type === TYPE.TINY_BLOB ||
    type === TYPE.MEDIUM_BLOB ||
    type === TYPE.LONG_BLOB ||
    type === TYPE.VAR_STRING ||
    type === TYPE.STRING ||
    type === TYPE.VARCHAR ||
    type === TYPE.GEOMETRY
  );
}

function bytesOrText(r: PacketReader, column: Column): unknown {
  const length = r.lenenc() ?? 0;
  const start = r.at;
  r.at += length;
  if (column.type === TYPE.BIT || (column.collation === BINARY_COLLATION && isBinaryType(column.type)))
    return Buffer.from(r.data.subarray(start, start + length));
  // DECIMAL stays text: exact. Strings, ENUM, SET, JSON as text.
  return r.data.toString('utf8', start, start + length);
}

function parseInteger(data: Buffer, start: number, end: number): number {
  let i = start;
  const negative = data[i] === 0x2d;
  if (negative) i++;
  let value = 0;
  for (; i < end; i++) value = value * 10 + (data[i]! - 0x30);
  return negative ? -value : value;
}

function binaryDate(r: PacketReader): Date | null {
  const length = r.u8();
  if (length === 0) return null; // the zero date
  const year = r.u16();
  const month = r.u8();
  const day = r.u8();
  let hour = 0;
  let minute = 0;
  let second = 0;
  let micro = 0;
  if (length >= 7) {
    hour = r.u8();
    minute = r.u8();
    second = r.u8();
  }
  if (length >= 11) micro = r.u32();
  return new Date(year, month - 1, day, hour, minute, second, Math.floor(micro / 1000));
}

function binaryTime(r: PacketReader): string {
  const length = r.u8();
  if (length === 0) return '00:00:00';
  const negative = r.u8() === 1;
  const days = r.u32();
  const hours = r.u8() + days * 24;
  const minutes = r.u8();
  const seconds = r.u8();
  const micro = length >= 12 ? r.u32() : 0;
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${negative ? '-' : ''}${two(hours)}:${two(minutes)}:${two(seconds)}${micro ? `.${String(micro).padStart(6, '0')}` : ''}`;
}

function textDate(text: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?)?$/.exec(text);
  if (!m || m[1] === '0000') return null;
  const ms = m[7] ? Math.floor(Number(m[7].padEnd(6, '0')) / 1000) : 0;
  return new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0), ms);
}

/** A parameter written into SQL text (COM_QUERY), escaped as the server's current mode reads it. */
export function literal(value: SqlValue | undefined, noBackslashEscapes: boolean): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`cannot send ${value} to MariaDB`);
    return String(value);
  }
  if (typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (value instanceof Date) return `'${dateText(value)}'`;
  if (noBackslashEscapes) return `'${value.replace(/'/g, "''")}'`;
  return `'${value.replace(/[\0\n\r\x1a'"\\]/g, (c) => ESCAPES[c]!)}'`;
}

const ESCAPES: Record<string, string> = { '\0': '\\0', '\n': '\\n', '\r': '\\r', '\x1a': '\\Z', "'": "\\'", '"': '\\"', '\\': '\\\\' };

/** Local time, as the connector sent dates: YYYY-MM-DD HH:MM:SS.mmm. */
function dateText(d: Date): string {
  const p = (n: number, width = 2): string => String(n).padStart(width, '0');
  return `${p(d.getFullYear(), 4)}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

/**
 * Puts `params` in place of the `?` placeholders of `sql`, leaving question marks inside quoted
 * strings, quoted identifiers and comments alone (MariaDB's lexical rules: '', "", ``, --, #, /* *\/).
 */
export function inlineParameters(sql: string, params: readonly SqlValue[], noBackslashEscapes: boolean): string {
  let out = '';
  let last = 0;
  let n = 0;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!;
    if (c === "'" || c === '"' || c === '`') {
      // A quote ends the literal unless doubled, or escaped by a backslash (not in identifiers).
      for (i++; i < sql.length; i++) {
        if (sql[i] === '\\' && c !== '`' && !noBackslashEscapes) i++;
        else if (sql[i] === c) {
          if (sql[i + 1] === c) i++;
          else break;
        }
      }
    } else if ((c === '-' && sql[i + 1] === '-' && /\s/.test(sql[i + 2] ?? ' ')) || c === '#') {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end;
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 1;
    } else if (c === '?') {
      if (n >= params.length) throw new RangeError(`the statement has more placeholders than the ${params.length} parameter(s) given`);
      out += sql.slice(last, i) + literal(params[n++], noBackslashEscapes);
      last = i + 1;
    }
  }
  if (n < params.length) throw new RangeError(`the statement has ${n} placeholder(s) but ${params.length} parameter(s) were given`);
  return out + sql.slice(last);
}
