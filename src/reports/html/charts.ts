import type { SeriesPoint } from '../../engine/measurements.js';
import type { LoadedResult } from '../input.js';
import { decodeTypes, percentileCurve, percentileGrid } from '../percentiles.js';

/** One line of a chart; values line up with the chart's x. */
export interface ChartLine {
  label: string;
  color: string;
  dashed?: boolean;
  values: (number | null)[];
}

/**
 * Everything the page's script needs to draw one chart, computed here so that the script in the
 * page stays a thin, untyped shim around the chart library.
 */
export interface ChartSpec {
  id: string;
  title: string;
  /** time: seconds since the clients started; percentile: 1/(1-p) on a log axis; terminals: a sweep's steps; bars: one bar per category, x its index. */
  kind: 'time' | 'percentile' | 'terminals' | 'bars';
  /** bars: the name under each bar. */
  categories?: string[];
  /** A log x axis (terminals: a multiplicative sweep). */
  xLog?: boolean;
  /** Points and lines drawn over the chart: a sweep's knee (a ring at x, y) and refused step (a dashed line at x). */
  marks?: ChartMark[];
  /** The x axis's name where the kind's own does not fit (an experiment's sizes). */
  xLabel?: string;
  yLabel: string;
  yLog: boolean;
  x: number[];
  lines: ChartLine[];
  /** Spans of x drawn shaded, e.g. the warm-up that the results exclude. */
  shaded: { from: number; to: number }[];
}

export interface ChartMark {
  x: number;
  /** null: a vertical line across the chart. */
  y: number | null;
  label: string;
  color: string;
}

export const PALETTE = ['#1f6fd1', '#d9480f', '#2b8a3e', '#862e9c', '#c2255c', '#0b7285', '#e67700', '#495057'];

export function runCharts(run: LoadedResult, index: number): ChartSpec[] {
  const id = `run${index}`;
  const series = run.result.series;
  const x = series.map((p) => roundT(p.t));
  const shaded = warmupSpans([run]);
  const latency = (key: keyof SeriesPoint['latencyMs']): (number | null)[] => series.map((p) => positive(p.latencyMs[key]));
  const charts: ChartSpec[] = [
    {
      id: `${id}-tps`,
      title: 'Throughput (transactions per second)',
      kind: 'time',
      yLabel: 'tps',
      yLog: false,
      x,
      lines: [
        { label: 'tps', color: PALETTE[0]!, values: series.map((p) => p.tps) },
        ...(series.some((p) => p.failed > 0) ? [{ label: 'failed/s', color: PALETTE[1]!, values: series.map((p) => p.failed / p.seconds) }] : []),
      ],
      shaded,
    },
    {
      id: `${id}-latency`,
      title: 'Latency over time (ms, log scale)',
      kind: 'time',
      yLabel: 'ms',
      yLog: true,
      x,
      lines: [
        { label: 'avg', color: PALETTE[2]!, values: latency('avg') },
        { label: 'p50', color: PALETTE[0]!, values: latency('p50') },
        { label: 'p99', color: PALETTE[1]!, values: latency('p99') },
        { label: 'max', color: PALETTE[3]!, dashed: true, values: latency('max') },
        // Under --rate, latency counts from the scheduled start: the lag shows how much of it was waiting.
        ...(series.some((p) => p.lagMs)
          ? [{ label: 'schedule lag avg', color: PALETTE[6]!, dashed: true, values: series.map((p) => positive(p.lagMs?.avg ?? 0)) }]
          : []),
      ],
      shaded,
    },
    {
      id: `${id}-cpu`,
      title: 'Client CPU (% of one core)',
      kind: 'time',
      yLabel: '%',
      yLog: false,
      x,
      lines: [{ label: 'client CPU %', color: PALETTE[5]!, values: series.map((p) => p.clientCpuPercent) }],
      shaded,
    },
  ];
  const types = decodeTypes(run.result);
  const grid = percentileGrid(Math.max(...types.map((t) => t.histogram.totalCount)));
  charts.push({
    id: `${id}-hdr`,
    title: 'Latency by percentile (HDR, ms, log scale)',
    kind: 'percentile',
    yLabel: 'ms',
    yLog: true,
    x: grid,
    lines: types.map((t, i) => ({ label: t.name, color: PALETTE[i % PALETTE.length]!, values: percentileCurve(t.histogram, grid) })),
    shaded: [],
  });
  return charts;
}

/** Several runs on one set of axes: throughput, p50/p99 over time, and their HDR curves. */
export function overlayCharts(runs: readonly LoadedResult[]): ChartSpec[] {
  const x = [...new Set(runs.flatMap((r) => r.result.series.map((p) => roundT(p.t))))].sort((a, b) => a - b);
  const aligned = (run: LoadedResult, pick: (p: SeriesPoint) => number | null): (number | null)[] => {
    const byT = new Map(run.result.series.map((p) => [roundT(p.t), pick(p)]));
    return x.map((t) => byT.get(t) ?? null);
  };
  const color = (i: number): string => PALETTE[i % PALETTE.length]!;
  const alls = runs.map((r) => decodeTypes(r.result)[0]!.histogram);
  const grid = percentileGrid(Math.max(...alls.map((h) => h.totalCount)));
  const shaded = warmupSpans(runs);
  return [
    {
      id: 'compare-tps',
      title: 'Throughput (tps), all runs',
      kind: 'time',
      yLabel: 'tps',
      yLog: false,
      x,
      lines: runs.map((r, i) => ({ label: r.label, color: color(i), values: aligned(r, (p) => p.tps) })),
      shaded,
    },
    {
      id: 'compare-latency',
      title: 'Latency p99 (solid) and p50 (dashed) over time, all runs (ms, log scale)',
      kind: 'time',
      yLabel: 'ms',
      yLog: true,
      x,
      lines: runs.flatMap((r, i) => [
        { label: `${r.label} p99`, color: color(i), values: aligned(r, (p) => positive(p.latencyMs.p99)) },
        { label: `${r.label} p50`, color: color(i), dashed: true, values: aligned(r, (p) => positive(p.latencyMs.p50)) },
      ]),
      shaded,
    },
    {
      id: 'compare-hdr',
      title: 'Latency by percentile (HDR, ms, log scale), all transaction types, all runs',
      kind: 'percentile',
      yLabel: 'ms',
      yLog: true,
      x: grid,
      lines: runs.map((r, i) => ({ label: r.label, color: color(i), values: percentileCurve(alls[i]!, grid) })),
      shaded: [],
    },
  ];
}

/** From the start to the last warm-up point of each run (distinct spans only). */
function warmupSpans(runs: readonly LoadedResult[]): ChartSpec['shaded'] {
  const ends = new Set<number>();
  for (const run of runs) {
    const warm = run.result.series.filter((p) => p.phase === 'warmup');
    if (warm.length > 0) ends.add(roundT(warm[warm.length - 1]!.t));
  }
  return [...ends].map((to) => ({ from: 0, to }));
}

/** A log axis has no place for 0: an interval without transactions is a gap, not a zero. */
function positive(value: number): number | null {
  return value > 0 ? value : null;
}

/** Tick times differ by milliseconds between runs; a tenth of a second lines them up. */
function roundT(t: number): number {
  return Math.round(t * 10) / 10;
}
