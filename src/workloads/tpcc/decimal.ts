import type { DbmsName, SqlValue } from '../../drivers/driver.js';
import { tpccDialect } from './dialect.js';

/**
 * Exact decimals without floats. Amounts travel in JavaScript as bigint units of the column's
 * scale (cents for NUMERIC(12,2), ten-thousandths for NUMERIC(4,4)). PostgreSQL, MariaDB and
 * Firebird store NUMERIC/DECIMAL and take them as decimal strings; SQLite has no exact decimal
 * type (its NUMERIC affinity stores REAL), so there the same columns are INTEGER in those units.
 */
export class Decimals {
  /** The DBMS stores these columns as INTEGER units (dialect.ts, decimalsAsUnits). */
  private readonly asUnits: boolean;

  constructor(dbms: DbmsName) {
    this.asUnits = tpccDialect(dbms).decimalsAsUnits;
  }

  /** A value in units of 10^-scale as the column takes it. */
  param(units: bigint, scale: number): SqlValue {
    return this.asUnits ? units : format(units, scale);
  }

  /** A column's value as units of 10^-scale. Drivers return decimal strings, SQLite integers, Firebird numbers. */
  read(value: unknown, scale: number): bigint {
    if (typeof value === 'bigint') return this.asUnits ? value : value * 10n ** BigInt(scale);
    if (typeof value === 'number') {
      if (this.asUnits) return BigInt(value);
      // node-firebird hands back NUMERIC as a double; toFixed recovers the exact decimal it came from.
      return parse(value.toFixed(scale), scale);
    }
    if (typeof value === 'string') return this.asUnits ? BigInt(value) : parse(value, scale);
    if (value === null || value === undefined) return 0n;
    throw new Error(`not a decimal: ${String(value)}`);
  }
}

/** "-12.3" at scale 2 -> -1230n. */
export function parse(text: string, scale: number): bigint {
  const match = /^\s*(-?)(\d*)(?:\.(\d*))?\s*$/.exec(text);
  if (!match) throw new Error(`not a decimal: ${text}`);
  const fraction = (match[3] ?? '').padEnd(scale, '0');
  if (fraction.length > scale && /[^0]/.test(fraction.slice(scale))) throw new Error(`${text} has more than ${scale} decimals`);
  const units = BigInt((match[2] || '0') + fraction.slice(0, scale));
  return match[1] === '-' ? -units : units;
}

/** -1230n at scale 2 -> "-12.30". */
export function format(units: bigint, scale: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return negative ? `-${text}` : text;
}
