import type { ExperimentResult } from '../result/experiment-result.js';
import type { GrowthRow } from '../result/experiment-rows.js';
import { settingsLine } from './settings-text.js';
import { table } from './text.js';

const MB = 1048576;

/** The study's table: size, load speed, throughput; the first size above RAM is marked. */
export function growthText(result: ExperimentResult<GrowthRow>, file: string | undefined): string {
  const mb = (bytes: number | null): string => (bytes === null ? '-' : (bytes / MB).toFixed(1));
  const header = ['step', 'scale', 'size MB', 'load s', 'load MB/s', 'tps', 'vs step 1', 'p50 ms', 'p99 ms', 'failed', 'client CPU %'];
  const first = result.rows[0]?.tps;
  const rows = result.rows.map((r) => [
    String(r.step),
    String(r.scale),
    `${mb(r.tablesBytes ?? r.databaseBytes)}${r.tablesBytes == null ? ' (db)' : ''}${r.largerThanRam ? ' >RAM' : ''}`,
    r.loadSeconds.toFixed(1),
    r.loadMBps === null ? '-' : r.loadMBps.toFixed(1),
    r.tps.toFixed(1),
    first ? `x${(r.tps / first).toFixed(2)}` : '',
    r.p50Ms.toFixed(3),
    r.p99Ms.toFixed(3),
    String(r.failed),
    r.clientCpuPercent.toFixed(0),
  ]);
  const workload = result.runs[0]?.config.workload ?? '?';
  const ram = result.host.serverOnThisMachine
    ? `this machine's RAM: ${(result.host.memTotalBytes / MB).toFixed(0)} MB${result.rows.some((r) => r.largerThanRam) ? ' (>RAM: a database larger than that)' : ', no size above it'}`
    : `the server runs on another machine: its RAM is not known here, so no size is marked against it`;
  const lines = [
    `growth of ${workload} on ${result.target.version.split(/ \(| on |,/)[0]} (${result.target.url}), ${result.status}; ${ram}`,
    '',
    ...table([header, ...rows]),
  ];
  const set = settingsLine(result.serverSettings);
  if (set) lines.push(set);
  if (!result.target.durable) lines.push(`non-durable settings: ${result.target.durabilityRisks.join(', ')}`);
  lines.push(
    `size: the ${workload} tables with their indexes after the load, as the DBMS counts them ((db): the whole database, where the DBMS gives no per-table sizes); load MB/s: that size over the load's time.${file === undefined ? '' : ` result: ${file}`}`,
  );
  return lines.join('\n');
}
