import type { ChainStudyRow, DeadRowsRow, GrowthRow, PeakRow } from '../../result/experiment-rows.js';
import { experimentText } from '../experiment-report.js';
import { chainStudyStepNames, type LoadedExperiment } from '../input.js';
import { PALETTE, type ChartSpec } from './charts.js';
import { escapeHtml as e } from './markup.js';

const MB = 1048576;

/**
 * The experiment's own chart: peak q/s per query; growth's tps against the data's size;
 * dead-rows' tps per run step; chain-study's tr/sec (the study's) with headroom's tps per run. Not ratios between steps, which measure different things.
 */
export function experimentCharts(loaded: LoadedExperiment, index: number): ChartSpec[] {
  const id = `experiment${index}`;
  const { experiment } = loaded;
  const bars = (title: string, yLabel: string, categories: string[], values: number[]): ChartSpec => ({
    id,
    title,
    kind: 'bars',
    categories,
    yLabel,
    yLog: false,
    x: categories.map((_, i) => i),
    lines: [{ label: yLabel, color: PALETTE[0]!, values }],
    shaded: [],
  });
  if (experiment.experiment === 'peak') {
    const rows = experiment.rows as unknown as PeakRow[];
    return [
      bars(
        'Peak queries per second, per query',
        'peak q/s',
        rows.map((r) => `${r.number} ${r.query}`),
        rows.map((r) => r.peakQps),
      ),
    ];
  }
  if (experiment.experiment === 'growth') {
    const rows = experiment.rows as unknown as GrowthRow[];
    const sizes = rows.map((r) => r.tablesBytes ?? r.databaseBytes);
    if (sizes.some((s) => s === null))
      return [
        bars(
          'Throughput per scale',
          'tps',
          rows.map((r) => `scale ${r.scale}`),
          rows.map((r) => r.tps),
        ),
      ];
    const points = rows.map((r, i) => ({ mb: Math.round((sizes[i]! / MB) * 10) / 10, tps: r.tps })).sort((a, b) => a.mb - b.mb);
    return [
      {
        id,
        title: 'Throughput against the data size',
        kind: 'terminals',
        xLabel: 'size (MB)',
        yLabel: 'tps',
        yLog: false,
        x: points.map((p) => p.mb),
        lines: [{ label: 'tps', color: PALETTE[0]!, values: points.map((p) => p.tps) }],
        shaded: [],
      },
    ];
  }
  if (experiment.experiment === 'dead-rows') {
    const rows = (experiment.rows as unknown as DeadRowsRow[]).filter((r) => r.kind === 'run');
    return [
      bars(
        'Throughput per step',
        'tps',
        rows.map((r) => r.name),
        rows.map((r) => ('tps' in r ? Number(r.tps) : 0)),
      ),
    ];
  }
  if (experiment.experiment === 'chain-study') {
    const rows = experiment.rows as unknown as ChainStudyRow[];
    const chart = bars(
      "The study's tr/sec and headroom's tps, per run",
      'tr/sec',
      chainStudyStepNames(rows),
      rows.map((r) => r.trPerSec ?? 0),
    );
    return [{ ...chart, yLabel: 'tr/sec, tps', lines: [...chart.lines, { label: 'tps', color: PALETTE[1]!, values: rows.map((r) => r.tps) }] }];
  }
  return [];
}

/** The experiment as `headroom experiment` printed it, and its chart. */
export function experimentSection(loaded: LoadedExperiment, charts: readonly ChartSpec[]): string {
  return [
    `<section class="experiment" id="experiment-${e(loaded.label)}">`,
    `<h2>Experiment ${e(loaded.experiment.experiment)}: ${e(loaded.label)}</h2>`,
    `<div class="charts">${charts.map((c) => `<div class="chart" id="${e(c.id)}"></div>`).join('')}</div>`,
    `<pre class="experiment-table">${e(experimentText(loaded))}</pre>`,
    '</section>',
  ].join('\n');
}
