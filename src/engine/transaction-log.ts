import { closeSync, openSync } from 'node:fs';
import { writeAllSync } from '../common/file-errors.js';
import { UserError } from '../errors.js';
import { Random } from '../common/random.js';

/**
 * -l / --log: what to write and where, as pgbench writes it (README, "What a pgbench user reads"). Plain
 * data, so it crosses into worker threads.
 */
export interface TransactionLogConfig {
  /** File name prefix (--log-prefix, default pgbench_log); files are PREFIX.PID and PREFIX.PID.N for job N > 0. */
  prefix: string;
  /** The process id in the names: the main process's, also in worker threads. */
  pid: number;
  /** --aggregate-interval: seconds per summary line instead of one line per transaction. */
  aggregateSeconds: number | undefined;
  /** --sampling-rate: the fraction of transactions written (per-transaction log only). */
  samplingRate: number;
  /** Under --rate: the schedule lag column is written. */
  rated: boolean;
  /** Above 1: the retries column is written. */
  maxTries: number;
  /**
   * --failures-detailed: a failed transaction's line says "serialization" or "deadlock" instead of
   * "failed", and the aggregate's last two columns count them (0 otherwise, as pgbench writes them).
   */
  failuresDetailed: boolean;
}

export function transactionLogFile(config: TransactionLogConfig, job: number): string {
  return job === 0 ? `${config.prefix}.${config.pid}` : `${config.prefix}.${config.pid}.${job}`;
}

/** How one transaction ended, as the log records it. */
export type Outcome = { kind: 'committed'; latencyUs: number } | { kind: 'failed'; deadlock: boolean | undefined } | { kind: 'skipped' };

interface Aggregate {
  startSec: number;
  count: number;
  latencySum: number;
  latencySum2: number;
  latencyMin: number;
  latencyMax: number;
  lagSum: number;
  lagSum2: number;
  lagMin: number;
  lagMax: number;
  skipped: number;
  retried: number;
  retries: number;
  serialization: number;
  deadlock: number;
}

const FLUSH_BYTES = 64 * 1024;
/**
 * Room kept past FLUSH_BYTES for one per-transaction line: eight fields, each a whole number of at
 * most 17 characters, a word, or (never in practice) a number as JavaScript spells it, at most 24.
 */
const LINE_ROOM = 256;
const SPACE = 0x20;
const NEWLINE = 0x0a;
const MINUS = 0x2d;
const ZERO = 0x30;

/** One job's log file; its terminals share it, as pgbench's clients share their thread's. */
export class TransactionLog {
  private readonly fd: number;
  /**
   * Lines are written as bytes into one reused buffer, not kept as strings until the flush: at
   * thousands of transactions a second, a second of strings (several per line) outlived every
   * young-generation collection in between, and copying them made each of those pauses about 2.5
   * times as long (-R 4000 -l: 1.5 ms on average against 0.6 without the log), pauses the schedule
   * lag's tail shows.
   */
  private readonly bytes = Buffer.allocUnsafe(FLUSH_BYTES + LINE_ROOM);
  private used = 0;
  private aggregate: Aggregate | undefined;
  /** --sampling-rate draws from the run's seed, as pgbench's from its --random-seed. */
  private readonly sampling: Random;
  /** A write failed: the file is incomplete, and nothing more is written to it. */
  private broken = false;

  /** Throws a UserError when the file cannot be created: the job then fails to open, before it connects. */
  constructor(
    private readonly config: TransactionLogConfig,
    job: number,
    seed: number,
  ) {
    const file = transactionLogFile(config, job);
    try {
      this.fd = openSync(file, 'w');
    } catch (error) {
      throw new UserError(`cannot write the transaction log ${file}: ${(error as Error).message}`, 'give a writable --log-prefix', { cause: error });
    }
    this.sampling = new Random(seed ^ Math.imul(job + 1, 0x27d4eb2f));
  }

  /**
   * The measured period starts (atMs, performance.now()): the first interval starts at that second,
   * so that the seconds before the first transaction get their lines, as pgbench's thread start does.
   */
  begin(atMs: number): void {
    if (this.config.aggregateSeconds !== undefined) this.aggregate ??= emptyAggregate(Math.floor(epochUs(atMs) / 1e6));
  }

  /**
   * client: the terminal's number; transaction: its own count of transactions, from 1; script: the type's index;
   * atMs: when the transaction ended (performance.now()), the moment the line's time columns give.
   */
  record(client: number, transaction: number, script: number, outcome: Outcome, lagUs: number, tries: number, atMs: number): void {
    const nowUs = epochUs(atMs);
    if (this.config.aggregateSeconds !== undefined) return this.aggregateInto(nowUs, outcome, lagUs, tries);
    if (this.config.samplingRate < 1 && this.sampling.float() >= this.config.samplingRate) return;
    if (this.broken) return;
    // pgbench's line: client transaction latency|failed|skipped script epoch_s us [lag] [retries].
    let at = this.used;
    at = this.integer(at, client);
    at = this.integer(at, transaction);
    at = outcome.kind === 'committed' ? this.integer(at, outcome.latencyUs) : this.word(at, this.outcomeText(outcome));
    at = this.integer(at, script);
    at = this.integer(at, Math.floor(nowUs / 1e6));
    at = this.integer(at, nowUs % 1e6);
    // pgbench measures the schedule lag of a transaction that ran to its end; a skipped or failed one is written with 0.
    if (this.config.rated) at = this.integer(at, outcome.kind === 'committed' ? lagUs : 0);
    if (this.config.maxTries !== 1) at = this.integer(at, tries - 1);
    this.bytes[at - 1] = NEWLINE;
    this.used = at;
    if (at >= FLUSH_BYTES) this.flush();
  }

