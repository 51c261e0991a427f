import type { ExperimentResult } from '../result/experiment-result.js';
import type { PeakRow } from '../result/experiment-rows.js';
import { settingsLine } from './settings-text.js';
import { table } from './text.js';

/** The study's table: query, clients, peak queries/s; then the mean, latency and the client's own CPU. */
export function peakText(result: ExperimentResult<PeakRow>, file: string | undefined): string {
  const header = ['# query', 'clients', 'peak q/s', 'mean q/s', 'p50 ms', 'p99 ms', 'client CPU %', 'failed'];
  const rows = result.rows.map((r) => [
    `${r.number} ${r.title}`,
    String(r.clients),
    r.peakQps.toFixed(0),
    r.meanQps.toFixed(0),
    r.p50Ms.toFixed(3),
    r.p99Ms.toFixed(3),
    `${r.clientCpuPercent.toFixed(0)}${r.clientBound ? ' *' : ''}`,
    String(r.failed),
  ]);
  const lines = [`peak queries/s on ${result.target.version.split(/ \(| on |,/)[0]} (${result.target.url}), ${result.status}`, '', ...table([header, ...rows])];
  if (result.rows.some((r) => r.clientBound))
    lines.push(
      '',
      '* the client used nearly all the CPU its jobs can (one core per job): it, not the DBMS, may have set the pace; raise -j or run the client on another machine',
    );
  // Embedded SQLite executes inside the client's process: its CPU is counted as the client's.
  if (result.target.embedded) lines.push(`${result.target.embedded} runs inside the client process: client CPU includes the database engine's`);
  const set = settingsLine(result.serverSettings);
  if (set) lines.push(set);
  if (!result.target.durable) lines.push(`non-durable settings: ${result.target.durabilityRisks.join(', ')}`);
  lines.push(`peak: the best 1-second window; mean: over the whole measured time.${file === undefined ? '' : ` result: ${file}`}`);
  return lines.join('\n');
}
