/**
 * The study's reference generator (chain-model.md, "The reference generator"): one multiplicative
 * generator r -> r * 11 mod p feeds every foreign-key value, so references are spread evenly and
 * every run and every DBMS references the same rows. It must be reproduced exactly.
 */

export const PRIME = 982_451_653;
export const BASE = 11;
/** The first power of 11 that is >= p, mod p: 11^9 mod p. */
export const START_R = 393_044_385;

/** r * 11 stays below 2^34, far inside a double's exact integers. */
function step(r: number): number {
  return (r * BASE) % PRIME;
}

/** a * b mod p exactly: the product of two residues can pass 2^53, so it goes through BigInt. */
export function mulMod(a: number, b: number): number {
  return Number((BigInt(a) * BigInt(b)) % BigInt(PRIME));
}

export class RefGenerator {
  private r: number;

  /** A fresh generator starts one step past startR; a generator created "at s" starts at s. */
  constructor(at?: number) {
    this.r = at ?? step(START_R);
  }

  get state(): number {
    return this.r;
  }

  set state(r: number) {
    this.r = r;
  }

  /**
   * An id in 1..parentCount-1: the id equal to parentCount is never drawn, as in the study.
   * parentCount must be at least 2, or no id can be drawn.
   */
  nextRef(parentCount: number): number {
    if (parentCount < 2) throw new RangeError(`nextRef needs a parent count of at least 2, got ${parentCount}`);
    let ref: number;
    do {
      ref = this.r % parentCount;
      this.r = step(this.r);
    } while (ref <= 0);
    return ref;
  }
}

const shifts = new Map<number, number>();

/** r of a fresh generator after k calls of nextRef(111); memoised, as each terminal asks for it. */
export function shift(k: number): number {
  let value = shifts.get(k);
  if (value === undefined) {
    const generator = new RefGenerator();
    for (let i = 0; i < k; i++) generator.nextRef(111);
    value = generator.state;
    shifts.set(k, value);
  }
  return value;
}

/**
 * Where terminal `index` of a distributed run starts (chain-model.md, "Runs"): s_0 = start,
 * s_{i+1} = s_i * shift(n) mod p, n = units per terminal.
 */
export function distributedStart(start: number, index: number, unitsPerTerminal: number): number {
  const factor = shift(unitsPerTerminal);
  let s = start;
  for (let i = 0; i < index; i++) s = mulMod(s, factor);
  return s;
}

/** The first run starts at startR; each later run at shift(count of existing operations). */
export function runStart(existingOperations: number): number {
  return existingOperations === 0 ? START_R : shift(existingOperations);
}
