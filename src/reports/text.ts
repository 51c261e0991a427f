import { thresholdLines } from '../thresholds/threshold.js';
import type { SeriesPoint } from '../engine/measurements.js';
import { settingsLine } from './settings-text.js';
import type { RunResult } from '../result/result.js';
import { whereOf } from '../result/status.js';
import { ERROR_CLASSES } from '../drivers/errors.js';
import { serverLines } from './server-text.js';
import { table } from './table.js';
import { formatWorkloadMetric } from './workload-metrics.js';

export { table };
import { pgbenchBlock, pgbenchProgressLine, scheduleTimerText, type ProgressContext } from './pgbench-text.js';
import { replicationLines } from './replication-text.js';
import { moduleLines } from './module-text.js';
import { agentsLines } from './agents-text.js';
import { stallLines, stallNotice } from './stall-text.js';
import { schedulingText } from '../engine/scheduling.js';
import { runQueueText } from './run-queue-text.js';

/** Under -R: the schedule lag's figures, and what woke the terminals at their schedule (absent from older files: no line). */
function scheduleLagLines(lag: NonNullable<RunResult['summary']['scheduleLagMs']>): string[] {
  const ms = (v: number): string => v.toFixed(3);
  const percentiles = lag.p50 === undefined || lag.p99 === undefined ? '' : ` p50 ${ms(lag.p50)} p99 ${ms(lag.p99)}`;
  const lines = [`schedule lag ms: avg ${ms(lag.avg)}${percentiles} max ${ms(lag.max)} (latency counts from the scheduled start)`];
  if (lag.timer) lines.push(`schedule kept by ${scheduleTimerText(lag.timer)}`);
  return lines;
}

/** A pgbench -P line with headroom's p99 and client CPU after " | " (see pgbench-text.ts). */
export function progressLine(point: SeriesPoint, context: ProgressContext = { maxTries: 1, latencyLimited: false }): string {
  return pgbenchProgressLine(point, context) + stallNotice(point);
}

/**
 * Lines of the summary that belong to some runs only: the chain study's Total time and per-terminal
 * lines (study: the workload re-runs the study), and one line per terminal (perTerminal: --per-terminal).
 */
export interface SummaryLines {
  study: boolean;
  perTerminal: boolean;
}

