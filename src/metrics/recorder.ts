import { performance } from 'node:perf_hooks';
import { ERROR_CLASSES, type DbError, type ErrorClass } from '../drivers/errors.js';
import type { NodeTotals } from './node-stats.js';
import { Histogram } from './histogram.js';
import { CommandTimings, type ScriptCommandTotals } from './command-timings.js';
import { noPgbenchCounts, type PgbenchCounts } from './pgbench-counts.js';
import { newTally, type OutageEpisode, type TerminalTally } from './tally.js';
import type { StuckTerminal } from './stuck.js';
import type { TimerKind } from '../common/wake-timer.js';
import type { ReactorWaits } from '../drivers/transport/native-transport.js';
import { DOUBLE_ZERO } from '../common/double-zero.js';

export { noPgbenchCounts, type PgbenchCounts, newTally, type OutageEpisode, type StuckTerminal, type TerminalTally };

export type FailureCounts = Record<ErrorClass, number>;

export function noFailures(): FailureCounts {
  return Object.fromEntries(ERROR_CLASSES.map((c) => [c, 0])) as FailureCounts;
}

/** One interval's measurements from one job; plain data but for the histogram (wireSnapshot). */
export interface IntervalSnapshot {
  count: number;
  failed: number;
  retried: number;
  /**
   * The interval's latencies: in the thread that recorded them, the recorder's own histogram, good
   * until its next takeInterval (the engine summarizes it at once); encoded where a snapshot
   * crosses a worker boundary or the network.
   */
  histogram: Histogram | string;
  lagSumUs: number;
  lagMaxUs: number;
  /** Transactions that needed more than one try (pgbench's "retried"; `retried` counts the retries). */
  transactionsRetried: number;
  /** Under --rate with --latency-limit: transactions not started because they were already late. */
  skipped: number;
  /** Terminals in a transaction at the snapshot, and how long the oldest of those had waited (ms). */
  waiting?: number;
  longestWaitMs?: number;
  /** Milliseconds since a transaction of this job last ended (committed or failed), at the snapshot. */
  sinceLastEndMs?: number;
}

/** A snapshot as it crosses a worker boundary or the network: its histogram encoded. */
export type WireIntervalSnapshot = IntervalSnapshot & { histogram: string };

/** The snapshot with its histogram encoded (uncompressed: once a second, between transactions). */
export function wireSnapshot(snapshot: IntervalSnapshot): WireIntervalSnapshot {
  const { histogram } = snapshot;
  return typeof histogram === 'string' ? { ...snapshot, histogram } : { ...snapshot, histogram: histogram.encode(false) };
}

export interface TypeTotals extends PgbenchCounts {
  name: string;
  count: number;
  failed: number;
  retried: number;
  /** Completed with the rollback the workload asks for (counted in count as well). */
  rolledBack: number;
  /**
   * Still running when the run ended, past the stop's grace (engine/terminal.ts abandon()): not in
   * count; their wait until then is in the histogram, so the latency figures show a stalled server.
   */
  unfinished: number;
  failures: FailureCounts;
  histogram: string;
  /** The workload's own counts for this type (TerminalContext.count); empty when it kept none. */
  counters: Record<string, number>;
  /** The first error that failed a transaction of this type while measuring; absent when none failed. */
  firstError?: ErrorDescription;
}

/** What an error was and where it came from, as results and summaries show it. */
export interface ErrorDescription {
  errorClass: ErrorClass;
  code: string | undefined;
  message: string;
  /** The transaction type it ended or interrupted; absent for errors outside a transaction (a failed reconnect). */
  transaction?: string;
  /** The statement the server refused, where the driver knew its text (DbError.sql). */
  statement?: string;
  /** Where a workload module's own code raised it: file:line:column of the module's source (through the bundle's source map). */
  at?: string;
}

export interface ErrorSample extends ErrorDescription {
  count: number;
}

/** Where a workload's own code raised an error (a module: its file and line), undefined where it cannot tell. */
export type ErrorLocator = (error: DbError) => string | undefined;

