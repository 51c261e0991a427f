import type { Row, SqlValue } from '../../driver.js';
import { MalformedPacket, type XdrReader, type XdrWriter } from './xdr.js';

/** SQL types of Firebird's descriptors (XSQLVAR sqltype without its nullable bit). */
const SQL_VARYING = 448;
const SQL_TEXT = 452;
const SQL_DOUBLE = 480;
const SQL_FLOAT = 482;
const SQL_LONG = 496;
const SQL_SHORT = 500;
const SQL_TIMESTAMP = 510;
const SQL_TYPE_TIME = 560;
const SQL_TYPE_DATE = 570;
const SQL_INT64 = 580;
const SQL_BOOLEAN = 32764;
const SQL_NULL = 32766;
/** Character set id of UTF8. */
const UTF8 = 4;

/** BLR codes of message descriptions. */
const blr = {
  version5: 5,
  begin: 2,
  message: 4,
  end: 255,
  eoc: 76,
  text2: 15,
  short: 7,
  long: 8,
  float: 10,
  double: 27,
  timestamp: 35,
  varying2: 38,
  int64: 16,
  sqlDate: 12,
  sqlTime: 13,
  bool: 23,
} as const;

/** One column or parameter as the server describes it. */
export interface Field {
  type: number;
  subType: number;
  scale: number;
  length: number;
  name: string;
}

/** Items asked of op_prepare_statement: the statement's type and both messages' fields. */
const VARIABLE_ITEMS = [9, 11, 12, 13, 14, 19, 8]; // sqlda_seq, type, sub_type, scale, length, alias, describe_end
export const DESCRIBE_ITEMS = Buffer.from([21, 4, 7, ...VARIABLE_ITEMS, 5, 7, ...VARIABLE_ITEMS]); // stmt_type, select, describe_vars, ..., bind, describe_vars, ...

export const STATEMENT_SELECT = 1;
export const STATEMENT_EXEC_PROCEDURE = 8;
export const STATEMENT_SELECT_FOR_UPDATE = 12;

/** What op_prepare_statement's info buffer says; `truncated` when the buffer was too small. */
export function parseDescribe(info: Buffer): { statementType: number; output: Field[]; input: Field[]; truncated: boolean } {
  let statementType = 0;
  let output: Field[] = [];
  let input: Field[] = [];
  let target: Field[] = output;
  let field: Field | undefined;
  let pos = 0;
  const intAt = (start: number, length: number): number => (length === 0 ? 0 : info.readIntLE(start, Math.min(length, 4)));
  while (pos < info.length) {
    const item = info[pos++]!;
    if (item === 1) break; // isc_info_end
    if (item === 2) return { statementType, output, input, truncated: true }; // isc_info_truncated
    if (item === 4) {
      target = output;
      continue;
    } // isc_info_sql_select
    if (item === 5) {
      target = input;
      continue;
    } // isc_info_sql_bind
    if (item === 8) continue; // isc_info_sql_describe_end
    if (pos + 2 > info.length) throw new MalformedPacket('a statement description cut short');
    const length = info.readUInt16LE(pos);
    const start = pos + 2;
    pos = start + length;
    if (pos > info.length) throw new MalformedPacket('a statement description cut short');
    switch (item) {
      case 21:
        statementType = intAt(start, length);
        break;
      case 7: {
        // describe_vars: the count
        const fields = Array.from({ length: intAt(start, length) }, () => ({ type: 0, subType: 0, scale: 0, length: 0, name: '' }));
        if (target === output) output = target = fields;
        else input = target = fields;
        break;
      }
      case 9:
        field = target[intAt(start, length) - 1];
        if (!field) throw new MalformedPacket('a field number out of range');
        break;
      case 11:
        field!.type = intAt(start, length) & ~1;
        break;
      case 12:
        field!.subType = intAt(start, length);
        break;
      case 13:
        field!.scale = intAt(start, length);
        break;
      case 14:
        field!.length = intAt(start, length);
        break;
      case 19:
        field!.name = info.toString('utf8', start, pos);
        break;
      default:
        throw new MalformedPacket(`an unknown item ${item} in a statement description`);
    }
  }
  return { statementType, output, input, truncated: false };
}

/**
 * The BLR of a message of these fields, each followed by its null indicator (a short). Text goes
 * as VARCHAR in both directions: CHAR(n) input then needs no padding, output no trimming rule of
 * ours (CHAR comes back padded, as the server keeps it).
 */
