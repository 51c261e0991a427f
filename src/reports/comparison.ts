import { metricKind } from './workload-metrics.js';
import type { LoadedResult } from './input.js';
import { schedulingText } from '../engine/scheduling.js';

/** A figure the comparison shows for every run, and which way is better. */
export interface Metric {
  name: string;
  unit: string;
  digits: number;
  higherIsBetter: boolean;
  value(run: LoadedResult): number | null;
}

export const METRICS: readonly Metric[] = [
  { name: 'tps', unit: '', digits: 1, higherIsBetter: true, value: (r) => r.result.summary.tps },
  { name: 'p50', unit: 'ms', digits: 3, higherIsBetter: false, value: (r) => r.result.summary.latencyMs.p50 },
  { name: 'p99', unit: 'ms', digits: 3, higherIsBetter: false, value: (r) => r.result.summary.latencyMs.p99 },
  { name: 'failed', unit: '', digits: 0, higherIsBetter: false, value: (r) => r.result.summary.failed },
  { name: 'CPU/txn', unit: 'us', digits: 1, higherIsBetter: false, value: (r) => r.result.summary.clientCpu.usPerTransaction },
];

/**
 * Under -R, whether the client kept the schedule: the tail of the lag between a transaction's
 * scheduled start and its start, which its latency holds too.
 */
const LAG_P99: Metric = { name: 'lag p99', unit: 'ms', digits: 3, higherIsBetter: false, value: (r) => r.result.summary.scheduleLagMs?.p99 ?? null };

/**
 * The figures compared for these runs: METRICS, the schedule lag's p99 where any run was paced
 * (-R), then each rate a workload gives of its own (tpcc's NOPM and TPM, HammerDB's first figures)
 * that any of the runs has; '-' for a run without it.
 */
export function comparedMetrics(runs: readonly LoadedResult[]): Metric[] {
  const names = [...new Set(runs.flatMap((r) => (r.result.summary.workloadMetrics ?? []).filter((m) => metricKind(m) === 'rate').map((m) => m.name)))];
  return [
    ...METRICS,
    ...(runs.some((r) => LAG_P99.value(r) !== null) ? [LAG_P99] : []),
    ...names.map((name): Metric => ({
      name,
      unit: '',
      digits: 1,
      higherIsBetter: true,
      value: (r) => r.result.summary.workloadMetrics?.find((m) => m.name === name)?.value ?? null,
    })),
  ];
}

export interface Cell {
  value: number | null;
  /** This run's value over the first run's; null for the first run or when either is missing or 0. */
  ratio: number | null;
  difference: number | null;
}

/** Each run's value of each metric (comparedMetrics unless given), with its ratio to and difference from the first run. */
export function compareRuns(runs: readonly LoadedResult[], metrics: readonly Metric[] = comparedMetrics(runs)): Cell[][] {
  const first = runs[0];
  return runs.map((run, i) =>
    metrics.map((m) => {
      const value = m.value(run);
      const base = first === undefined ? null : m.value(first);
      const comparable = i > 0 && value !== null && base !== null;
      return { value, ratio: comparable && base !== 0 ? value / base : null, difference: comparable ? value - base : null };
    }),
  );
}

export function formatValue(metric: Metric, value: number | null): string {
  return value === null ? '-' : value.toFixed(metric.digits);
}

export function formatRatio(ratio: number | null): string {
  return ratio === null ? '' : `x${ratio.toFixed(2)}`;
}

export function formatDifference(metric: Metric, difference: number | null): string {
  if (difference === null) return '';
  return `${difference >= 0 ? '+' : ''}${difference.toFixed(metric.digits)}`;
}

/**
 * What differs between the runs beyond what a comparison varies on purpose (clients, time, the
 * DBMS): the workload and its options, the scale, the settings of one DBMS's servers, durability.
 * Empty when they are alike; else one line that says their ratios compare unlike things.
 */
export function unlikeRuns(runs: readonly LoadedResult[]): string[] {
  const aspects: [string, (r: LoadedResult) => string][] = [
    ['workload', (r) => `${r.result.config.workload}${optionsText(r.result.config.workloadOptions)}`],
    // The same module name over another file, or the file changed: another model.
    ['workload module', (r) => (r.result.config.module ? `${r.result.config.module.path} sha256 ${r.result.config.module.sha256.slice(0, 12)}` : 'none')],
    ['data options', (r) => (r.result.data.options ? optionsText(r.result.data.options).trim() || 'none' : '-')],
    ['scale', (r) => String(r.result.config.scale)],
    ['durability', (r) => (r.result.target.durable ? 'durable' : `non-durable (${r.result.target.durabilityRisks.join(', ')})`)],
  ];
  // How the kernel scheduled the client (chrt, nice): on a machine shared with the server it moves
  // the figures. Compared where every run recorded it (older files did not).
  if (runs.every((r) => r.result.summary.clientCpu.scheduling !== undefined))
    aspects.push(['client scheduling', (r) => schedulingText(r.result.summary.clientCpu.scheduling) ?? 'default']);
  const detail = aspects
    .filter(([, value]) => new Set(runs.map(value)).size > 1)
    .map(([name, value]) => `${name} (${runs.map((r, i) => `${i + 1}: ${value(r)}`).join(', ')})`);
  // Settings are each DBMS's own: they differ between runs of one DBMS only.
  const settings = (r: LoadedResult): string => JSON.stringify(Object.entries(r.result.target.settings).sort());
  const dbmss = [...new Set(runs.map((r) => r.result.target.dbms))];
  const changed = dbmss.filter((dbms) => new Set(runs.filter((r) => r.result.target.dbms === dbms).map(settings)).size > 1);
  if (changed.length > 0) detail.push(`${changed.join(' and ')} server settings (see the settings that differ)`);
  return detail.length === 0 ? [] : [`warning: these runs differ in ${detail.join(', ')}: the ratios compare unlike things`];
}

function optionsText(options: Record<string, unknown>): string {
  const set = Object.entries(options).filter(([, v]) => v !== undefined && v !== false && !(Array.isArray(v) && v.length === 0));
  return set.length === 0 ? '' : ` ${set.map(([k, v]) => `--${k} ${Array.isArray(v) ? v.join(',') : String(v)}`).join(' ')}`;
}

/** A short line naming what was run: workload, DBMS and version, clients. */
export function describeRun(run: LoadedResult): string {
  const r = run.result;
  return `${r.config.workload} on ${dbmsLabel(run)}, ${r.config.clients} client(s), ${r.summary.measuredSeconds.toFixed(1)} s, ${r.status}`;
}

/**
 * "PostgreSQL 15.20" rather than the whole version() string with compiler and platform; the DBMS
 * name is left out when the version already says it.
 */
export function dbmsLabel(run: LoadedResult): string {
  const { dbms, version } = run.result.target;
  const short = version.split(/ \(| on |,/)[0]!.trim();
  return short.toLowerCase().includes(dbms) ? short : `${dbms} ${short}`;
}
