import type { ExperimentResult, TableSizes } from '../experiments/experiment.js';

const HEAD = ['step', 'tps', 'p50 ms', 'p99 ms', 'failed', 'vs 1st read', 'table MB', 'index MB', 'total MB', 'database MB', 'live rows', 'dead rows'];

/**
 * The experiment as one table, a line per step with the sizes after it (the first line: before
 * any step), so each size sits next to the one before it. Read runs are compared with the first.
 */
export function experimentText(result: ExperimentResult, file: string): string {
  const firstRead = result.steps.find((s) => s.result?.config.workloadOptions['test'] === 'read')?.result?.summary.tps;
  const rows: string[][] = [];
  const first = result.steps[0];
  if (first) rows.push(['before', '', '', '', '', '', ...sizeCells(first.sizesBefore)]);
  for (const step of result.steps) {
    const run = step.result;
    if (!run) {
      rows.push([`${step.name} (${step.seconds.toFixed(2)} s)`, '', '', '', '', '', ...sizeCells(step.sizesAfter)]);
      continue;
    }
    const isRead = run.config.workloadOptions['test'] === 'read';
    const ratio = isRead && firstRead ? `${(run.summary.tps / firstRead).toFixed(2)}x` : '';
    const lat = run.summary.latencyMs;
    rows.push([step.name, run.summary.tps.toFixed(0), lat.p50.toFixed(3), lat.p99.toFixed(3), String(run.summary.failed), ratio, ...sizeCells(step.sizesAfter)]);
  }
  const widths = HEAD.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  const c = result.config;
  return [
    `${result.experiment} on ${result.target.url} (${result.target.version.split(/ on | \(|,/)[0]}): ${c.rows.toLocaleString('en-US')} rows in ${c.table}, ${c.clients} client(s), ${c.durationSeconds} s per run`,
    line(HEAD),
    ...rows.map(line),
    ...result.notes.map((note) => `note: ${note}`),
    ...(result.status === 'completed' ? [] : [`status: ${result.status}${result.statusReason ? ` (${result.statusReason})` : ''}`]),
    `result: ${file}`,
  ].join('\n');
}

function sizeCells(s: TableSizes): string[] {
  const mb = (bytes: number | null): string => (bytes === null ? '-' : (bytes / 1048576).toFixed(2));
  const count = (n: number | null): string => (n === null ? '-' : n.toLocaleString('en-US'));
  return [mb(s.tableBytes), mb(s.indexBytes), mb(s.totalBytes), mb(s.databaseBytes), count(s.liveRows), count(s.deadRows)];
}
