import { Double, ScriptError, intFromBig, toDouble, toInt, type Value } from './value.js';

type Typed = Exclude<Value, string | null>;

const OP_NAMES: Record<string, string> = { '+': 'add', '-': 'sub', '*': 'mul', '/': 'div', '%': 'mod' };

/**
 * + - * / % with pgbench's rules: a double on either side gives a double; otherwise both are
 * integers (booleans are refused) and the result must fit in 64 bits ("bigint add out of range").
 * Integer division truncates toward zero; % takes the dividend's sign; x / 0 and x % 0 fail on
 * integers, while double division by zero gives an infinity, as in pgbench.
 */
export function arithmetic(op: string, l: Typed, r: Typed): Typed {
  if (op !== '%' && (l instanceof Double || r instanceof Double)) {
    const x = toDouble(l);
    const y = toDouble(r);
    return new Double(op === '+' ? x + y : op === '-' ? x - y : op === '*' ? x * y : x / y);
  }
  const x = toInt(l);
  const y = toInt(r);
  if (typeof x === 'number' && typeof y === 'number') {
    let result: number;
    switch (op) {
      case '+':
        result = x + y;
        break;
      case '-':
        result = x - y;
        break;
      case '*':
        result = x * y;
        break;
      case '/':
        if (y === 0) throw new ScriptError('division by zero');
        return Math.trunc(x / y) + 0;
      default:
        if (y === 0) throw new ScriptError('division by zero');
        return (x % y) + 0;
    }
    if (Number.isSafeInteger(result)) return result;
  }
  return bigArithmetic(op, BigInt(x), BigInt(y));
}

function bigArithmetic(op: string, x: bigint, y: bigint): number | bigint {
  switch (op) {
    case '+':
      return intFromBig(x + y, OP_NAMES[op]!);
    case '-':
      return intFromBig(x - y, OP_NAMES[op]!);
    case '*':
      return intFromBig(x * y, OP_NAMES[op]!);
    case '/':
      if (y === 0n) throw new ScriptError('division by zero');
      return intFromBig(x / y, 'div');
    default:
      if (y === 0n) throw new ScriptError('division by zero');
      // x % -1 is 0 for every x; pgbench says so to avoid INT64_MIN % -1 overflowing.
      return y === -1n ? 0 : intFromBig(x % y, 'mod');
  }
}

/** & | # (xor) << >> on 64-bit two's complement integers. */
export function bitwise(op: string, x: number | bigint, y: number | bigint): number | bigint {
  const a = BigInt.asIntN(64, BigInt(x));
  const b = BigInt(y);
  let r: bigint;
  switch (op) {
    case '&':
      r = a & BigInt.asIntN(64, b);
      break;
    case '|':
      r = a | BigInt.asIntN(64, b);
      break;
    case '#':
      r = a ^ BigInt.asIntN(64, b);
      break;
    case '<<':
      r = BigInt.asIntN(64, a << (b & 63n));
      break;
    default:
      r = a >> (b & 63n);
  }
  return intFromBig(r, 'bit');
}

/** Comparisons: as doubles when either side is a double, else as integers; the result is a boolean. */
export function compare(op: string, l: Typed, r: Typed): boolean {
  let c: number;
  if (l instanceof Double || r instanceof Double) {
    const x = toDouble(l);
    const y = toDouble(r);
    c = x < y ? -1 : x > y ? 1 : x === y ? 0 : NaN;
  } else {
    const x = toInt(l);
    const y = toInt(r);
    c = x < y ? -1 : x > y ? 1 : 0;
  }
  switch (op) {
    case '=':
      return c === 0;
    case '<>':
      return c !== 0;
    case '<':
      return c < 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    default:
      return c >= 0;
  }
}

/** IS: NULL IS NULL, a boolean IS TRUE/FALSE; any other pairing is false unless the values are equal booleans. */
export function isSame(l: Exclude<Value, string>, r: Exclude<Value, string>): boolean {
  if (l === null || r === null) return l === r;
  if (typeof r === 'boolean') return l === r;
  return false;
}
