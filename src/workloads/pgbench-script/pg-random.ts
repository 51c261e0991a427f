import { Random } from '../../common/random.js';

/**
 * PostgreSQL's pg_prng (xoroshiro128** over two 64-bit words, seeded by splitmix64) as a Random,
 * so that a script draws what pgbench 15 draws for the same --random-seed. The 64-bit words are
 * kept as 32-bit halves in plain numbers: no bigint on the hot path. Its state is four numbers,
 * so the terminal's save()/restore() replays a retried transaction's values as pgbench does.
 */
const TWO_32 = 4294967296;

export class PgRandom extends Random {
  /** s0 and s1, high and low halves. */
  private h0 = 0;
  private l0 = 0;
  private h1 = 0;
  private l1 = 0;

  /** Seeded as pg_prng_seed(state, seed): `high` and `low` are the seed's 32-bit halves. */
  constructor(high: number, low: number) {
    super(0);
    const mix = new SplitMix64(high, low);
    mix.next();
    this.h0 = mix.high;
    this.l0 = mix.low;
    mix.next();
    this.h1 = mix.high;
    this.l1 = mix.low;
    if ((this.h0 | this.l0 | this.h1 | this.l1) === 0) {
      // pg_prng_seed_check: an all-zero state is a fixed point; PostgreSQL puts Knuth's LCG constants there.
      [this.h0, this.l0, this.h1, this.l1] = [0x5851f42d, 0x4c957f2d, 0x14057b7e, 0xf767814f];
    }
  }

  /** Advances the state; the 64-bit output is left in `outHigh`/`outLow`. */
  private step(): void {
    const { h0, l0 } = this;
    // output: rotl(s0 * 5, 7) * 9
    let lo = l0 * 5;
    let hi = (Math.imul(h0, 5) + ((lo / TWO_32) >>> 0)) >>> 0;
    lo >>>= 0;
    const rh = ((hi << 7) | (lo >>> 25)) >>> 0;
    const rl = ((lo << 7) | (hi >>> 25)) >>> 0;
    lo = rl * 9;
    this.outHigh = (Math.imul(rh, 9) + ((lo / TWO_32) >>> 0)) >>> 0;
    this.outLow = lo >>> 0;
    // sx = s1 ^ s0; s0 = rotl(s0, 24) ^ sx ^ (sx << 16); s1 = rotl(sx, 37)
    const xh = this.h1 ^ h0;
    const xl = this.l1 ^ l0;
    hi = (h0 << 24) | (l0 >>> 8);
    lo = (l0 << 24) | (h0 >>> 8);
    this.h0 = (hi ^ xh ^ ((xh << 16) | (xl >>> 16))) >>> 0;
    this.l0 = (lo ^ xl ^ (xl << 16)) >>> 0;
    // rotl by 37: swap the halves, then rotate by 5
    this.h1 = ((xl << 5) | (xh >>> 27)) >>> 0;
    this.l1 = ((xh << 5) | (xl >>> 27)) >>> 0;
  }

  private outHigh = 0;
  private outLow = 0;

  /** pg_prng_uint64 as its two 32-bit halves [high, low]. */
  uint64Halves(): [number, number] {
    this.step();
    return [this.outHigh, this.outLow];
  }

  /** pg_prng_uint64 as an unsigned bigint (seeding, wide ranges: not the common path). */
  uint64(): bigint {
    this.step();
    return (BigInt(this.outHigh) << 32n) | BigInt(this.outLow);
  }

  /** pg_prng_double: the output's top 52 bits as a fraction, in [0, 1). */
  override float(): number {
    this.step();
    return (this.outHigh * 1048576 + (this.outLow >>> 12)) / 4503599627370496;
  }

  /** pg_prng_uint32: the output's top half. */
  override uint32(): number {
    this.step();
    return this.outHigh;
  }

  /**
   * pg_prng_uint64_range(0, span) for a span below 2^53: the top bits of each output, as many as
   * the span has, drawn again while above it.
   */
  offset(span: number): number {
    if (span <= 0) return 0;
    const bits = span < TWO_32 ? 32 - Math.clz32(span) : 64 - Math.clz32(Math.floor(span / TWO_32));
    for (;;) {
      this.step();
      const v = bits <= 32 ? this.outHigh >>> (32 - bits) : this.outHigh * 2 ** (bits - 32) + (this.outLow >>> (64 - bits));
      if (v <= span) return v;
    }
  }

  /** pg_prng_uint64_range(0, span) for any unsigned 64-bit span. */
  offsetBig(span: bigint): bigint {
    if (span <= 0n) return 0n;
    const shift = BigInt(64 - span.toString(2).length);
    for (;;) {
      const v = this.uint64() >> shift;
      if (v <= span) return v;
    }
  }

