import { UserError } from '../../errors.js';

/** The study's largest table (docs/experiments.md section 3): one billion rows. */
export const MAX_ROWS = 1_000_000_000;

const SUFFIXES: Record<string, number> = { '': 1, k: 1e3, m: 1e6, g: 1e9, b: 1e9 };

/**
 * -s for kv is a row count: `1000000000`, `1e9`, `10M`, `2.5k`, `1G` (k = thousand, M = million,
 * G or B = billion; case does not matter). A whole number of rows from 1 to MAX_ROWS.
 */
export function parseRows(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?(?:e\d+)?)\s*([kmgb]?)\s*$/i.exec(text.replace(/[_,]/g, ''));
  const rows = match ? Number(match[1]) * SUFFIXES[match[2]!.toLowerCase()]! : NaN;
  if (!Number.isInteger(rows) || rows < 1 || rows > MAX_ROWS) {
    throw new UserError(`--scale for kv is a row count from 1 to 1,000,000,000 such as 10M, 1000000000 or 1e9, not "${text}"`, 'see: headroom list');
  }
  return rows;
}
