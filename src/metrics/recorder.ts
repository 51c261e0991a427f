import { ERROR_CLASSES, type DbError, type ErrorClass } from '../drivers/errors.js';
import { createHistogram, encodeHistogram, type Histogram } from './histogram.js';
import { CommandTimings, type ScriptCommandTotals } from './command-timings.js';

export type FailureCounts = Record<ErrorClass, number>;

export function noFailures(): FailureCounts {
  return Object.fromEntries(ERROR_CLASSES.map((c) => [c, 0])) as FailureCounts;
}

/** One interval's measurements from one job; plain data so it can cross a worker boundary. */
export interface IntervalSnapshot {
  count: number;
  failed: number;
  retried: number;
  histogram: string;
  lagSumUs: number;
  lagMaxUs: number;
}

export interface TypeTotals {
  name: string;
  count: number;
  failed: number;
  retried: number;
  failures: FailureCounts;
  histogram: string;
}

export interface ErrorSample {
  errorClass: ErrorClass;
  code: string | undefined;
  message: string;
  count: number;
}

/** One terminal's time without a working connection: from the first error to the first success. */
export interface OutageEpisode {
  /** Epoch milliseconds. */
  startMs: number;
  endMs: number;
  /** The error that started it plus every failed reconnect attempt. */
  errors: number;
  /** False when the run ended before the terminal got a connection back. */
  recovered: boolean;
}

/** One terminal's own figures over the measured period (the study printed them per terminal). */
export interface TerminalTally {
  terminal: number;
  transactions: number;
  failed: number;
  latencySumUs: number;
  latencyMaxUs: number;
  /** Epoch milliseconds when its last transaction of the measured period ended (comparable across threads). */
  lastEndMs: number;
  /** Why the terminal stopped early (pgbench: "client N aborted"), when it did. */
  aborted?: string;
}

export function newTally(terminal: number): TerminalTally {
  return { terminal, transactions: 0, failed: 0, latencySumUs: 0, latencyMaxUs: 0, lastEndMs: 0 };
}

export interface JobTotals {
  types: TypeTotals[];
  lagSumUs: number;
  lagMaxUs: number;
  errors: ErrorSample[];
  outages: OutageEpisode[];
  /** Terminals dropped at the start because the server refused their connection (--force). */
  refusedConnections: number;
  terminals: TerminalTally[];
  /** -r: per-command figures of scripts; empty without -r. */
  commands: ScriptCommandTotals[];
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
  private readonly totals: Histogram[];
  private readonly counts: { count: number; failed: number; retried: number; failures: FailureCounts }[];
  private interval = createHistogram();
  private intervalCount = 0;
  private intervalFailed = 0;
  private intervalRetried = 0;
  private intervalLagSumUs = 0;
  private intervalLagMaxUs = 0;
  private lagSumUs = 0;
  private lagMaxUs = 0;
  private readonly errors = new Map<string, ErrorSample>();
  private readonly outages: OutageEpisode[] = [];
  private readonly tallies: TerminalTally[] = [];

  constructor(private readonly typeNames: readonly string[]) {
    this.totals = typeNames.map(() => createHistogram());
    this.counts = typeNames.map(() => ({ count: 0, failed: 0, retried: 0, failures: noFailures() }));
  }

  success(type: number, latencyUs: number, lagUs: number, tally: TerminalTally): void {
    this.interval.recordValue(latencyUs);
    this.intervalCount++;
    this.intervalLagSumUs += lagUs;
    if (lagUs > this.intervalLagMaxUs) this.intervalLagMaxUs = lagUs;
    if (!this.measuring) return;
    this.totals[type]!.recordValue(latencyUs);
    this.counts[type]!.count++;
    tally.transactions++;
    tally.latencySumUs += latencyUs;
    if (latencyUs > tally.latencyMaxUs) tally.latencyMaxUs = latencyUs;
    tally.lastEndMs = performance.timeOrigin + performance.now();
    this.lagSumUs += lagUs;
    if (lagUs > this.lagMaxUs) this.lagMaxUs = lagUs;
  }

  failure(type: number, error: DbError, tally: TerminalTally): void {
    this.intervalFailed++;
    if (!this.measuring) return;
    tally.failed++;
    tally.lastEndMs = performance.timeOrigin + performance.now();
    const counts = this.counts[type]!;
    counts.failed++;
    counts.failures[error.errorClass]++;
    this.sample(error);
  }

  retry(type: number, error: DbError): void {
    this.intervalRetried++;
    if (!this.measuring) return;
    this.counts[type]!.retried++;
    this.sample(error);
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

  /** Errors outside a transaction (a failed reconnect) are worth showing too. */
  sample(error: DbError): void {
    const key = `${error.errorClass}|${error.code}|${error.message}`;
    const known = this.errors.get(key);
    if (known) known.count++;
    else if (this.errors.size < MAX_ERROR_SAMPLES) this.errors.set(key, { errorClass: error.errorClass, code: error.code, message: error.message, count: 1 });
  }

  takeInterval(): IntervalSnapshot {
    const snapshot: IntervalSnapshot = {
      count: this.intervalCount,
      failed: this.intervalFailed,
      retried: this.intervalRetried,
      histogram: encodeHistogram(this.interval),
      lagSumUs: this.intervalLagSumUs,
      lagMaxUs: this.intervalLagMaxUs,
    };
    this.interval.reset();
    this.intervalCount = this.intervalFailed = this.intervalRetried = this.intervalLagSumUs = this.intervalLagMaxUs = 0;
    return snapshot;
  }

  totalsSnapshot(): JobTotals {
    return {
      types: this.typeNames.map((name, i) => ({ name, ...this.counts[i]!, failures: { ...this.counts[i]!.failures }, histogram: encodeHistogram(this.totals[i]!) })),
      lagSumUs: this.lagSumUs,
      lagMaxUs: this.lagMaxUs,
      errors: [...this.errors.values()],
      outages: [...this.outages],
      refusedConnections: this.refusedConnections,
      terminals: this.tallies.map((t) => ({ ...t })),
      commands: this.commandTimings.totals(),
    };
  }
}