export interface JobTotals {
  types: TypeTotals[];
  lagSumUs: number;
  lagMaxUs: number;
  /** Under --rate: the committed transactions' schedule lags (HdrHistogram's encoding, microseconds); absent otherwise and from older agents. */
  lagHistogram?: string;
  /** Under --rate: what woke the terminals at their schedule (the job's timer); absent otherwise. */
  timer?: TimerKind;
  errors: ErrorSample[];
  outages: OutageEpisode[];
  /** Terminals dropped at the start because the server refused their connection (--force). */
  refusedConnections: number;
  terminals: TerminalTally[];
  /** -r: per-command figures of scripts; empty without -r. */
  commands: ScriptCommandTotals[];
  /** Milliseconds this job took to open its terminals' first connections (pgbench's initial connection time). */
  connectMs: number;
  /** -C: milliseconds spent opening and closing the per-transaction connections while measuring (pgbench's conn_duration). */
  reconnectMs?: number;
  /** Per-node statement statistics when the run routes over a primary and replicas. */
  nodes?: NodeTotals[];
  /** Terminals still in a transaction when the run ended without them (the stop's grace passed); absent when none. */
  stuck?: StuckTerminal[];
  /** How the job's native reactor waited between batches (native/spin.c); absent where its connections did not ride one, and from older agents. */
  waits?: ReactorWaits;
  /**
   * How long the job's threads were ready to run but waited for a CPU while measuring, and how many
   * threads that covers (one per job; an agent's are added up); absent where the kernel does not say.
   */
  runQueue?: RunQueueWait;
}

/** Threads' time ready to run but waiting for a CPU (the kernel's run-queue delay), added up over `threads` threads. */
export interface RunQueueWait {
  waitedMs: number;
  threads: number;
}

/** Distinct error messages kept per job: enough to diagnose, bounded in memory. */
const MAX_ERROR_SAMPLES = 20;

/**
 * Collects one job's measurements. Interval data is always kept (progress shows the warm-up
 * too); totals only once measuring starts, so warm-up never reaches the result.
 */
export class Recorder {
  /** -r: per-command figures, filled by script transactions that are given it. */
  readonly commandTimings = new CommandTimings();
  private measuringNow = false;

  get measuring(): boolean {
    return this.measuringNow;
  }

  set measuring(value: boolean) {
    this.measuringNow = value;
    this.commandTimings.measuring = value;
  }

  refusedConnections = 0;
  connectMs = 0;
  private reconnectMs = 0;

  /** -C: time a terminal spent opening or closing a transaction's connection. */
  connected(ms: number): void {
    if (this.measuringNow) this.reconnectMs += ms;
  }

  private readonly totals: Histogram[];
  private readonly counts: ({
    count: number;
    failed: number;
    retried: number;
    rolledBack: number;
    unfinished: number;
    failures: FailureCounts;
    counters: Record<string, number>;
    firstError?: ErrorDescription;
  } & PgbenchCounts)[];
  /**
   * The interval's histogram, and the one the last takeInterval handed out: the two change places
   * each second, so that the figures of a second are taken from the histogram itself, not from an
   * encoding of it written and read back on the terminals' thread between their transactions.
   */
  private interval = new Histogram();
  private handedOut = new Histogram();
  private intervalCount = 0;
  private intervalFailed = 0;
  private intervalRetried = 0;
  /** Sums of microseconds as doubles from the start (double-zero.ts). */
  private intervalLagSumUs = DOUBLE_ZERO;
  private intervalLagMaxUs = 0;
  private intervalTransactionsRetried = 0;
  private intervalSkipped = 0;
  private lagSumUs = DOUBLE_ZERO;
  private lagMaxUs = 0;
  /** Under --rate only: the lag's percentiles for the summary (one more record per transaction, a few integer operations). */
  private readonly lag: Histogram | undefined;
  private readonly errors = new Map<string, ErrorSample>();
  private readonly outages: OutageEpisode[] = [];
  /** performance.now() when a transaction last ended, committed or failed: how long the server has been silent. */
  lastEndAt = performance.now();
  private readonly tallies: TerminalTally[] = [];

