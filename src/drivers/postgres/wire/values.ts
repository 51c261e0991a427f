import type { SqlValue } from '../../driver.js';

/** Type OIDs from pg_type whose text form headroom turns into JavaScript values. */
const BOOL = 16;
const INT8 = 20;
const INT2 = 21;
const INT4 = 23;
const OID = 26;
const FLOAT4 = 700;
const FLOAT8 = 701;

/**
 * Decodes one column in text format. int8 and numeric stay strings, so sums of money and counts
 * beyond 2^53 are never rounded; small integers are parsed straight from the bytes.
 */
export function decodeText(type: number, data: Buffer, start: number, end: number): unknown {
  switch (type) {
    case INT2:
    case INT4:
    case OID:
      return parseInteger(data, start, end);
    case BOOL:
      return data[start] === 0x74; // 't'
    case FLOAT4:
    case FLOAT8:
      return Number(data.toString('latin1', start, end));
    case INT8:
    default:
      return data.toString('utf8', start, end);
  }
}

function parseInteger(data: Buffer, start: number, end: number): number {
  let i = start;
  const negative = data[i] === 0x2d; // '-'
  if (negative) i++;
  let value = 0;
  for (; i < end; i++) value = value * 10 + (data[i]! - 0x30);
  return negative ? -value : value;
}

/** A parameter in text format, as Bind sends it; null stays null (length -1). */
export function encodeText(value: SqlValue | undefined): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (value instanceof Date) return value.toISOString();
  return String(value);
}
