import type { ExperimentResult } from '../result/experiment-result.js';
import type { DeadRowsRow, TableSizes } from '../result/experiment-rows.js';
import { TABLE } from '../workloads/kv/schema.js';
import { settingsLine } from './settings-text.js';

const HEAD = ['step', 'tps', 'p50 ms', 'p99 ms', 'failed', 'vs 1st read', 'table MB', 'index MB', 'total MB', 'database MB', 'live rows', 'dead rows'];

/**
 * The dead-rows experiment as one table, a line per step with the sizes after it (the first line:
 * before any step), so each size sits next to the one before it. Read runs are compared with the first.
 */
export function deadRowsText(result: ExperimentResult<DeadRowsRow>, file: string | undefined): string {
  const firstRead = result.rows.find((r) => r.kind === 'run' && r.test === 'read');
  const lines: string[][] = [];
  const first = result.rows[0];
  if (first) lines.push(['before', '', '', '', '', '', ...sizeCells(first.sizesBefore)]);
  for (const row of result.rows) {
    if (row.kind === 'maintenance') {
      lines.push([`${row.name} (${row.seconds.toFixed(2)} s)`, '', '', '', '', '', ...sizeCells(row.sizesAfter)]);
      continue;
    }
    const base = firstRead?.kind === 'run' ? firstRead.tps : 0;
    const ratio = row.test === 'read' && base > 0 ? `${(row.tps / base).toFixed(2)}x` : '';
    lines.push([row.name, row.tps.toFixed(0), row.p50Ms.toFixed(3), row.p99Ms.toFixed(3), String(row.failed), ratio, ...sizeCells(row.sizesAfter)]);
  }
  const widths = HEAD.map((h, i) => Math.max(h.length, ...lines.map((r) => r[i]!.length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  const c = result.runs[0]?.config;
  const set = settingsLine(result.serverSettings);
  return [
    `${result.experiment} on ${result.target.url} (${result.target.version.split(/ on | \(|,/)[0]})${c ? `: ${c.scale.toLocaleString('en-US')} rows in ${TABLE}, ${c.clients} client(s), ${c.durationSeconds} s per run` : ''}`,
    line(HEAD),
    ...lines.map(line),
    ...(result.notes ?? []).map((note) => `note: ${note}`),
    ...(set ? [set] : []),
    ...(result.target.durable ? [] : [`non-durable settings: ${result.target.durabilityRisks.join(', ')}`]),
    ...(result.status === 'completed' ? [] : [`status: ${result.status}${result.statusReason ? ` (${result.statusReason})` : ''}`]),
    ...(file === undefined ? [] : [`result: ${file}`]),
  ].join('\n');
}

function sizeCells(s: TableSizes): string[] {
  const mb = (bytes: number | null): string => (bytes === null ? '-' : (bytes / 1048576).toFixed(2));
  const count = (n: number | null): string => (n === null ? '-' : n.toLocaleString('en-US'));
  return [mb(s.tableBytes), mb(s.indexBytes), mb(s.totalBytes), mb(s.databaseBytes), count(s.liveRows), count(s.deadRows)];
}