  /**
   * latencyLimitUs: --latency-limit in microseconds; committed transactions slower than it are late.
   * locate: where the workload's code raised an error, asked only for an error not sampled before.
   * rated: the run is under --rate, so the schedule lag's distribution is kept too.
   */
  constructor(
    private readonly typeNames: readonly string[],
    private readonly latencyLimitUs = Infinity,
    private readonly locate?: ErrorLocator,
    rated = false,
  ) {
    this.lag = rated ? new Histogram() : undefined;
    // Stored once more now, before any code is optimized: V8 treats a field stored only at its
    // creation as a constant in compiled code, and the first per-second reset of one that had not
    // changed (no failures, no lag in a closed loop), or the first change of histograms, then
    // threw away the terminal loop's code.
    this.resetInterval();
    this.swapInterval();
    this.totals = typeNames.map(() => new Histogram());
    this.counts = typeNames.map(() => ({
      count: 0,
      failed: 0,
      retried: 0,
      rolledBack: 0,
      unfinished: 0,
      failures: noFailures(),
      counters: {},
      ...noPgbenchCounts(),
    }));
  }

  /**
   * A committed transaction. `endedAt`: performance.now() when it ended; `tries`: how many times it
   * ran, the last one committing (or rolling back as the workload asks: rolledBack).
   */
  success(type: number, latencyUs: number, lagUs: number, tally: TerminalTally, endedAt: number, tries = 1, rolledBack = false): void {
    this.lastEndAt = endedAt;
    this.interval.recordValue(latencyUs);
    this.intervalCount++;
    this.intervalLagSumUs += lagUs;
    if (lagUs > this.intervalLagMaxUs) this.intervalLagMaxUs = lagUs;
    this.countRetries(tries);
    if (!this.measuring) return;
    this.totals[type]!.recordValue(latencyUs);
    const counts = this.counts[type]!;
    counts.count++;
    if (rolledBack) counts.rolledBack++;
    counts.latencySumUs += latencyUs;
    counts.latencySumSquaresUs += latencyUs * latencyUs;
    if (latencyUs > this.latencyLimitUs) counts.late++;
    this.countTotalRetries(counts, tries);
    tally.transactions++;
    tally.latencySumUs += latencyUs;
    if (latencyUs > tally.latencyMaxUs) tally.latencyMaxUs = latencyUs;
    tally.lastEndMs = endedAt;
    this.lagSumUs += lagUs;
    if (lagUs > this.lagMaxUs) this.lagMaxUs = lagUs;
    this.lag?.recordValue(lagUs);
  }

  failure(type: number, error: DbError, tally: TerminalTally, endedAt: number, tries = 1): void {
    this.lastEndAt = endedAt;
    this.intervalFailed++;
    this.countRetries(tries);
    if (!this.measuring) return;
    tally.failed++;
    tally.lastEndMs = endedAt;
    const counts = this.counts[type]!;
    counts.failed++;
    counts.failures[error.errorClass]++;
    this.countTotalRetries(counts, tries);
    if (error.errorClass === 'retryable') counts[error.deadlock ? 'deadlockFailures' : 'serializationFailures']++;
    counts.firstError ??= this.describe(error, type);
    this.sample(error, type);
  }

  /**
   * Retries count when their transaction ends, so that a transaction still retrying when the
   * measured period closes adds neither its retries nor itself (pgbench's "total number of retries").
   */
  private countRetries(tries: number): void {
    if (tries > 1) {
      this.intervalTransactionsRetried++;
      this.intervalRetried += tries - 1;
    }
  }

  private countTotalRetries(counts: { retried: number; transactionsRetried: number }, tries: number): void {
    if (tries > 1) {
      counts.transactionsRetried++;
      counts.retried += tries - 1;
    }
  }

  /** A transaction not started under --rate because it was already later than --latency-limit (as pgbench). */
  skip(type: number): void {
    this.intervalSkipped++;
    if (this.measuring) this.counts[type]!.skipped++;
  }

  /**
   * A transaction of the measured period still waiting when the run ended without it (after the
   * stop, so measuring is already off): its wait so far goes into the latency figures, not into count.
   */
  unfinished(type: number, waitedUs: number, tally: TerminalTally): void {
    this.totals[type]!.recordValue(waitedUs);
    this.counts[type]!.unfinished++;
    tally.unfinished = (tally.unfinished ?? 0) + 1;
    if (waitedUs > tally.latencyMaxUs) tally.latencyMaxUs = waitedUs;
  }

