import { csvCell } from './csv.js';
import { dbmsLabel } from './comparison.js';
import type { LoadedSweep } from './input.js';
import { kneeLine, refusalLine, sweepHeader, sweepRows } from './sweep-table.js';
import { table } from './table.js';

/** "tpcb on PostgreSQL 15.20, 5 s per step, completed" */
export function describeSweep(loaded: LoadedSweep): string {
  const { sweep } = loaded;
  const first = sweep.steps[0];
  if (!first) return `no step ran, ${sweep.status}`;
  const c = first.config;
  return `${c.workload} on ${dbmsLabel({ file: loaded.file, label: loaded.label, result: first })}, ${c.durationSeconds !== null ? `${c.durationSeconds} s` : `${c.transactionsPerClient} transactions per client`} per step, ${sweep.status}`;
}

/** Each sweep's table in Markdown, with its knee and refusal lines. */
export function sweepMarkdown(sweeps: readonly LoadedSweep[]): string {
  const row = (cells: readonly string[]): string => `| ${cells.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
  return sweeps
    .map((loaded) => {
      const refused = refusalLine(loaded.sweep);
      const header = sweepHeader(loaded.sweep);
      return [
        `**\`${loaded.label.replace(/`/g, "'")}\`**: terminal sweep, ${describeSweep(loaded)}`,
        '',
        row(header),
        row(header.map((_, i) => (i < header.length - 1 ? '---:' : '---'))),
        ...sweepRows(loaded.sweep).map(row),
        '',
        `${kneeLine(loaded.sweep)}${refused ? `; ${refused}` : ''}.`,
        '',
      ].join('\n');
    })
    .join('\n');
}

const CSV_HEADER = [
  'sweep',
  'terminals',
  'accepted',
  'status',
  'tps',
  'latency_p50_ms',
  'latency_p99_ms',
  'latency_max_ms',
  'failed',
  'client_cpu_us_per_txn',
  'knee',
  'refused',
  'schedule_lag_p99_ms',
];

/** One row per step of every sweep, and one for each refused step, with the figures unrounded. */
export function sweepCsv(sweeps: readonly LoadedSweep[]): string {
  const rows = sweeps.flatMap(({ label, sweep }) => [
    ...sweep.steps.map((step) => {
      const s = step.summary;
      const clients = step.config.clients;
      return [
        label,
        clients,
        s.connections.accepted,
        step.status,
        s.tps,
        s.latencyMs.p50,
        s.latencyMs.p99,
        s.latencyMs.max,
        s.failed,
        s.clientCpu.usPerTransaction ?? '',
        clients === sweep.knee,
        clients === sweep.refusedAt,
        // Last, so that the columns before it stay where they were; empty where the step was not paced.
        s.scheduleLagMs?.p99 ?? '',
      ];
    }),
    ...(sweep.refusedAt !== null && !sweep.steps.some((s) => s.config.clients === sweep.refusedAt)
      ? [[label, sweep.refusedAt, '', 'refused', '', '', '', '', '', '', false, true, '']]
      : []),
  ]);
  return [CSV_HEADER, ...rows].map((row) => row.map((cell) => csvCell(String(cell))).join(',')).join('\r\n') + '\r\n';
}

/** Sweeps side by side in the terminal: per count of terminals, each sweep's tps (with its ratio to the first sweep's) and p99. */
export function sweepCompareText(sweeps: readonly LoadedSweep[]): string {
  const terminals = [
    ...new Set(sweeps.flatMap(({ sweep }) => [...sweep.steps.map((step) => step.config.clients), ...(sweep.refusedAt === null ? [] : [sweep.refusedAt])])),
  ].sort((a, b) => a - b);
  const at = (loaded: LoadedSweep, clients: number) => loaded.sweep.steps.find((s) => s.config.clients === clients);
  const header = ['terminals', ...sweeps.flatMap((_, i) => [`${i + 1}: tps`, 'ratio', `${i + 1}: p99 ms`])];
  const rows = terminals.map((clients) => [
    String(clients),
    ...sweeps.flatMap((loaded) => {
      const step = at(loaded, clients);
      const base = at(sweeps[0]!, clients);
      if (!step) return [clients === loaded.sweep.refusedAt ? 'refused' : '-', '', '-'];
      const ratio = base && base !== step && base.summary.tps > 0 ? `x${(step.summary.tps / base.summary.tps).toFixed(2)}` : '';
      return [step.summary.tps.toFixed(1), ratio, step.summary.latencyMs.p99.toFixed(3)];
    }),
  ]);
  const legend = sweeps.map((s, i) => {
    const refused = refusalLine(s.sweep);
    return `${i + 1}: ${s.label}: terminal sweep, ${describeSweep(s)}; ${kneeLine(s.sweep).replace(/ \(rule:.*\)$/, '')}${refused ? `; ${refused}` : ''}`;
  });
  return [...legend, '', ...table([header, ...rows]), '', 'ratio is tps against sweep 1 at the same number of terminals.'].join('\n');
}