export function messageBlr(fields: readonly Field[], forInput: boolean): Buffer {
  if (fields.length === 0) return Buffer.alloc(0);
  const out: number[] = [blr.version5, blr.begin, blr.message, 0, (fields.length * 2) & 0xff, (fields.length * 2) >> 8];
  for (const f of fields) {
    switch (f.type) {
      case SQL_VARYING:
        out.push(blr.varying2, f.subType & 0xff, 0, f.length & 0xff, f.length >> 8);
        break;
      case SQL_TEXT:
        if (forInput) out.push(blr.varying2, f.subType & 0xff, 0, f.length & 0xff, f.length >> 8);
        else out.push(blr.text2, f.subType & 0xff, 0, f.length & 0xff, f.length >> 8);
        break;
      case SQL_SHORT:
        out.push(blr.short, f.scale & 0xff);
        break;
      case SQL_LONG:
        out.push(blr.long, f.scale & 0xff);
        break;
      case SQL_INT64:
        out.push(blr.int64, f.scale & 0xff);
        break;
      case SQL_DOUBLE:
        out.push(blr.double);
        break;
      case SQL_FLOAT:
        out.push(blr.float);
        break;
      case SQL_TIMESTAMP:
        out.push(blr.timestamp);
        break;
      case SQL_TYPE_DATE:
        out.push(blr.sqlDate);
        break;
      case SQL_TYPE_TIME:
        out.push(blr.sqlTime);
        break;
      case SQL_BOOLEAN:
        out.push(blr.bool);
        break;
      case SQL_NULL:
        out.push(blr.text2, 0, 0, 0, 0);
        break; // `? IS NULL`: only the null flag matters
      default:
        throw new UnsupportedType(f.type, f.name);
    }
    out.push(blr.short, 0);
  }
  out.push(blr.end, blr.eoc);
  return Buffer.from(out);
}

/** A parameter value that does not fit its parameter's type: the request is not sent. */
export class ParameterError extends Error {
  override readonly name = 'ParameterError';
}

/** A column or parameter type headroom's Firebird client does not encode (BLOB, ARRAY, Firebird 4's INT128, DECFLOAT, WITH TIME ZONE). */
export class UnsupportedType extends ParameterError {
  constructor(type: number, name: string) {
    super(`Firebird SQL type ${type}${name ? ` (${name})` : ''} is not supported by headroom's Firebird client`);
  }
}

const MS_PER_DAY = 86_400_000;
/** Firebird counts days from 1858-11-17, the Unix epoch is day 40587. */
const EPOCH_DAY = 40_587;
const POWERS = Array.from({ length: 19 }, (_, i) => 10 ** i);
const BIG_POWERS = Array.from({ length: 19 }, (_, i) => 10n ** BigInt(i));

/** Local wall-clock milliseconds of a Date (Firebird's TIMESTAMP has no zone; node-firebird used local time too). */
function localMs(date: Date): number {
  return date.getTime() - date.getTimezoneOffset() * 60_000;
}

function fromLocalMs(ms: number): Date {
  const utc = new Date(ms);
  return new Date(
    utc.getUTCFullYear(),
    utc.getUTCMonth(),
    utc.getUTCDate(),
    utc.getUTCHours(),
    utc.getUTCMinutes(),
    utc.getUTCSeconds(),
    utc.getUTCMilliseconds(),
  );
}

/** A scaled integer (NUMERIC/DECIMAL stored as SMALLINT/INTEGER/BIGINT) from any parameter value. */
function scaledInteger(value: SqlValue, scale: number): bigint {
  if (typeof value === 'bigint') return scale === 0 ? value : value * BIG_POWERS[-scale]!;
  if (typeof value === 'number') return BigInt(Math.round(value * POWERS[-scale]!));
  if (typeof value === 'boolean') return value ? 1n : 0n;
  const text = String(value).trim();
  const match = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text);
  if (!match || (match[2] === '' && (match[3] ?? '') === '')) throw new ParameterError(`"${text}" is not a number`);
  const fraction = (match[3] ?? '').padEnd(-scale, '0');
  const kept = fraction.slice(0, -scale);
  let units = BigInt((match[2] || '0') + kept);
  // Round half away from zero on the first dropped digit, as the server's own conversion does.
  if ((fraction.charCodeAt(-scale) || 48) >= 53) units += 1n;
  return match[1] === '-' ? -units : units;
}

const ZEROS = Buffer.alloc(1024);

/** Writes one message: the null bitmap (protocol 13 and later), then every non-null value. */
export function writeMessage(w: XdrWriter, fields: readonly Field[], values: readonly SqlValue[]): void {
  const bitmapBytes = (fields.length + 7) >> 3;
  const bitmapAt = w.length;
  w.opaque(ZEROS.subarray(0, bitmapBytes));
  for (let i = 0; i < fields.length; i++) {
    const value = values[i];
    if (value === null || value === undefined) {
      w.buffer[bitmapAt + (i >> 3)]! |= 1 << (i & 7);
      continue;
    }
    writeValue(w, fields[i]!, value);
  }
}

