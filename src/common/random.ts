/**
 * xoshiro128** (Blackman and Vigna): fast, seedable, and its whole state is four numbers, so a
 * retried transaction can replay exactly the values of its first try, as pgbench does.
 */
export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    // splitmix32 spreads one seed over the four state words; an all-zero state is impossible.
    let s = seed >>> 0;
    const next = (): number => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next() | 1;
  }

  /** A uniform 32-bit unsigned integer. */
  uint32(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0;
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return result;
  }

  /** A uniform double in [0, 1) with 53 random bits. */
  float(): number {
    return ((this.uint32() >>> 5) * 67108864 + (this.uint32() >>> 6)) / 9007199254740992;
  }

  /** An exponential draw with mean `mean` (pgbench's getPoissonRand gaps, TPC-C think times). */
  exponential(mean: number): number {
    return -Math.log(1 - this.float()) * mean;
  }

  /** A uniform integer in [min, max], both inclusive (pgbench's random(lb, ub)). */
  int(min: number, max: number): number {
    return min + Math.floor(this.float() * (max - min + 1));
  }

  save(): [number, number, number, number] {
    return [this.a, this.b, this.c, this.d];
  }

  restore(state: readonly [number, number, number, number]): void {
    [this.a, this.b, this.c, this.d] = state;
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
