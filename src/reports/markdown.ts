import { METRICS, compareRuns, dbmsLabel, formatRatio, formatValue } from './comparison.js';
import type { LoadedResult } from './input.js';

/** A summary table to paste into an issue: one row per run, ratios to the first when several. */
export function markdownSummary(runs: readonly LoadedResult[]): string {
  const cells = compareRuns(runs);
  const several = runs.length > 1;
  const header = ['run', 'workload', 'DBMS', 'clients', 'seconds', 'status', ...METRICS.map((m) => `${m.name}${m.unit ? ` ${m.unit}` : ''}`)];
  const rows = runs.map((run, i) => {
    const r = run.result;
    return [
      code(run.label),
      r.config.workload,
      dbmsLabel(run),
      String(r.config.clients),
      r.summary.measuredSeconds.toFixed(1),
      r.status,
      ...METRICS.map((m, j) => {
        const cell = cells[i]![j]!;
        const ratio = several && cell.ratio !== null ? ` (${formatRatio(cell.ratio)})` : '';
        return `${formatValue(m, cell.value)}${ratio}`;
      }),
    ];
  });
  const right = (i: number): boolean => i === 3 || i === 4 || i >= 6;
  const lines = [row(header), row(header.map((_, i) => (right(i) ? '---:' : '---'))), ...rows.map(row)];
  if (several) lines.push('', `Ratios (xN) are each run's figure over the first run's (${runs[0]!.label}).`);
  // The workload's own headline figures (tpcc: NOPM, TPM) and its checks after the run, where it has them.
  for (const run of runs) {
    const metrics = (run.result.summary.workloadMetrics ?? []).map((m) => `${m.name} ${m.value.toFixed(1)}`);
    const failed = (run.result.checks ?? []).filter((c) => !c.ok).map((c) => c.name);
    const checks = run.result.checks ? [failed.length === 0 ? `checks: all ${run.result.checks.length} ok` : `checks FAILED: ${failed.join(', ')}`] : [];
    if (metrics.length + checks.length > 0) lines.push('', `${code(run.label)}: ${[...metrics, ...checks].join('; ')}`);
  }
  const hosts = [...new Set(runs.map((r) => `${r.result.host.cpuModel}, ${r.result.host.cores} cores, ${r.result.host.os}`))];
  lines.push('', `Client machine${hosts.length > 1 ? 's' : ''}: ${hosts.join('; ')}. Latencies in ms; CPU/txn is the client's CPU per transaction.`);
  return `${lines.join('\n')}\n`;
}

function row(cells: readonly string[]): string {
  return `| ${cells.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
}

function code(text: string): string {
  return `\`${text.replace(/`/g, "'")}\``;
}
