import type { Random } from '../../common/random.js';

/**
 * The TPC-C random value rules (clause 2.1.4 to 2.1.6, 4.3.2): NURand, customer last names from
 * syllables, a-strings and n-strings, zip codes, and the run-time constant C and its delta rule.
 */

/** Clause 2.1.6: NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x. */
export function nurand(random: Random, a: number, x: number, y: number, c: number): number {
  return (((random.int(0, a) | random.int(x, y)) + c) % (y - x + 1)) + x;
}

/** The A of NURand for each field it draws (2.1.6). */
export const NURAND_A = { lastName: 255, customerId: 1023, itemId: 8191 } as const;

/** Clause 4.3.2.3: the ten syllables a last name is built from. */
const SYLLABLES = ['BAR', 'OUGHT', 'ABLE', 'PRI', 'PRES', 'ESE', 'ANTI', 'CALLY', 'ATION', 'EING'] as const;

/** The last name of number n in [0, 999]: its three digits pick three syllables. */
export function lastName(n: number): string {
  return SYLLABLES[Math.floor(n / 100)]! + SYLLABLES[Math.floor(n / 10) % 10]! + SYLLABLES[n % 10]!;
}

/** The C constants of one database: C_LOAD for last names at load, C_RUN for last names at run time, and C for ids. */
export interface NurandConstants {
  lastNameLoad: number;
  lastNameRun: number;
  customerId: number;
  itemId: number;
}

/** Clause 2.1.6.1: C_RUN differs from C_LOAD by a delta in [65, 119], but not 96 or 112. */
export function validRunDelta(load: number, run: number): boolean {
  const delta = Math.abs(run - load);
  return delta >= 65 && delta <= 119 && delta !== 96 && delta !== 112;
}

export function drawConstants(random: Random): NurandConstants {
  const lastNameLoad = random.int(0, NURAND_A.lastName);
  let lastNameRun: number;
  do lastNameRun = random.int(0, NURAND_A.lastName);
  while (!validRunDelta(lastNameLoad, lastNameRun));
  return { lastNameLoad, lastNameRun, customerId: random.int(0, NURAND_A.customerId), itemId: random.int(0, NURAND_A.itemId) };
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/**
 * a-strings are cut from one pool of random characters at random offsets: the values are as
 * random as the spec asks (random characters, random length) at a fraction of the cost of
 * drawing every character, which is what makes the load fast.
 */
const POOL_LENGTH = 1 << 16;
let pool: string | undefined;

function charPool(): string {
  if (pool === undefined) {
    let text = '';
    // A fixed pool: loads are reproducible from their seed.
    let s = 0x2545f491;
    for (let i = 0; i < POOL_LENGTH + 600; i++) {
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
      text += ALPHANUMERIC[(s >>> 0) % ALPHANUMERIC.length];
    }
    pool = text;
  }
  return pool;
}

/** Clause 4.3.2.2: a random a-string of length [min, max]. */
export function aString(random: Random, min: number, max: number): string {
  const length = random.int(min, max);
  const start = random.int(0, POOL_LENGTH - 1);
  return charPool().slice(start, start + length);
}

/** A random n-string (digits only) of length n. */
export function nString(random: Random, length: number): string {
  let text = '';
  for (let i = 0; i < length; i++) text += String(random.int(0, 9));
  return text;
}

/** Clause 4.3.2.7: four random digits followed by "11111". */
export function zip(random: Random): string {
  return `${nString(random, 4)}11111`;
}

/** Clause 4.3.3.1: I_DATA and S_DATA hold "ORIGINAL" at a random place in 10% of rows. */
export function dataWithOriginal(random: Random): string {
  const data = aString(random, 26, 50);
  if (random.int(1, 10) !== 1) return data;
  const at = random.int(0, data.length - 8);
  return data.slice(0, at) + 'ORIGINAL' + data.slice(at + 8);
}

/** A two-letter state (an a-string of length 2, letters only in practice). */
export function state(random: Random): string {
  return ALPHANUMERIC[random.int(0, 25)]! + ALPHANUMERIC[random.int(0, 25)]!;
}
