import type { PgRandom } from './pg-random.js';
import { ScriptError, fixed6, intFromBig } from './value.js';

/**
 * pgbench's random functions, computed as pgbench 15 computes them from its generator (pg_prng),
 * so that the same --random-seed draws the same values. Integer bounds are inclusive; the draws
 * come from the client's own stream (so a retried transaction replays them).
 */
const MIN_GAUSSIAN_PARAM = 2.0;
const MIN_ZIPFIAN_PARAM = 1.001;
const MAX_ZIPFIAN_PARAM = 1000.0;

/** Checks the range and returns its width as a double (max - min + 1). */
function width(min: number | bigint, max: number | bigint): number {
  if (max < min) throw new ScriptError('empty range given to random');
  // Safe integers (every ordinary script): no bigint on the hot path.
  if (typeof min === 'number' && typeof max === 'number') return max - min + 1;
  const span = BigInt(max) - BigInt(min);
  if (span >= 2n ** 63n - 1n) throw new ScriptError('random range is too large');
  return Number(span + 1n);
}

function offset(min: number | bigint, k: number): number | bigint {
  return typeof min === 'number' && Number.isSafeInteger(min + k) ? min + k : intFromBig(BigInt(min) + BigInt(k), 'random');
}

/** pgbench's getrand: min plus pg_prng_uint64_range(0, max - min). */
export function uniform(random: PgRandom, min: number | bigint, max: number | bigint): number | bigint {
  width(min, max);
  if (typeof min === 'number' && typeof max === 'number' && Number.isSafeInteger(max - min)) return offset(min, random.offset(max - min));
  return intFromBig(BigInt(min) + random.offsetBig(BigInt(max) - BigInt(min)), 'random');
}

/** Exponential: P(x) proportional to exp(-parameter * (x - min) / (max - min + 1)), parameter > 0. */
export function exponential(random: PgRandom, min: number | bigint, max: number | bigint, parameter: number): number | bigint {
  if (!(parameter > 0)) throw new ScriptError(`exponential parameter must be greater than zero (not ${fixed6(parameter)})`);
  const n = width(min, max);
  const cut = Math.exp(-parameter);
  const u = 1 - random.float(); // (0, 1]
  const r = -Math.log(cut + (1 - cut) * u) / parameter; // [0, 1)
  return offset(min, Math.min(n - 1, Math.floor(n * r)));
}

/** Gaussian cut at ±parameter standard deviations around the middle of the range, parameter >= 2. */
export function gaussian(random: PgRandom, min: number | bigint, max: number | bigint, parameter: number): number | bigint {
  if (!(parameter >= MIN_GAUSSIAN_PARAM)) throw new ScriptError(`gaussian parameter must be at least ${fixed6(MIN_GAUSSIAN_PARAM)} (not ${fixed6(parameter)})`);
  const n = width(min, max);
  let r: number;
  do {
    // Box-Muller on two draws in (0, 1], in pgbench's order.
    const u1 = 1 - random.float();
    const u2 = 1 - random.float();
    r = Math.sqrt(-2 * Math.log(u1)) * Math.sin(2 * Math.PI * u2);
  } while (r < -parameter || r >= parameter);
  const fraction = (r + parameter) / (2 * parameter);
  return offset(min, Math.min(n - 1, Math.floor(n * fraction)));
}

/**
 * Zipfian on [min, max] with exponent s in [1.001, 1000]: value min - 1 + k has probability
 * proportional to 1 / k^s. Drawn by rejection (Devroye, "Non-Uniform Random Variate Generation",
 * p. 550), as pgbench does, so no table of the range is needed.
 */
export function zipfian(random: PgRandom, min: number | bigint, max: number | bigint, s: number): number | bigint {
  if (!(s >= MIN_ZIPFIAN_PARAM && s <= MAX_ZIPFIAN_PARAM)) throw new ScriptError(`zipfian parameter must be in range [1.001, 1000] (not ${fixed6(s)})`);
  const n = width(min, max);
  if (n <= 1) return min;
  const b = Math.pow(2, s - 1);
  for (;;) {
    // u in [0, 1): a zero gives an infinite x, which the bound check below rejects.
    const u = random.float();
    const v = random.float();
    const x = Math.floor(Math.pow(u, -1 / (s - 1)));
    const t = Math.pow(1 + 1 / x, s - 1);
    if ((v * x * (t - 1)) / (b - 1) <= t / b && x <= n) return offset(min, x - 1);
  }
}
