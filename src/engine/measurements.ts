import { round } from '../common/round.js';
import type {
  ErrorSample,
  FailureCounts,
  IntervalSnapshot,
  JobTotals,
  OutageEpisode,
  RunQueueWait,
  StuckTerminal,
  TerminalTally,
  TypeTotals,
} from '../metrics/recorder.js';
import { noFailures, noPgbenchCounts, type PgbenchCounts } from '../metrics/recorder.js';
import { createHistogram, summarize, type Histogram, type LatencySummaryMs } from '../metrics/histogram.js';
import { ERROR_CLASSES } from '../drivers/errors.js';
import { mergeCommandTotals, type ScriptCommandTotals } from '../metrics/command-timings.js';
import type { TimerKind } from '../common/wake-timer.js';
import type { ReactorWaits } from '../drivers/transport/native-transport.js';

/** One point of the per-second series (all transaction types together). */
export interface SeriesPoint {
  /** Seconds since the terminals started, at the end of this interval. */
  t: number;
  phase: 'warmup' | 'measure';
  seconds: number;
  transactions: number;
  tps: number;
  failed: number;
  /** Retries made in the interval. */
  retried: number;
  /** Transactions that needed more than one try (pgbench's "retried"); absent from older files. */
  transactionsRetried?: number;
  /** Under --rate with --latency-limit: transactions skipped for being late; absent otherwise. */
  skipped?: number;
  latencyMs: Pick<LatencySummaryMs, 'avg' | 'stddev' | 'p50' | 'p99' | 'max'>;
  /** Under --rate: average and largest wait past the scheduled start. */
  lagMs?: { avg: number; max: number };
  /** Client process CPU over the interval, as a percentage of one core. */
  clientCpuPercent: number;
  /**
   * How late the client's event loop ran its timers during the interval: high values mean the
   * client, not the server, held the run back. Absent from results written before it was added.
   */
  eventLoopDelayMs?: { p99: number; max: number };
  /**
   * At the interval's end no transaction had ended for silentMs (STALL_MS or more) while `terminals`
   * waited in theirs, the oldest for longestMs: the server (or a workload's own code) stopped
   * answering. Absent otherwise.
   */
  stalled?: { silentMs: number; terminals: number; longestMs: number };
}

/** No transaction ending for this long while terminals wait in theirs is a stall worth saying. */
export const STALL_MS = 1000;

export function intervalPoint(
  snapshots: readonly IntervalSnapshot[],
  t: number,
  seconds: number,
  phase: SeriesPoint['phase'],
  cpuPercent: number,
  rated: boolean,
): SeriesPoint {
  const only = snapshots.length === 1 ? snapshots[0]!.histogram : undefined;
  let histogram: Histogram;
  if (only !== undefined && typeof only !== 'string') histogram = only;
  else {
    intervalHistogram.reset();
    for (const { histogram: part } of snapshots) {
      if (typeof part === 'string') intervalHistogram.addEncoded(part);
      else intervalHistogram.add(part);
    }
    histogram = intervalHistogram;
  }
  const transactions = sum(snapshots.map((s) => s.count));
  const latency = summarize(histogram);
  const point: SeriesPoint = {
    t: round(t, 3),
    phase,
    seconds: round(seconds, 3),
    transactions,
    tps: round(transactions / seconds, 1),
    failed: sum(snapshots.map((s) => s.failed)),
    retried: sum(snapshots.map((s) => s.retried)),
    transactionsRetried: sum(snapshots.map((s) => s.transactionsRetried)),
    latencyMs: { avg: latency.avg, stddev: latency.stddev, p50: latency.p50, p99: latency.p99, max: latency.max },
    clientCpuPercent: round(cpuPercent, 1),
  };
  const skipped = sum(snapshots.map((s) => s.skipped));
  if (skipped > 0) point.skipped = skipped;
  const waiting = sum(snapshots.map((s) => s.waiting ?? 0));
  const silentMs = Math.min(...snapshots.map((s) => s.sinceLastEndMs ?? 0));
  if (waiting > 0 && silentMs >= STALL_MS) {
    point.stalled = { silentMs, terminals: waiting, longestMs: Math.max(...snapshots.map((s) => s.longestWaitMs ?? 0)) };
  }
  if (rated) {
    point.lagMs = {
      avg: transactions === 0 ? 0 : round(sum(snapshots.map((s) => s.lagSumUs)) / transactions / 1000, 3),
      max: round(Math.max(0, ...snapshots.map((s) => s.lagMaxUs)) / 1000, 3),
    };
  }
  return point;
}

