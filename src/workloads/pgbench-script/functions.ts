import { exponential, gaussian, uniform, zipfian } from './distributions.js';
import { hashFnv1a, hashMurmur2, permute } from './hash.js';
import { Double, ScriptError, intFromBig, toDouble, toInt, valueText, typeName, type Value } from './value.js';
import type { Frame } from './frame.js';

/** An expression compiled to a function of the script's frame (compile.ts); functions take their arguments so. */
export type Compiled = (frame: Frame) => Exclude<Value, string>;

type Typed = Exclude<Value, string>;
type Nonnull = Exclude<Typed, null>;

interface FunctionSpec {
  min: number;
  max: number;
  compile(args: Compiled[]): Compiled;
}

/**
 * A standard function: arguments evaluated first, and any NULL argument makes the result NULL
 * (pgbench's evalStandardFunc); `body` sees non-null values only.
 */
function standard(min: number, max: number, body: (v: Nonnull[], frame: Parameters<Compiled>[0]) => Typed): FunctionSpec {
  return {
    min,
    max,
    compile(args) {
      if (args.length > MAX_ARGUMENTS) return tooManyArguments(args);
      const values: Nonnull[] = new Array(args.length);
      return (f) => {
        for (let i = 0; i < args.length; i++) {
          const v = args[i]!(f);
          if (v === null) return null;
          values[i] = v;
        }
        return body(values, f);
      };
    },
  };
}

/**
 * pgbench evaluates at most 16 arguments of a function (greatest and least take any number): with
 * more, the first 16 are evaluated, and the client stops with this error, as in pgbench.
 */
const MAX_ARGUMENTS = 16;

function tooManyArguments(args: Compiled[]): Compiled {
  return (f) => {
    for (let i = 0; i < MAX_ARGUMENTS; i++) args[i]!(f);
    throw new ScriptError(`too many function arguments, maximum is ${MAX_ARGUMENTS}`);
  };
}

const big = (v: Nonnull): bigint => BigInt(toInt(v));
const dbl = (fn: (x: number) => number): FunctionSpec => standard(1, 1, ([x]) => new Double(fn(toDouble(x!))));

/** greatest/least: a double among the arguments makes every comparison and the result double. */
function extreme(pickFirst: (a: number | bigint, b: number | bigint) => boolean): FunctionSpec {
  return standard(1, Infinity, (values) => {
    if (values.some((v) => v instanceof Double)) {
      let best = toDouble(values[0]!);
      for (const v of values) if (pickFirst(toDouble(v), best)) best = toDouble(v);
      return new Double(best);
    }
    let best = toInt(values[0]!);
    for (const v of values) {
      const i = toInt(v);
      if (pickFirst(i, best)) best = i;
    }
    return best;
  });
}

export const FUNCTIONS: Record<string, FunctionSpec> = {
  abs: standard(1, 1, ([x]) => {
    if (x instanceof Double) return new Double(Math.abs(x.v));
    const i = toInt(x!);
    // |INT64_MIN| does not fit in 64 bits: an overflow error, not a wrapped value.
    return typeof i === 'number' ? Math.abs(i) : intFromBig(i < 0n ? -i : i, 'abs');
  }),
  debug: {
    min: 1,
    max: 1,
    compile([arg]) {
      return (f) => {
        const v = arg!(f);
        f.debug(v === null ? 'null' : `${typeName(v)} ${valueText(v)}`);
        return v;
      };
    },
  },
  double: standard(1, 1, ([x]) => new Double(toDouble(x!))),
  exp: dbl(Math.exp),
  ln: dbl(Math.log),
  sqrt: dbl(Math.sqrt),
  pi: standard(0, 0, () => new Double(Math.PI)),
  int: standard(1, 1, ([x]) => toInt(x!)),
  greatest: extreme((a, b) => a > b),
  least: extreme((a, b) => a < b),
  mod: standard(2, 2, ([x, y]) => {
    const a = big(x!);
    const b = big(y!);
    if (b === 0n) throw new ScriptError('division by zero');
    return b === -1n ? 0 : intFromBig(a % b, 'mod');
  }),
  pow: standard(2, 2, ([x, y]) => new Double(Math.pow(toDouble(x!), toDouble(y!)))),
  power: standard(2, 2, ([x, y]) => new Double(Math.pow(toDouble(x!), toDouble(y!)))),
  hash: standard(1, 2, (v) => intFromBig(hashMurmur2(big(v[0]!), big(v[1]!)), 'hash')),
  hash_murmur2: standard(1, 2, (v) => intFromBig(hashMurmur2(big(v[0]!), big(v[1]!)), 'hash')),
  hash_fnv1a: standard(1, 2, (v) => intFromBig(hashFnv1a(big(v[0]!), big(v[1]!)), 'hash')),
  permute: standard(2, 3, (v) => {
    const size = big(v[1]!);
    if (size <= 0n) throw new ScriptError('permute size parameter must be greater than zero');
    return intFromBig(permute(big(v[0]!), size, big(v[2]!)), 'permute');
  }),
  random: standard(2, 2, ([lb, ub], f) => uniform(f.random, toInt(lb!), toInt(ub!))),
  random_exponential: standard(3, 3, ([lb, ub, p], f) => exponential(f.random, toInt(lb!), toInt(ub!), toDouble(p!))),
  random_gaussian: standard(3, 3, ([lb, ub, p], f) => gaussian(f.random, toInt(lb!), toInt(ub!), toDouble(p!))),
  random_zipfian: standard(3, 3, ([lb, ub, p], f) => zipfian(f.random, toInt(lb!), toInt(ub!), toDouble(p!))),
};