function writeValue(w: XdrWriter, f: Field, value: SqlValue): void {
  switch (f.type) {
    case SQL_VARYING:
    case SQL_TEXT: {
      const text = value instanceof Date ? value.toISOString() : String(value);
      const at = w.length;
      w.string(text);
      const bytes = w.buffer.readInt32BE(at);
      if (bytes > f.length) throw new ParameterError(`a string of ${bytes} bytes for ${f.name || 'a parameter'} of ${f.length} bytes: string right truncation`);
      return;
    }
    case SQL_SHORT:
    case SQL_LONG:
      if (f.scale === 0 && typeof value === 'number' && Number.isInteger(value)) w.int32(value);
      else w.int32(Number(scaledInteger(value, f.scale)));
      return;
    case SQL_INT64:
      w.int64(f.scale === 0 && typeof value === 'number' && Number.isInteger(value) ? BigInt(value) : scaledInteger(value, f.scale));
      return;
    case SQL_DOUBLE:
      w.double(Number(value));
      return;
    case SQL_FLOAT:
      w.float(Number(value));
      return;
    case SQL_TIMESTAMP: {
      const ms = localMs(value instanceof Date ? value : new Date(value as string));
      const day = Math.floor(ms / MS_PER_DAY);
      w.int32(day + EPOCH_DAY).int32((ms - day * MS_PER_DAY) * 10);
      return;
    }
    case SQL_TYPE_DATE:
      w.int32(Math.floor(localMs(value instanceof Date ? value : new Date(value as string)) / MS_PER_DAY) + EPOCH_DAY);
      return;
    case SQL_TYPE_TIME: {
      const ms = localMs(value instanceof Date ? value : new Date(value as string));
      w.int32((ms - Math.floor(ms / MS_PER_DAY) * MS_PER_DAY) * 10);
      return;
    }
    case SQL_BOOLEAN:
      w.opaque(Buffer.from([value === true || value === 1 || value === 'true' ? 1 : 0]));
      return;
    case SQL_NULL:
      w.opaque(Buffer.alloc(0));
      return;
    default:
      throw new UnsupportedType(f.type, f.name);
  }
}

/**
 * Reads one row: the null bitmap, then each non-null value. NUMERIC/DECIMAL come back as
 * numbers (as node-firebird gave them), a BIGINT past 2^53 as its exact decimal text.
 */
export function readRow(r: XdrReader, fields: readonly Field[]): Row {
  const bitmap = r.fixed((fields.length + 7) >> 3);
  const row: Row = new Array(fields.length);
  for (let i = 0; i < fields.length; i++) {
    if (r.buffer[bitmap.start + (i >> 3)]! & (1 << (i & 7))) {
      row[i] = null;
      continue;
    }
    const f = fields[i]!;
    switch (f.type) {
      case SQL_VARYING: {
        const { start, end } = r.span(f.length);
        row[i] = r.buffer.toString('utf8', start, end);
        break;
      }
      case SQL_TEXT: {
        // CHAR(n) in UTF8 takes 4n bytes, padded with spaces past its n characters.
        const { start, end } = r.fixed(f.length);
        const text = r.buffer.toString('utf8', start, end);
        const chars = (f.subType & 0xff) === UTF8 ? f.length >> 2 : f.length;
        row[i] = text.length > chars ? text.slice(0, chars) : text;
        break;
      }
      case SQL_SHORT:
      case SQL_LONG: {
        const n = r.int32();
        row[i] = f.scale === 0 ? n : n / POWERS[-f.scale]!;
        break;
      }
      case SQL_INT64: {
        const n = r.int64();
        if (f.scale === 0) row[i] = n >= -9007199254740991n && n <= 9007199254740991n ? Number(n) : n.toString();
        else row[i] = Number(n) / POWERS[-f.scale]!;
        break;
      }
      case SQL_DOUBLE:
        row[i] = r.double();
        break;
      case SQL_FLOAT:
        row[i] = r.float();
        break;
      case SQL_TIMESTAMP: {
        const day = r.int32();
        const time = r.uint32();
        row[i] = fromLocalMs((day - EPOCH_DAY) * MS_PER_DAY + Math.floor(time / 10));
        break;
      }
      case SQL_TYPE_DATE:
        row[i] = fromLocalMs((r.int32() - EPOCH_DAY) * MS_PER_DAY);
        break;
      case SQL_TYPE_TIME:
        row[i] = fromLocalMs(Math.floor(r.uint32() / 10));
        break;
      case SQL_BOOLEAN: {
        const { start } = r.fixed(1);
        row[i] = r.buffer[start] !== 0;
        break;
      }
      case SQL_NULL:
        r.fixed(0);
        row[i] = null;
        break;
      default:
        throw new UnsupportedType(f.type, f.name);
    }
  }
  return row;
}
