import { createHistogram, decodeHistogram, type Histogram } from '../metrics/histogram.js';
import type { RunResult } from '../result/result.js';

/** Grid points per decade of 1/(1-p): fine enough for a smooth curve, small enough to inline. */
const STEPS_PER_DECADE = 20;

/** The x of an HdrHistogram percentile plot: 1/(1-p), so 10 is p90, 100 p99, 1000 p99.9. */
export function percentileGrid(maxCount: number): number[] {
  const decades = Math.log10(Math.max(10, maxCount));
  const steps = Math.ceil(decades * STEPS_PER_DECADE);
  return Array.from({ length: steps + 1 }, (_, k) => round4(10 ** (k / STEPS_PER_DECADE)));
}

/**
 * Latency in milliseconds at each grid point. Past 1/(1-p) = count the histogram holds no more
 * detail: the first such point shows the maximum and the rest are gaps, as HdrHistogram's own
 * plots end at the maximum.
 */
export function percentileCurve(histogram: Histogram, grid: readonly number[]): (number | null)[] {
  const count = histogram.totalCount;
  let ended = count === 0;
  return grid.map((x) => {
    if (ended) return null;
    if (x >= count) {
      ended = true;
      return histogram.maxValue / 1000;
    }
    return histogram.getValueAtPercentile(100 * (1 - 1 / x)) / 1000;
  });
}

/** Each transaction type's histogram decoded, and all of them merged (exactly, as HDR merges). */
export function decodeTypes(result: RunResult): { name: string; histogram: Histogram }[] {
  const types = result.transactions.map((t) => ({ name: t.name, histogram: decodeHistogram(t.histogram) }));
  if (types.length === 1) return types;
  const all = createHistogram();
  for (const t of types) all.add(t.histogram);
  return [{ name: 'all', histogram: all }, ...types];
}

function round4(value: number): number {
  return Number(value.toPrecision(4));
}