  /** Under --rate with --latency-limit, an arrival the job's schedule made due that no terminal was free to start, already too late when the run ended: skipped. */
  skippedAtStop(type: number): void {
    this.counts[type]!.skipped++;
  }

  /** A count of the workload's own for this type (TerminalContext.count), kept over the measured period only. */
  count(type: number, name: string, amount: number): void {
    if (!this.measuring) return;
    const counters = this.counts[type]!.counters;
    counters[name] = (counters[name] ?? 0) + amount;
  }

  /** A try failed and the transaction will run again: its error is sampled; the retry is counted when the transaction ends. */
  retry(error: DbError, type: number): void {
    if (this.measuring) this.sample(error, type);
  }

  /** A terminal's tally, kept by the recorder so that totals can include it. */
  tally(terminal: number): TerminalTally {
    const tally = newTally(terminal);
    this.tallies.push(tally);
    return tally;
  }

  /** A terminal was without a connection (outages are kept in warm-up too: they matter whenever they happen). */
  outage(episode: OutageEpisode): void {
    this.outages.push(episode);
  }

  /** An error of a transaction of `type`; errors outside a transaction (a failed reconnect, type -1) are worth showing too. */
  sample(error: DbError, type = -1): void {
    const key = `${type}|${error.errorClass}|${error.code}|${error.message}`;
    const known = this.errors.get(key);
    if (known) known.count++;
    else if (this.errors.size < MAX_ERROR_SAMPLES) this.errors.set(key, { ...this.describe(error, type), count: 1 });
  }

  /** Once per distinct error, never per transaction: the module's source map is read here, if at all. */
  private describe(error: DbError, type: number): ErrorDescription {
    const described: ErrorDescription = { errorClass: error.errorClass, code: error.code, message: error.message };
    if (type >= 0) described.transaction = this.typeNames[type]!;
    if (error.sql !== undefined) described.statement = error.sql;
    const at = this.locate?.(error);
    if (at !== undefined) described.at = at;
    return described;
  }

  takeInterval(): IntervalSnapshot {
    const snapshot: IntervalSnapshot = {
      count: this.intervalCount,
      failed: this.intervalFailed,
      retried: this.intervalRetried,
      histogram: this.interval,
      lagSumUs: this.intervalLagSumUs,
      lagMaxUs: this.intervalLagMaxUs,
      transactionsRetried: this.intervalTransactionsRetried,
      skipped: this.intervalSkipped,
    };
    this.swapInterval();
    this.resetInterval();
    return snapshot;
  }

  /** The histogram handed out last time, emptied, takes the next interval's latencies. */
  private swapInterval(): void {
    const recorded = this.interval;
    this.interval = this.handedOut;
    this.interval.reset();
    this.handedOut = recorded;
  }

  private resetInterval(): void {
    this.intervalCount = this.intervalFailed = this.intervalRetried = this.intervalLagMaxUs = 0;
    this.intervalLagSumUs = DOUBLE_ZERO;
    this.intervalTransactionsRetried = this.intervalSkipped = 0;
  }

  totalsSnapshot(): JobTotals {
    return {
      types: this.typeNames.map((name, i) => ({
        name,
        ...this.counts[i]!,
        failures: { ...this.counts[i]!.failures },
        counters: { ...this.counts[i]!.counters },
        histogram: this.totals[i]!.encode(),
      })),
      lagSumUs: this.lagSumUs,
      lagMaxUs: this.lagMaxUs,
      ...(this.lag ? { lagHistogram: this.lag.encode() } : {}),
      errors: [...this.errors.values()],
      outages: [...this.outages],
      refusedConnections: this.refusedConnections,
      // Kept as this thread's clock while running (cheaper), given as epoch milliseconds here.
      terminals: this.tallies.map((t) => ({ ...t, lastEndMs: t.lastEndMs > 0 ? performance.timeOrigin + t.lastEndMs : 0 })),
      commands: this.commandTimings.totals(),
      connectMs: this.connectMs,
      ...(this.reconnectMs > 0 ? { reconnectMs: this.reconnectMs } : {}),
    };
  }
}
