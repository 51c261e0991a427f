import { comparedMetrics, compareRuns, describeRun, formatDifference, formatRatio, formatValue, unlikeRuns } from './comparison.js';
import type { LoadedResult } from './input.js';
import { settingsLine } from './settings-text.js';
import { statementDifferenceLines } from './statement-difference.js';
import { table } from './table.js';
import { moduleComparisonLines } from './module-text.js';
import { agentsComparisonLines } from './agents-text.js';

/** The server settings whose values differ between the runs: what --set (or an administrator) changed. */
function settingDifferences(runs: readonly LoadedResult[]): string[] {
  const names = [...new Set(runs.flatMap((r) => Object.keys(r.result.target.settings)))];
  const differing = names.filter((name) => new Set(runs.map((r) => r.result.target.settings[name] ?? '-')).size > 1);
  if (differing.length === 0) return [];
  return [
    'settings that differ:',
    ...differing.map((name) => `  ${name}: ${runs.map((r, i) => `${i + 1}: ${r.result.target.settings[name] ?? '-'}`).join(', ')}`),
  ];
}

/** `headroom compare` in the terminal: each metric, with difference and ratio to the first run. */
export function compareText(runs: readonly LoadedResult[]): string {
  const metrics = comparedMetrics(runs);
  const cells = compareRuns(runs, metrics);
  const header = ['run', ...metrics.flatMap((m) => [`${m.name}${m.unit ? ` ${m.unit}` : ''}`, 'diff', 'ratio'])];
  const rows = runs.map((_, i) => [
    `${i + 1}`,
    ...metrics.flatMap((m, j) => {
      const cell = cells[i]![j]!;
      return [formatValue(m, cell.value), formatDifference(m, cell.difference), formatRatio(cell.ratio)];
    }),
  ]);
  const legend = runs.map((run, i) => {
    const set = settingsLine(run.result.config.serverSettings);
    return `${i + 1}: ${run.label}: ${describeRun(run)}${set ? `, ${set}` : ''}${run.result.target.durable ? '' : ', non-durable'}`;
  });
  return [
    ...legend,
    ...moduleComparisonLines(runs),
    ...agentsComparisonLines(runs),
    ...settingDifferences(runs),
    ...statementDifferenceLines(runs),
    '',
    ...unlikeRuns(runs),
    ...table([header, ...rows]),
    '',
    `diff and ratio are against run 1; lower is better except ${metrics
      .filter((m) => m.higherIsBetter)
      .map((m) => m.name)
      .join(', ')}.`,
  ].join('\n');
}