  /** Writes `n` and a space at `at`; returns where the next field starts. */
  private integer(at: number, n: number): number {
    // Every figure of a line is a whole number; anything else is written as JavaScript spells it.
    if (!Number.isSafeInteger(n)) return this.word(at, String(n));
    const { bytes } = this;
    if (n < 0) {
      bytes[at++] = MINUS;
      n = -n;
    }
    let end = at + 1;
    for (let bound = 10; n >= bound; bound *= 10) end++;
    for (let i = end - 1; i >= at; i--) {
      const rest = Math.floor(n / 10);
      bytes[i] = ZERO + (n - rest * 10);
      n = rest;
    }
    bytes[end] = SPACE;
    return end + 1;
  }

  /** Writes an ASCII word and a space at `at`. */
  private word(at: number, text: string): number {
    const end = at + this.bytes.write(text, at, 'latin1');
    this.bytes[end] = SPACE;
    return end + 1;
  }

  /**
   * Writes the intervals that ended by now (atMs) and closes the file; the last interval, still
   * open at the end of the run, is not written, as pgbench leaves it out. After a failed write only closes it.
   */
  close(atMs: number = performance.now()): void {
    try {
      if (this.broken) return;
      if (this.aggregate) this.writeEndedIntervals(epochUs(atMs) / 1e6);
      this.flush();
    } finally {
      closeSync(this.fd);
    }
  }

  private outcomeText(outcome: Outcome): string {
    if (outcome.kind === 'committed') return String(outcome.latencyUs);
    if (outcome.kind === 'failed' && this.config.failuresDetailed && outcome.deadlock !== undefined) return outcome.deadlock ? 'deadlock' : 'serialization';
    return outcome.kind;
  }

  /** Intervals without a transaction still get their line, as pgbench writes them. */
  private writeEndedIntervals(nowSec: number): void {
    const seconds = this.config.aggregateSeconds!;
    while (nowSec >= this.aggregate!.startSec + seconds) {
      this.write(aggregateLine(this.aggregate!, this.config.failuresDetailed));
      this.aggregate = emptyAggregate(this.aggregate!.startSec + seconds);
    }
  }

  private aggregateInto(nowUs: number, outcome: Outcome, lagUs: number, tries: number): void {
    this.aggregate ??= emptyAggregate(Math.floor(nowUs / 1e6));
    this.writeEndedIntervals(nowUs / 1e6);
    const a = this.aggregate;
    if (outcome.kind === 'skipped') {
      a.skipped++;
      return;
    }
    if (tries > 1) {
      a.retried++;
      a.retries += tries - 1;
    }
    if (outcome.kind === 'failed') {
      if (outcome.deadlock === true) a.deadlock++;
      else if (outcome.deadlock === false) a.serialization++;
      return;
    }
    a.count++;
    a.latencySum += outcome.latencyUs;
    a.latencySum2 += outcome.latencyUs * outcome.latencyUs;
    a.latencyMin = Math.min(a.latencyMin, outcome.latencyUs);
    a.latencyMax = Math.max(a.latencyMax, outcome.latencyUs);
    if (this.config.rated) {
      a.lagSum += lagUs;
      a.lagSum2 += lagUs * lagUs;
      a.lagMin = Math.min(a.lagMin, lagUs);
      a.lagMax = Math.max(a.lagMax, lagUs);
    }
  }

  /** An aggregate line (one per interval): rare, so built as a string. */
  private write(text: string): void {
    // After a failed write the run is ending: lines are no longer kept.
    if (this.broken) return;
    if (this.used + text.length > this.bytes.length) this.flush();
    if (text.length > this.bytes.length) return this.writeOut(Buffer.from(text, 'latin1'));
    this.used += this.bytes.write(text, this.used, 'latin1');
    if (this.used >= FLUSH_BYTES) this.flush();
  }

  /** Throws when the write fails (a full disk): the job's loops end with it, and the run stops. */
  private flush(): void {
    if (this.used === 0) return;
    const data = this.bytes.subarray(0, this.used);
    this.used = 0;
    this.writeOut(data);
  }

  private writeOut(data: Buffer): void {
    try {
      writeAllSync(this.fd, data);
    } catch (error) {
      this.broken = true;
      throw new Error(`writing the transaction log failed: ${(error as Error).message}`, { cause: error });
    }
  }
}

function epochUs(atMs: number): number {
  return Math.round((performance.timeOrigin + atMs) * 1000);
}

function emptyAggregate(startSec: number): Aggregate {
  return {
    startSec,
    count: 0,
    latencySum: 0,
    latencySum2: 0,
    latencyMin: Infinity,
    latencyMax: 0,
    lagSum: 0,
    lagSum2: 0,
    lagMin: Infinity,
    lagMax: 0,
    skipped: 0,
    retried: 0,
    retries: 0,
    serialization: 0,
    deadlock: 0,
  };
}

/**
 * pgbench 15's aggregate line: interval_start num_transactions sum_latency sum_latency_2
 * min_latency max_latency sum_lag sum_lag_2 min_lag max_lag skipped retried retries
 * serialization_failures deadlock_failures; a figure that does not apply is 0 (the failures'
 * kinds without --failures-detailed too).
 */
function aggregateLine(a: Aggregate, failuresDetailed: boolean): string {
  const min = (v: number): number => (v === Infinity ? 0 : v);
  const failures = failuresDetailed ? `${a.serialization} ${a.deadlock}` : '0 0';
  return `${a.startSec} ${a.count} ${a.latencySum} ${a.latencySum2} ${min(a.latencyMin)} ${a.latencyMax} ${a.lagSum} ${a.lagSum2} ${min(a.lagMin)} ${a.lagMax} ${a.skipped} ${a.retried} ${a.retries} ${failures}\n`;
}