/** The final summary: pgbench's block, then headroom's own: percentiles, failure classes, client CPU, the server. */
export function summaryText(result: RunResult, resultPath: string | undefined, only: SummaryLines = { study: false, perTerminal: false }): string {
  const { config, summary } = result;
  const ms = (v: number): string => v.toFixed(3);
  const lines = [
    ...pgbenchBlock(result),
    `status: ${result.status}${result.statusReason ? ` (${result.statusReason})` : ''}`,
    // With a data line, --load is shown there as what made the data: the option itself only
    // applies when this run loads, and after `init --load faithful` its default would mislead.
    `workload: ${config.workload}${describeOptions(result.data.loadMode === undefined ? config.workloadOptions : withoutKey(config.workloadOptions, 'load'))}`,
    ...(config.statements ? [`statements sent: ${config.statements.style} (${config.statements.description})`] : []),
    `target: ${result.target.url} (${result.target.version}${connectionDurability(result)})`,
    ...moduleLines(result),
    ...(result.data.loadMode === undefined ? [] : [`data: ${result.data.loadMode} load, ${result.data.loadedBy === 'this-run' ? 'by this run' : 'earlier'}`]),
    `scale: ${config.scale}, clients: ${clientsText(result)}, jobs: ${config.jobs}, ` +
      (config.durationSeconds !== null ? `duration: ${config.durationSeconds} s` : `transactions per client: ${config.transactionsPerClient}`) +
      (config.warmupSeconds > 0 ? `, warm-up: ${config.warmupSeconds} s (excluded)` : '') +
      (config.rate !== null ? `, rate: ${config.rate} tps` : ''),
    `measured: ${summary.measuredSeconds.toFixed(1)} s, transactions: ${summary.transactions}, failed: ${summary.failed} (${percent(summary.failed, summary.transactions + summary.failed)}), retried: ${summary.retried}`,
    `tps = ${summary.tps.toFixed(3)}`,
    ...(summary.workloadMetrics ?? []).map((m) => `${m.name} = ${formatWorkloadMetric(m)} (${m.description})`),
    `latency ms: avg ${ms(summary.latencyMs.avg)} stddev ${ms(summary.latencyMs.stddev)} p50 ${ms(summary.latencyMs.p50)} p95 ${ms(summary.latencyMs.p95)} p99 ${ms(summary.latencyMs.p99)} p99.9 ${ms(summary.latencyMs.p99_9)} max ${ms(summary.latencyMs.max)}`,
  ];
  // The address-chain study's per-run line: a chain run's, where it is read beside the study's.
  if (only.study) lines.push(studyLine(summary));
  if (summary.scheduleLagMs) lines.push(...scheduleLagLines(summary.scheduleLagMs));
  const failures = ERROR_CLASSES.filter((c) => summary.failures[c] > 0).map((c) => `${c} ${summary.failures[c]}`);
  if (failures.length > 0) lines.push(`failures by class: ${failures.join(', ')}`);
  if (summary.connections.refused > 0)
    lines.push(
      `connections: the server accepted ${summary.connections.accepted} of ${config.clients} and refused ${summary.connections.refused}; the run used ${summary.connections.accepted}`,
    );
  for (const outage of summary.connections.outages) {
    lines.push(
      `outage at ${outage.startedAt}: ${outage.seconds.toFixed(1)} s, ${outage.terminals} terminal connection(s) lost, ${outage.errors} error(s)${outage.recovered ? '' : ', not recovered by the end'}`,
    );
  }
  lines.push(...stallLines(result));
  const set = settingsLine(config.serverSettings);
  if (set) lines.push(set);
  if (!result.target.durable) lines.push(`non-durable settings: ${result.target.durabilityRisks.join(', ')} (a crash can take back acknowledged commits)`);
  const cpu = summary.clientCpu;
  const memory = summary.clientMemory ? `; peak memory ${summary.clientMemory.peakRssMB.toFixed(0)} MB` : '';
  const scheduled = schedulingText(cpu.scheduling);
  const queued = runQueueText(summary);
  lines.push(
    `client cpu: ${cpu.usPerTransaction === null ? '-' : cpu.usPerTransaction.toFixed(1)} us per transaction, ${cpu.percentOfOneCore.toFixed(1)}% of one core${scheduled ? ` (scheduled ${scheduled})` : ''}${queued ? `; ${queued}` : ''}; event-loop delay p99 ${ms(result.summary.eventLoopDelayMs.p99)} ms${memory}`,
  );
  if (result.transactions.length > 1 || result.transactions.some((t) => t.failed > 0)) {
    lines.push('per transaction type:');
    // The rolled-back column only where a workload asks for rollbacks (tpcc's New-Order).
    const rolled = result.transactions.some((t) => (t.rolledBack ?? 0) > 0);
    const header = ['name', 'count', 'tps', 'avg ms', 'p50 ms', 'p99 ms', 'max ms', 'failed', 'retried', ...(rolled ? ['rolled back'] : [])];
    const rows = result.transactions.map((t) => [
      t.name,
      String(t.count),
      t.tps.toFixed(1),
      ms(t.latencyMs.avg),
      ms(t.latencyMs.p50),
      ms(t.latencyMs.p99),
      ms(t.latencyMs.max),
      String(t.failed),
      String(t.retried),
      ...(rolled ? [String(t.rolledBack ?? 0)] : []),
    ]);
    lines.push(...table([header, ...rows]).map((l) => `  ${l}`));
  }
  if (only.study || only.perTerminal) lines.push(...terminalLines(result, only.perTerminal));
  lines.push(...agentsLines(result.agents));
  lines.push(...replicationLines(result));
  lines.push(...serverLines(result, result.host.cores));
  for (const error of result.errors.slice(0, 5)) {
    const where = whereOf(error);
    lines.push(`error (${error.errorClass}${error.code ? ` ${error.code}` : ''}) x${error.count}: ${error.message}${where ? ` ${where}` : ''}`);
  }
  for (const check of result.checks ?? []) lines.push(`check ${check.ok ? 'ok  ' : 'FAIL'} ${check.name}: ${check.detail}`);
  if (result.thresholds) lines.push(...thresholdLines(result.thresholds));
  // The reason again at the end, where the eye lands: the status line is at the top of a long summary.
  if (result.status === 'failed' && result.statusReason) lines.push(`run failed: ${result.statusReason}`);
  if (resultPath) lines.push(`result: ${resultPath}`);
  return lines.join('\n');
}