export interface MergedTotals {
  types: (Omit<TypeTotals, 'histogram'> & { histogram: Histogram })[];
  all: Histogram;
  failures: FailureCounts;
  lagSumUs: number;
  lagMaxUs: number;
  /** Under --rate: the jobs' lag histograms merged (empty otherwise, and when an agent sent none). */
  lag: Histogram;
  /** Under --rate: `node` when Node's timers paced any job, `reactor` when the reactor's timer paced them all; undefined otherwise. */
  timer: TimerKind | undefined;
  errors: ErrorSample[];
  outages: Outage[];
  refusedConnections: number;
  terminals: TerminalTally[];
  commands: ScriptCommandTotals[];
  /** The jobs' initial connection time, averaged over jobs (as pgbench averages over threads). */
  connectMs: number;
  /** -C: the per-transaction connections' time, summed over jobs. */
  reconnectMs: number;
  /** Per-node statements when the run routed over replicas, the jobs' histograms merged. */
  nodes: MergedNodeTotals[] | undefined;
  /** Terminals still in a transaction when the run ended without them; empty when none. */
  stuck: StuckTerminal[];
  /** How the jobs' native reactors waited between batches; undefined when none said. */
  waits: ReactorWaits | undefined;
  /** The job threads' wait for a CPU while measuring, added up; undefined unless every job said. */
  runQueue: RunQueueWait | undefined;
}

export interface MergedNodeTotals {
  node: string;
  statements: number;
  reads: number;
  transactions: number;
  histogram: Histogram;
}

/** A stretch of time in which one or more terminals had no connection (their episodes merged). */
export interface Outage {
  startedAt: string;
  seconds: number;
  /** Terminal episodes inside it: how many terminals lost their connection, counting repeats. */
  terminals: number;
  /** Errors seen: each episode's first plus its failed reconnect attempts. */
  errors: number;
  /** False when some terminal was still without a connection at the end of the run. */
  recovered: boolean;
}

/** Adds the jobs' totals together: histograms merge exactly, counts add up. */
export function mergeTotals(jobs: readonly JobTotals[]): MergedTotals {
  const names = jobs[0]?.types.map((t) => t.name) ?? [];
  const types = names.map((name, i) => {
    const parts = jobs.map((job) => job.types[i]!);
    const failures = noFailures();
    for (const part of parts) for (const c of ERROR_CLASSES) failures[c] += part.failures[c];
    const pgbench = noPgbenchCounts();
    for (const key of Object.keys(pgbench) as (keyof PgbenchCounts)[]) pgbench[key] = sum(parts.map((p) => p[key]));
    return {
      name,
      ...pgbench,
      count: sum(parts.map((p) => p.count)),
      failed: sum(parts.map((p) => p.failed)),
      retried: sum(parts.map((p) => p.retried)),
      rolledBack: sum(parts.map((p) => p.rolledBack)),
      // Absent from an agent's totals written before it was counted.
      unfinished: sum(parts.map((p) => p.unfinished ?? 0)),
      failures,
      counters: addCounters(parts.map((p) => p.counters)),
      histogram: mergeEncoded(parts.map((p) => p.histogram)),
      ...firstErrorOf(parts),
    };
  });
  const all = createHistogram();
  for (const type of types) all.add(type.histogram);
  const failures = noFailures();
  for (const type of types) for (const c of ERROR_CLASSES) failures[c] += type.failures[c];
  const errors = new Map<string, ErrorSample>();
  for (const sample of jobs.flatMap((j) => j.errors)) {
    const key = `${sample.transaction}|${sample.errorClass}|${sample.code}|${sample.message}`;
    const known = errors.get(key);
    if (known) known.count += sample.count;
    else errors.set(key, { ...sample });
  }
  return {
    types,
    all,
    failures,
    lagSumUs: sum(jobs.map((j) => j.lagSumUs)),
    lagMaxUs: Math.max(0, ...jobs.map((j) => j.lagMaxUs)),
    lag: mergeEncoded(jobs.flatMap((j) => (j.lagHistogram === undefined ? [] : [j.lagHistogram]))),
    timer: jobs.some((j) => j.timer === 'node') ? 'node' : jobs.some((j) => j.timer === 'reactor') ? 'reactor' : undefined,
    errors: [...errors.values()].sort((a, b) => b.count - a.count),
    outages: mergeOutages(jobs.flatMap((j) => j.outages)),
    refusedConnections: sum(jobs.map((j) => j.refusedConnections)),
    terminals: jobs.flatMap((j) => j.terminals).sort((a, b) => a.terminal - b.terminal),
    commands: mergeCommandTotals(jobs.map((j) => j.commands)),
    connectMs: jobs.length === 0 ? 0 : sum(jobs.map((j) => j.connectMs)) / jobs.length,
    reconnectMs: sum(jobs.map((j) => j.reconnectMs ?? 0)),
    nodes: mergeNodes(jobs),
    stuck: jobs.flatMap((j) => j.stuck ?? []).sort((a, b) => a.terminal - b.terminal),
    waits: mergeWaits(jobs.flatMap((j) => (j.waits ? [j.waits] : []))),
    runQueue: jobs.length > 0 && jobs.every((j) => j.runQueue) ? addRunQueues(jobs.map((j) => j.runQueue!)) : undefined,
  };
}

