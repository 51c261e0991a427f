/**
 * pgbench's hash and permute functions, to their published definitions, so that a script gives
 * the same values here as under pgbench: FNV-1a 64 over the value's 8 bytes (lowest first),
 * MurmurHash2 64-bit (MurmurHash64A) of one 8-byte key, and permute's rounds of keyed bijections
 * driven by PostgreSQL's pg_prng (xoroshiro128** seeded through splitmix64). All in unsigned
 * 64-bit arithmetic; results are read back as signed 64-bit integers.
 */
const MASK64 = (1n << 64n) - 1n;
const u64 = (x: bigint): bigint => x & MASK64;

const FNV_PRIME = 0x100000001b3n;
const FNV_OFFSET_BASIS = 0xcbf29ce484222325n;

export function hashFnv1a(value: bigint, seed: bigint): bigint {
  let result = u64(FNV_OFFSET_BASIS ^ seed);
  let v = value;
  for (let i = 0; i < 8; i++) {
    result ^= v & 0xffn;
    v >>= 8n;
    result = u64(result * FNV_PRIME);
  }
  return BigInt.asIntN(64, result);
}

const MM2_MUL = 0xc6a4a7935bd1e995n;
const MM2_ROT = 47n;

export function hashMurmur2(value: bigint, seed: bigint): bigint {
  // The key is 8 bytes long: the initial hash is seed XOR (length * multiplier).
  let h = u64(seed ^ u64(MM2_MUL * 8n));
  let k = u64(u64(value) * MM2_MUL);
  k ^= k >> MM2_ROT;
  k = u64(k * MM2_MUL);
  h ^= k;
  h = u64(h * MM2_MUL);
  h ^= h >> MM2_ROT;
  h = u64(h * MM2_MUL);
  h ^= h >> MM2_ROT;
  return BigInt.asIntN(64, h);
}

/** PostgreSQL's pg_prng: xoroshiro128**, seeded from one 64-bit value by two splitmix64 steps. */
export class PgPrng {
  private s0: bigint;
  private s1: bigint;

  constructor(seed: bigint) {
    let state = u64(seed);
    const splitmix = (): bigint => {
      state = u64(state + 0x9e3779b97f4a7c15n);
      let z = state;
      z = u64((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n);
      z = u64((z ^ (z >> 27n)) * 0x94d049bb133111ebn);
      return z ^ (z >> 31n);
    };
    this.s0 = splitmix();
    this.s1 = splitmix();
    if (this.s0 === 0n && this.s1 === 0n) this.s0 = 0x5851f42d4c957f2dn;
  }

  next(): bigint {
    const s0 = this.s0;
    const sx = this.s1 ^ s0;
    const value = u64(rotl(u64(s0 * 5n), 7n) * 9n);
    this.s0 = rotl(s0, 24n) ^ sx ^ u64(sx << 16n);
    this.s1 = rotl(sx, 37n);
    return value;
  }

  /** Uniform in [min, max]: the draw's top bits, as many as the range has, rejected while outside it. */
  range(min: bigint, max: bigint): bigint {
    if (max <= min) return min;
    const span = max - min;
    const shift = 64n - BigInt(span.toString(2).length);
    let v: bigint;
    do v = this.next() >> shift;
    while (v > span);
    return min + v;
  }
}

function rotl(x: bigint, k: bigint): bigint {
  return u64((x << k) | (x >> (64n - k)));
}

/**
 * pgbench's permute(i, size, seed): a pseudorandom bijection of [0, size) keyed by seed. Six rounds
 * of: an odd multiply, XOR and one-bit rotation on the lower power-of-two window [0, mask], the same
 * on the upper window counted from the end, and a random rotation of the whole range.
 */
export function permute(value: bigint, size: bigint, seed: bigint): bigint {
  if (size < 2n) return 0n;
  const prng = new PgPrng(seed);
  let v = u64(value) % size;
  const maskBits = BigInt(size.toString(2).length - 1);
  const mask = (1n << maskBits) - 1n;
  const scramble = (x: bigint, m: bigint, r: bigint): bigint => {
    const y = ((x * m) ^ r) & mask;
    return ((y << 1n) & mask) | (y >> (maskBits - 1n));
  };
  for (let round = 0; round < 6; round++) {
    let m = (prng.next() & mask) | 1n;
    let r = prng.next() & mask;
    if (v <= mask) v = scramble(v, m, r);
    m = (prng.next() & mask) | 1n;
    r = prng.next() & mask;
    const t = size - 1n - v;
    if (t <= mask) v = size - 1n - scramble(t, m, r);
    v = (v + prng.range(0n, size - 1n)) % size;
  }
  return v;
}
