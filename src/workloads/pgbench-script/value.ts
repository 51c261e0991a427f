import { DbError } from '../../drivers/errors.js';

/**
 * A pgbench script value. pgbench's integers are 64-bit: they live here as JS numbers while they
 * are safe integers (the common case, no allocation) and as bigint beyond that, never both for one
 * value. Doubles are boxed so that 2.0 stays a double; strings are variables set by -D or \gset,
 * read as null, boolean, integer or double when an expression uses them (pgbench's makeVariableValue).
 */
export class Double {
  constructor(readonly v: number) {}
}
export type Value = number | bigint | Double | boolean | null | string;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * A runtime error of the script (unknown variable, division by zero, bad argument): pgbench aborts
 * the client that hit it, so it is a bad request for this terminal, never retried.
 */
export class ScriptError extends DbError {
  constructor(message: string, completed = false) {
    super('bad_request', message, 'script', undefined, { completed });
  }
}

/** An integer result from a bigint computation, or pgbench's overflow error. */
export function intFromBig(value: bigint, what: string): number | bigint {
  if (value < INT64_MIN || value > INT64_MAX) throw new ScriptError(`bigint ${what} out of range`);
  return value >= -9007199254740991n && value <= 9007199254740991n ? Number(value) : value;
}

export function typeName(v: Value): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'boolean';
  if (v instanceof Double) return 'double';
  if (typeof v === 'string') return 'string';
  return 'int';
}

/** pgbench's reading of a variable's text: null, a boolean word or its prefix, an integer, a double. */
export function parseVariableText(name: string, text: string): Exclude<Value, string> {
  const lower = text.trim().toLowerCase();
  if (lower === 'null') return null;
  if (lower.length > 0 && ('true'.startsWith(lower) || 'yes'.startsWith(lower) || (lower.length >= 2 && 'on'.startsWith(lower)))) return true;
  if (lower.length > 0 && ('false'.startsWith(lower) || 'no'.startsWith(lower) || (lower.length >= 2 && 'off'.startsWith(lower)))) return false;
  if (/^\s*[+-]?\d+\s*$/.test(text)) return intFromBig(BigInt(text.trim()), 'value');
  const d = Number(text.trim());
  if (text.trim() !== '' && /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$|^[+-]?(inf|infinity|nan)$/i.test(text.trim()))
    return new Double(Number.isNaN(d) && !/nan/i.test(text) ? Infinity * (text.trim().startsWith('-') ? -1 : 1) : d);
  throw new ScriptError(`malformed variable "${name}" value: "${text}"`);
}

/** pgbench's coerceToInt: doubles are rounded half to even (rint) and must fit in 64 bits. */
export function toInt(v: Value): number | bigint {
  if (typeof v === 'number' || typeof v === 'bigint') return v;
  if (v instanceof Double) {
    const r = rint(v.v);
    if (Number.isNaN(r) || r < -9223372036854775808 || r >= 9223372036854775808) throw new ScriptError(`double to int overflow for ${fixed6(v.v)}`);
    return Number.isSafeInteger(r) ? r : BigInt(r);
  }
  throw new ScriptError(`cannot coerce ${typeName(v)} to int`);
}

export function toDouble(v: Value): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof Double) return v.v;
  throw new ScriptError(`cannot coerce ${typeName(v)} to double`);
}

/** pgbench's coerceToBool (AND, OR, NOT): booleans only, `NOT 0` is an error as in pgbench (AND/OR handle null before calling it). */
export function toBool(v: Value): boolean {
  if (typeof v === 'boolean') return v;
  throw new ScriptError(`cannot coerce ${typeName(v)} to boolean`);
}

/** pgbench's valueTruth (CASE WHEN, \if): null is false, a number is true when not zero. */
export function truth(v: Value): boolean {
  if (v === null) return false;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'bigint') return v !== 0n;
  if (v instanceof Double) return v.v !== 0;
  return toBool(v);
}

function rint(x: number): number {
  const r = Math.round(x);
  // Math.round takes .5 up; rint takes it to the even neighbour.
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** pgbench prints a double with %.15g. */
export function formatDouble(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const exponent = Math.floor(Math.log10(Math.abs(x)));
  if (exponent < -4 || exponent >= 15) {
    const [mantissa, exp] = x.toExponential(14).split('e') as [string, string];
    const e = Number(exp);
    return `${trimZeros(mantissa)}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  return trimZeros(x.toFixed(Math.max(0, 14 - exponent)));
}

function trimZeros(s: string): string {
  return s.includes('.') ? s.replace(/\.?0+$/, '') : s;
}

/** The text pgbench substitutes for a value in SQL and shows in debug(). */
export function valueText(v: Value): string {
  if (v === null) return 'NULL';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (v instanceof Double) return formatDouble(v.v);
  return String(v);
}

/** C's %f: six decimals, and every digit of a large number (toFixed switches to exponent form at 1e21). */
export function fixed6(x: number): string {
  return Number.isFinite(x) && Math.abs(x) >= 1e21 ? `${BigInt(x)}.000000` : x.toFixed(6);
}
