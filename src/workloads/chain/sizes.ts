import { UserError } from '../../errors.js';

/** Row counts at full scale (chain-model.md, "Schema"): 100 countries, x50 per level, 3 client batches. */
export const FULL = { countries: 100, cities: 5_000, streets: 250_000, addresses: 12_500_000, clientsPerBatch: 3_333_333 } as const;

export const CLIENT_BATCHES = 3;

export type ChainSizes = { [K in keyof typeof FULL]: number };

/**
 * Scale is the fraction of the full size, the same for every table. Each table keeps at least 2
 * rows: nextRef(n) draws 1..n-1, so a parent table of one row could never be referenced.
 */
export function chainSizes(scale: number): ChainSizes {
  const sized = (full: number): number => Math.max(2, Math.round(full * scale));
  return {
    countries: sized(FULL.countries),
    cities: sized(FULL.cities),
    streets: sized(FULL.streets),
    addresses: sized(FULL.addresses),
    clientsPerBatch: sized(FULL.clientsPerBatch),
  };
}

/** `full`, a fraction such as `1/1000`, or a decimal such as `0.001`, of the full size (at most 1). */
export function parseChainScale(text: string): number {
  const hint = 'chain scale is full, a fraction such as 1/1000, or a decimal such as 0.001 (of 12.5 M addresses)';
  const trimmed = text.trim();
  let value: number;
  if (trimmed === 'full') value = 1;
  else {
    const fraction = /^(\d+)\/(\d+)$/.exec(trimmed);
    value = fraction ? Number(fraction[1]) / Number(fraction[2]) : /^\d*\.?\d+(e-?\d+)?$/i.test(trimmed) ? Number(trimmed) : NaN;
  }
  if (!Number.isFinite(value) || value <= 0) throw new UserError(`--scale "${text}" is not a chain scale`, hint);
  if (value > 1) throw new UserError(`--scale "${text}" is more than the full size`, hint);
  return value;
}
