/**
 * The study gives the columns (operator smallint, region smallint) but not their values. headroom
 * makes both a function of the number, each in 1..100, so a load, a resumed load and an extension
 * write the same rows whatever their chunking, and a check can tell an updated row from a loaded one.
 */
export const OPERATORS = 100;
export const REGIONS = 100;

/** A multiplicative hash (Knuth's golden-ratio constant) spreads neighbouring numbers apart. */
function hash(number: number): number {
  return Math.imul(number, 0x9e3779b1) >>> 0;
}

export function loadedOperator(number: number): number {
  return 1 + ((hash(number) >>> 16) % OPERATORS);
}

export function loadedRegion(number: number): number {
  return 1 + ((hash(number) & 0xffff) % REGIONS);
}