/**
 * The chain study's own per-run line (docs/chain-model.md, "Runs"), so results read side by side with
 * it: from before the first connection to the last terminal's end, as the study timed it (with
 * chain --statements study the terminals start 10 ms apart, as its did). With a warm-up, or in older files,
 * there is no such span and the line says it covers the measured period.
 */
export function studyLine(summary: Pick<RunResult['summary'], 'totalTime' | 'measuredSeconds' | 'transactions' | 'tps'>): string {
  const total = summary.totalTime;
  if (total === undefined) {
    const ms = summary.measuredSeconds * 1000;
    const perTransaction = summary.transactions === 0 ? '-' : (ms / summary.transactions).toFixed(3);
    return `Total time (measured period): ${Math.round(ms)} ms = ${perTransaction} ms/tr = ${summary.tps.toFixed(1)} tr/sec`;
  }
  const perTransaction = total.msPerTransaction === null ? '-' : total.msPerTransaction.toFixed(3);
  const perSecond = total.trPerSec === null ? '-' : total.trPerSec.toFixed(1);
  return `Total time: ${Math.round(total.ms)} ms = ${perTransaction} ms/tr = ${perSecond} tr/sec (as the study times it, from before the first connection; tps over the measured period ${summary.tps.toFixed(1)})`;
}

/** The study's per-terminal lines for a few terminals (every terminal: all), for many how evenly they were served. */
function terminalLines(result: RunResult, all: boolean): string[] {
  const terminals = result.terminals;
  if (terminals.length === 0) return [];
  if (all || terminals.length <= 16) {
    return terminals.map(
      (t) =>
        `terminal ${t.terminal}: finished ${t.transactions}${t.failed > 0 ? ` (+${t.failed} failed)` : ''}, time ${t.seconds.toFixed(1)} s, maxWait ${t.maxMs.toFixed(1)} ms, avgWait ${t.avgMs.toFixed(3)} ms`,
    );
  }
  const counts = terminals.map((t) => t.transactions);
  const slowest = terminals.reduce((a, b) => (b.maxMs > a.maxMs ? b : a));
  return [
    `terminals: ${terminals.length}; finished per terminal ${Math.min(...counts)} to ${Math.max(...counts)}; slowest unit ${slowest.maxMs.toFixed(1)} ms (terminal ${slowest.terminal})`,
  ];
}

function describeOptions(options: Record<string, unknown>): string {
  const parts = Object.entries(options)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(' ') : String(v)}`);
  return parts.length > 0 ? ` (${parts.join('; ')})` : '';
}

function percent(part: number, whole: number): string {
  return `${whole === 0 ? '0.000' : ((part / whole) * 100).toFixed(3)}%`;
}

function withoutKey(options: Record<string, unknown>, key: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(options).filter(([name]) => name !== key));
}

/** A durability the connection chose itself (SQLite's PRAGMA synchronous, from the URL): named beside the version. */
function connectionDurability(result: RunResult): string {
  const setting = result.target.connectionDurability;
  return setting === undefined ? '' : `, ${setting}`;
}

/** The clients that ran; under --force, with those asked beside them when the server refused some. */
function clientsText(result: RunResult): string {
  const { clients } = result.config;
  const refused = result.summary.connections?.refused ?? 0;
  return refused > 0 ? `${clients - refused} (${clients} asked, the server refused ${refused})` : String(clients);
}
