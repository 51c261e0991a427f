import type { ExperimentResult } from '../result/experiment-result.js';
import type { ChainStudyRow } from '../result/experiment-rows.js';
import { settingsLine } from './settings-text.js';
import { table } from './table.js';

/** Above this share of Total time, the terminals' start is said to weigh on the study's figures. */
const START_SHARE = 0.05;

/** The scales suggested instead, as -s takes them: the smallest that gives the units enough time is named. */
const SCALES: readonly [number, string][] = [
  [1 / 1000, '1/1000'],
  [1 / 500, '1/500'],
  [1 / 200, '1/200'],
  [1 / 100, '1/100'],
  [1 / 50, '1/50'],
  [1 / 20, '1/20'],
  [1 / 10, '1/10'],
  [1 / 5, '1/5'],
  [1 / 2, '1/2'],
  [1, '1'],
];

/** The study's per-run table: its Total time line's figures, headroom's tps beside them, and the sampled planning. */
export function chainStudyText(result: ExperimentResult<ChainStudyRow>, file: string | undefined): string {
  const fixed = (v: number | null, digits: number): string => (v === null ? '-' : v.toFixed(digits));
  const header = [
    'statements',
    'run',
    'terminals',
    'units each',
    'Total time ms',
    'ms/tr',
    'tr/sec',
    'tps',
    'maxWait ms',
    'avgWait ms',
    'failed',
    'plan ms/unit',
    'plan % srv CPU',
  ];
  const rows = result.rows.map((r) => [
    r.statements,
    r.run,
    String(r.terminals),
    String(r.unitsPerTerminal),
    fixed(r.totalMs, 0),
    fixed(r.msPerTransaction, 3),
    fixed(r.trPerSec, 1),
    r.tps.toFixed(1),
    r.maxWaitMs.toFixed(1),
    r.avgWaitMs.toFixed(3),
    String(r.failed),
    fixed(r.planningMsPerUnit, 3),
    r.planningShareOfServerCpu === null ? '-' : (r.planningShareOfServerCpu * 100).toFixed(0),
  ]);
  const status = `${result.status}${result.statusReason ? ` (${result.statusReason})` : ''}`;
  const lines = [`chain study on ${result.target.version.split(/ \(| on |,/)[0]} (${result.target.url}), ${status}`, '', ...table([header, ...rows]), ''];
  lines.push(
    "Total time, ms/tr and tr/sec as the study printed them: from before the first connection to the last terminal's end" +
      " (study style: terminals started 10 ms apart, as the study's were); tps: headroom's over the measured period.",
    "plan: the two joins' planning per unit, sampled after each run (see each run's planning.method), and its share of the server processes' CPU per unit.",
  );
  const start = startWarning(result);
  if (start) lines.push(start);
  for (const note of result.notes ?? []) lines.push(`note: ${note}`);
  const set = settingsLine(result.serverSettings);
  if (set) lines.push(set);
  if (!result.target.durable) lines.push(`non-durable settings: ${result.target.durabilityRisks.join(', ')}`);
  if (file !== undefined) lines.push(`result: ${file}`);
  return lines.join('\n');
}

/**
 * The study's Total time counts from before the first connection, and study style starts the
 * terminals 10 ms apart: where a terminal's units take a few milliseconds (a small scale, a
 * localized step of a few units each), that start is most of Total time, and tr/sec falls as the
 * terminals rise for that reason alone. Said when the start is more than a few % of any run's
 * Total time, with the scale at which the units outweigh it (the units grow with the scale, the
 * start does not).
 */
export function startWarning(result: ExperimentResult<ChainStudyRow>): string | undefined {
  const heavy = result.rows.filter(
    (r): r is ChainStudyRow & { startMs: number; totalMs: number } =>
      typeof r.startMs === 'number' && r.totalMs !== null && r.totalMs > 0 && r.startMs / r.totalMs > START_SHARE,
  );
  if (heavy.length === 0) return undefined;
  const worst = heavy.reduce((a, b) => (b.startMs / b.totalMs > a.startMs / a.totalMs ? b : a));
  const scale = result.runs[0]?.config.scale;
  const share = (r: { startMs: number; totalMs: number }): string => `${((r.startMs / r.totalMs) * 100).toFixed(0)}%`;
  const head =
    `warning: the terminals' start (connecting, and in study style the 10 ms stagger between terminals) is more than ${START_SHARE * 100}% of Total time` +
    ` in ${heavy.length} of ${result.rows.length} runs (up to ${share(worst)}: ${worst.statements} ${worst.run}, ${Math.round(worst.startMs)} of ${Math.round(worst.totalMs)} ms):` +
    ' there Total time, ms/tr and tr/sec measure the start more than the units, and tr/sec falls as the terminals rise for that reason alone (tps does not count it)';
  if (scale === undefined) return head;
  // The scale at which each such run's units would take (1 - share) / share times its start.
  const needed = (r: ChainStudyRow & { startMs: number }): number => {
    const unitsMs = r.unitsPerTerminal * r.avgWaitMs;
    return unitsMs > 0 ? (scale * ((1 - START_SHARE) / START_SHARE) * r.startMs) / unitsMs : Infinity;
  };
  const styles = new Set(result.rows.map((r) => r.statements)).size > 1;
  const name = (r: ChainStudyRow): string => (styles ? `${r.statements} ${r.run}` : r.run);
  const fixable = heavy.filter((r) => needed(r) <= 1);
  const beyond = heavy.filter((r) => needed(r) > 1);
  const parts = [head];
  if (fixable.length > 0) {
    const suggested = SCALES.find(([value]) => value >= Math.max(...fixable.map(needed)))!;
    const which = beyond.length === 0 ? 'every run' : fixable.map(name).join(', ');
    parts.push(`at -s ${suggested[1]} or more (this run: ${scale}) the units of ${which} take long enough to outweigh it`);
  }
  if (beyond.length > 0)
    parts.push(
      `in ${beyond.map(name).join(', ')} the start outlasts the units even on the full data (-s 1): read their tps, or run with --statements prepared (no stagger)`,
    );
  return parts.join('; ');
}
