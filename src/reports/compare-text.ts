import { METRICS, compareRuns, describeRun, formatDifference, formatRatio, formatValue } from './comparison.js';
import type { LoadedResult } from './input.js';
import { table } from './text.js';

/** `headroom compare` in the terminal: each metric, with difference and ratio to the first run. */
export function compareText(runs: readonly LoadedResult[]): string {
  const cells = compareRuns(runs);
  const header = ['run', ...METRICS.flatMap((m) => [`${m.name}${m.unit ? ` ${m.unit}` : ''}`, 'diff', 'ratio'])];
  const rows = runs.map((_, i) => [
    `${i + 1}`,
    ...METRICS.flatMap((m, j) => {
      const cell = cells[i]![j]!;
      return [formatValue(m, cell.value), formatDifference(m, cell.difference), formatRatio(cell.ratio)];
    }),
  ]);
  const legend = runs.map((run, i) => `${i + 1}: ${run.label}: ${describeRun(run)}`);
  return [...legend, '', ...table([header, ...rows]), '', 'diff and ratio are against run 1; lower is better except tps.'].join('\n');
}