  /** pgbench's getrand on safe integers: uniform in [min, max], both inclusive. */
  override int(min: number, max: number): number {
    return min + this.offset(max - min);
  }

  override save(): [number, number, number, number] {
    return [this.h0, this.l0, this.h1, this.l1];
  }

  override restore(state: readonly [number, number, number, number]): void {
    [this.h0, this.l0, this.h1, this.l1] = state;
  }
}

/** splitmix64 on 32-bit halves: the generator pg_prng_seed fills the state from. */
class SplitMix64 {
  high = 0;
  low = 0;
  private sh: number;
  private sl: number;

  constructor(high: number, low: number) {
    this.sh = high >>> 0;
    this.sl = low >>> 0;
  }

  next(): void {
    // state += 0x9e3779b97f4a7c15
    const sum = this.sl + 0x7f4a7c15;
    this.sl = sum >>> 0;
    this.sh = (this.sh + 0x9e3779b9 + (sum >= TWO_32 ? 1 : 0)) >>> 0;
    let [h, l] = xorShiftMul(this.sh, this.sl, 30, 0xbf58476d, 0x1ce4e5b9);
    [h, l] = xorShiftMul(h, l, 27, 0x94d049bb, 0x133111eb);
    // z ^ (z >> 31)
    this.high = (h ^ (h >>> 31)) >>> 0;
    this.low = (l ^ ((l >>> 31) | (h << 1))) >>> 0;
  }
}

/** (z ^ (z >> shift)) * multiplier mod 2^64, for 0 < shift < 32, on 32-bit halves. */
function xorShiftMul(h: number, l: number, shift: number, mh: number, ml: number): [number, number] {
  const xh = (h ^ (h >>> shift)) >>> 0;
  const xl = (l ^ ((l >>> shift) | (h << (32 - shift)))) >>> 0;
  return mul64(xh, xl, mh, ml);
}

/** 64-bit product mod 2^64 of two numbers given as 32-bit halves. */
function mul64(ah: number, al: number, bh: number, bl: number): [number, number] {
  // al * bl in full from 16-bit pieces; the cross terms only reach the high half.
  const a0 = al & 0xffff;
  const a1 = al >>> 16;
  const b0 = bl & 0xffff;
  const b1 = bl >>> 16;
  const low = a0 * b0;
  const mid = a1 * b0 + a0 * b1 + Math.floor(low / 65536);
  const lowWord = ((mid % 65536) * 65536 + (low % 65536)) >>> 0;
  const carry = Math.floor(mid / 65536) + a1 * b1;
  const highWord = (carry + Math.imul(ah, bl) + Math.imul(al, bh)) >>> 0;
  return [highWord, lowWord];
}

/** A 64-bit value as [high, low] 32-bit halves; `value` is a non-negative safe integer or any bigint (two's complement). */
export function halves(value: number | bigint): [number, number] {
  const v = BigInt.asUintN(64, BigInt(value));
  return [Number(v >> 32n), Number(v & 0xffffffffn)];
}

/** What pgbench draws from its base sequence before the run: each client's generator, then default_seed. */
export interface ClientSeeds {
  /** The seed of client i's generator (pgbench's cs_func_rs), as [high, low]. */
  clients: [number, number][];
  /** The default_seed variable (the seed of hash() and permute() without one), a signed 64-bit value. */
  defaultSeed: bigint;
}

let lastSeeds: { runSeed: number; clients: number; seeds: ClientSeeds } | undefined;

/**
 * pgbench 15 seeds its base sequence with --random-seed, then draws from it, in order, one seed
 * per client (before threads are formed: the same for any -j), then default_seed. Cached: every
 * terminal of a job asks for the same run.
 */
export function clientSeeds(runSeed: number, clients: number): ClientSeeds {
  if (lastSeeds && lastSeeds.runSeed === runSeed && lastSeeds.clients === clients) return lastSeeds.seeds;
  const [high, low] = halves(runSeed);
  const base = new PgRandom(high, low);
  const seeds: ClientSeeds = { clients: Array.from({ length: clients }, () => base.uint64Halves()), defaultSeed: BigInt.asIntN(64, base.uint64()) };
  lastSeeds = { runSeed, clients, seeds };
  return seeds;
}

/** Client `client`'s generator, as pgbench seeds it for a run of `clients` clients with this --random-seed. */
export function clientRandom(runSeed: number, client: number, clients: number): PgRandom {
  const [high, low] = clientSeeds(runSeed, clients).clients[client]!;
  return new PgRandom(high, low);
}
