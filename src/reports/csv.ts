import type { LoadedResult } from './input.js';

const HEADER = [
  'run',
  't',
  'phase',
  'seconds',
  'transactions',
  'tps',
  'failed',
  'retried',
  'latency_avg_ms',
  'latency_stddev_ms',
  'latency_p50_ms',
  'latency_p99_ms',
  'latency_max_ms',
  'lag_avg_ms',
  'lag_max_ms',
  'client_cpu_percent',
  'event_loop_delay_p99_ms',
  'event_loop_delay_max_ms',
];

/** The per-second series of every run, one row a second, for spreadsheets and plotting tools. */
export function seriesCsv(runs: readonly LoadedResult[]): string {
  const rows = runs.flatMap((run) =>
    run.result.series.map((p) => [
      run.label,
      p.t,
      p.phase,
      p.seconds,
      p.transactions,
      p.tps,
      p.failed,
      p.retried,
      p.latencyMs.avg,
      p.latencyMs.stddev,
      p.latencyMs.p50,
      p.latencyMs.p99,
      p.latencyMs.max,
      p.lagMs?.avg ?? '',
      p.lagMs?.max ?? '',
      p.clientCpuPercent,
      p.eventLoopDelayMs?.p99 ?? '',
      p.eventLoopDelayMs?.max ?? '',
    ]),
  );
  return [HEADER, ...rows].map((row) => row.map((cell) => csvCell(String(cell))).join(',')).join('\r\n') + '\r\n';
}

/** RFC 4180: quote a cell holding a comma, quote or line break; double the quotes inside. */
export function csvCell(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