/** The jobs' reactors' waits: their trials and polling's wins added up; the mode where all had one, else `mixed`. */
function mergeWaits(waits: readonly ReactorWaits[]): ReactorWaits | undefined {
  if (waits.length === 0) return undefined;
  const mode = waits.every((w) => w.mode === waits[0]!.mode) ? waits[0]!.mode : 'mixed';
  return { mode, trials: sum(waits.map((w) => w.trials)), pollingWon: sum(waits.map((w) => w.pollingWon)) };
}

function addRunQueues(parts: readonly RunQueueWait[]): RunQueueWait {
  return { waitedMs: sum(parts.map((p) => p.waitedMs)), threads: sum(parts.map((p) => p.threads)) };
}

/** A type's first error over the jobs: the first job's that had one (each job keeps its own first). */
function firstErrorOf(parts: readonly TypeTotals[]): Pick<TypeTotals, 'firstError'> {
  const first = parts.find((p) => p.firstError !== undefined)?.firstError;
  return first ? { firstError: first } : {};
}

/** The workload's own counts of one type, added up over jobs (a job that never counted one has no key for it). */
function addCounters(parts: readonly (Readonly<Record<string, number>> | undefined)[]): Record<string, number> {
  const total: Record<string, number> = {};
  for (const part of parts) for (const [name, value] of Object.entries(part ?? {})) total[name] = (total[name] ?? 0) + value;
  return total;
}

/** Every job routes over the same nodes in the same order; their counts add up. */
function mergeNodes(jobs: readonly JobTotals[]): MergedNodeTotals[] | undefined {
  const first = jobs[0]?.nodes;
  if (!first) return undefined;
  return first.map((n, i) => {
    const parts = jobs.map((job) => job.nodes![i]!);
    return {
      node: n.node,
      statements: sum(parts.map((p) => p.statements)),
      reads: sum(parts.map((p) => p.reads)),
      transactions: sum(parts.map((p) => p.transactions)),
      histogram: mergeEncoded(parts.map((p) => p.histogram)),
    };
  });
}

/** Overlapping terminal episodes become one outage: the time the system as a whole was hurt. */
function mergeOutages(episodes: readonly OutageEpisode[]): Outage[] {
  const sorted = [...episodes].sort((a, b) => a.startMs - b.startMs);
  const merged: { startMs: number; endMs: number; terminals: number; errors: number; recovered: boolean }[] = [];
  for (const e of sorted) {
    const last = merged[merged.length - 1];
    if (last && e.startMs <= last.endMs) {
      last.endMs = Math.max(last.endMs, e.endMs);
      last.terminals++;
      last.errors += e.errors;
      last.recovered &&= e.recovered;
    } else {
      merged.push({ startMs: e.startMs, endMs: e.endMs, terminals: 1, errors: e.errors, recovered: e.recovered });
    }
  }
  return merged.map((o) => ({
    startedAt: new Date(o.startMs).toISOString(),
    seconds: round((o.endMs - o.startMs) / 1000, 3),
    terminals: o.terminals,
    errors: o.errors,
    recovered: o.recovered,
  }));
}

/** The encoded histograms added together into `into` (a new histogram unless one is given). */
function mergeEncoded(encoded: readonly string[], into: Histogram = createHistogram()): Histogram {
  for (const part of encoded) into.addEncoded(part);
  return into;
}

/**
 * The per-second interval's histogram, reused from second to second: the figures are taken from
 * it at once and nothing keeps it, and a new one was 184 KB of counts allocated and zeroed each
 * second on the event loop, in the middle of the terminals' transactions.
 */
const intervalHistogram = createHistogram();

export function sum(values: readonly number[]): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}
