import * as hdr from 'hdr-histogram-js';
import type { Histogram } from 'hdr-histogram-js';

export type { Histogram };

/**
 * Latencies are recorded in microseconds into HDR histograms with 3 significant digits:
 * 0.1% precision from 1 us up to hours, constant memory, mergeable across jobs.
 */
export function createHistogram(): Histogram {
  return hdr.build({ bitBucketSize: 32, numberOfSignificantValueDigits: 3, lowestDiscernibleValue: 1, autoResize: true, useWebAssembly: false });
}

/** Compressed base64, the encoding HdrHistogram's own log format uses: portable across languages. */
export function encodeHistogram(histogram: Histogram): string {
  return hdr.encodeIntoCompressedBase64(histogram);
}

export function decodeHistogram(encoded: string): Histogram {
  const decoded = hdr.decodeFromCompressedBase64(encoded, 32, false);
  // Decoded histograms come back with a fixed range; adding values later must not throw.
  const histogram = createHistogram();
  histogram.add(decoded);
  return histogram;
}

export interface LatencySummaryMs {
  avg: number;
  stddev: number;
  p50: number;
  p95: number;
  p99: number;
  p99_9: number;
  max: number;
}

export function summarize(histogram: Histogram): LatencySummaryMs {
  const ms = (us: number): number => Math.round(us) / 1000;
  if (histogram.totalCount === 0) return { avg: 0, stddev: 0, p50: 0, p95: 0, p99: 0, p99_9: 0, max: 0 };
  return {
    avg: ms(histogram.mean),
    stddev: ms(histogram.stdDeviation),
    p50: ms(histogram.getValueAtPercentile(50)),
    p95: ms(histogram.getValueAtPercentile(95)),
    p99: ms(histogram.getValueAtPercentile(99)),
    p99_9: ms(histogram.getValueAtPercentile(99.9)),
    max: ms(histogram.maxValue),
  };
}
