import { performance } from 'node:perf_hooks';
import type { Connection } from '../drivers/driver.js';
import { DbError } from '../drivers/errors.js';
import type { Recorder, StuckTerminal, TerminalTally } from '../metrics/recorder.js';
import { waitingOn } from '../metrics/stuck.js';
import type { TerminalContext, TerminalSchedule, TransactionRunner, TransactionType } from '../workloads/workload.js';
import { Deck } from './deck.js';
import type { Gate } from './gate.js';
import type { Arrivals } from './arrivals.js';
import { Pacing } from './pacing.js';
import { Random } from '../common/random.js';
import type { StopSignal } from './stop-signal.js';
import type { TransactionLog } from './transaction-log.js';

export interface TerminalPlan {
  /** Terminal number across the whole run (all jobs), from 0. */
  id: number;
  /** Terminals in the whole run. */
  terminals: number;
  seed: number;
  /** -t: transactions this terminal runs, counting failed ones; undefined when bounded by time. */
  transactions: number | undefined;
  /** --rate divided among terminals, in transactions per second; undefined for a closed loop. */
  rate: number | undefined;
  /** Tries per transaction on serialization failures and deadlocks; 0: no limit but the run's end and latencyLimitMs (as pgbench). */
  maxTries: number;
  /**
   * --abort-on-error: any error but a serialization failure or deadlock ends this terminal, as
   * pgbench 15 ends its client; a transaction whose work ran to its end counts as processed first,
   * any other is counted neither processed nor failed (pgbench's failures are serialization failures and deadlocks).
   * Without it only a bad request does, and a lost connection is reconnected.
   */
  abortOnError?: boolean;
  /**
   * -C/--connect: a new connection for each transaction, as pgbench -C: opened when the
   * transaction is due (its latency includes the connection time), closed after it.
   */
  connectEach?: boolean;
  /** --verbose-errors: each serialization failure or deadlock told on stderr, and whether the transaction is tried again (as pgbench). */
  verboseErrors?: boolean;
  /** --latency-limit in milliseconds: under --rate, a transaction already this late is skipped (as pgbench). */
  latencyLimitMs?: number | undefined;
  /** Milliseconds to wait before the first transaction (the chain study started its terminals 10 ms apart). */
  startDelayMs?: number;
}

const RECONNECT_FIRST_DELAY_MS = 100;
/** Short enough that an outage is measured to within about a second of the server's return. */
const RECONNECT_MAX_DELAY_MS = 1_000;

/** What a terminal is built from; the job assembles it. */
export interface TerminalParts {
  plan: TerminalPlan;
  types: readonly TransactionType[];
  recorder: Recorder;
  stop: StopSignal;
  /** The terminal's first connection, already open. */
  connection: Connection;
  /** Opens a replacement after a lost connection (wrapped the same way as the first). */
  connect(): Promise<Connection>;
  /** The driver blocks the thread (better-sqlite3): yield to the event loop between transactions. */
  blocking: boolean;
  /** Shared by the terminals of a blocking driver; see gate.ts. */
  gate: Gate | undefined;
  context: Omit<TerminalContext, 'random' | 'terminal' | 'terminals' | 'transactionsPerTerminal'>;
  /** -l: the job's transaction log, written while measuring. */
  log?: TransactionLog | undefined;
  /** A recorded order to run instead of the mix (Workload.schedule). */
  schedule?: TerminalSchedule | undefined;
  /** --rate: the job's arrival stream, shared by its terminals (arrivals.ts). */
  arrivals?: Arrivals | undefined;
}

/**
 * One simulated user on its own connection: draws a transaction type from the deck, waits for
 * its scheduled start under --rate, runs it (retrying serialization failures and deadlocks up to
 * --max-tries with the same random values), records it, and reconnects when the connection drops.
 */
export class Terminal {
  /** Set when a bad request ended this terminal (the same SQL would only fail again). */
  abortedBy: DbError | undefined;
  private runners: TransactionRunner[] = [];
  private readonly random: Random;
  private readonly pacing: Pacing;
  private readonly deck: Deck;
  private readonly context: TerminalContext;
  private readonly plan: TerminalPlan;
  private readonly types: readonly TransactionType[];
  private readonly recorder: Recorder;
  private readonly stop: StopSignal;
  private readonly connect: () => Promise<Connection>;
  private readonly blocking: boolean;
  private readonly gate: Gate | undefined;
  private conn: Connection;
  private readonly tally: TerminalTally;
  private readonly log: TransactionLog | undefined;
  private readonly schedule: TerminalSchedule | undefined;
  private readonly arrivals: Arrivals | undefined;
  /** When run() began (performance.now()): a schedule's due times count from here. */
  private origin = 0;
  /** Transactions this terminal has logged, for the log's transaction_no column. */
  private logged = 0;
  /**
   * When the transaction it is running was due (performance.now()), NaN between transactions: what
   * a stuck terminal had waited when the run ended without it (job.ts), read once a second for the
   * progress line's stall notice. Two stores per transaction, nothing else on the hot path.
   */
  private busySince = NaN;
  private busyType = 0;
  /** Waiting at the gate of a blocking driver for another terminal's transaction. */
  private waitingTurn = false;
  /** The stop gave up on this terminal: what it still does is no longer counted. */
  private abandoned = false;
  /** The type whose prepare() runs (or ran last). */
  private preparing = 0;

  constructor(parts: TerminalParts) {
    ({
      plan: this.plan,
      types: this.types,
      recorder: this.recorder,
      stop: this.stop,
      connection: this.conn,
      connect: this.connect,
      blocking: this.blocking,
      gate: this.gate,
      log: this.log,
      schedule: this.schedule,
      arrivals: this.arrivals,
    } = parts);
    this.random = this.types[0]?.random?.({ seed: parts.context.seed, terminal: this.plan.id, terminals: this.plan.terminals }) ?? new Random(this.plan.seed);
    this.pacing = new Pacing(this.plan.seed);
    this.tally = this.recorder.tally(this.plan.id);
    this.deck = new Deck(
      this.types.map((t) => t.weight),
      new Random(this.plan.seed ^ 0x5bd1e995),
    );
    this.context = {
      ...parts.context,
      terminal: this.plan.id,
      terminals: this.plan.terminals,
      transactionsPerTerminal: this.plan.transactions,
      random: this.random,
    };
  }

  async prepare(): Promise<void> {
    const runners: TransactionRunner[] = [];
    // Each type counts its own figures: bound here, once per connection, never per transaction.
    for (const [i, type] of this.types.entries()) {
      const count = (name: string, amount: number): void => this.recorder.count(i, name, amount);
      this.preparing = i;
      runners.push(await type.prepare(this.conn, { ...this.context, count }));
    }
    this.runners = runners;
  }

  /** Where its prepare() is, for a run whose terminals never got ready: the type, and what it waits on. */
  preparingPlace(): string {
    const type = this.types[this.preparing]?.name ?? '?';
    return `terminal ${this.plan.id} in prepare() of ${type}, ${waitingOn(this.conn.pendingRequest?.())}`;
  }

  async run(): Promise<void> {
    const { stop, recorder, plan } = this;
    const { arrivals } = this;
    const skipLateMs = arrivals === undefined ? undefined : plan.latencyLimitMs;
    if (plan.startDelayMs) await stop.sleep(plan.startDelayMs);
    // -C: the connection opened at the start only showed the server takes clients; each transaction opens its own.
    if (plan.connectEach === true) await this.conn.close().catch(() => {});
    let scheduled = performance.now();
    const origin = scheduled;
    this.origin = origin;
    const { schedule } = this;
    const paced = arrivals !== undefined || schedule !== undefined;
    /** When the last unit ended: where a recorded unit follows the one before, it is due from here. */
    let previousEnded = origin;
    for (let done = 0; !stop.stopped && (plan.transactions === undefined || done < plan.transactions); done++) {
      const unit = schedule?.next();
      if (schedule && unit === undefined) {
        // The recorded session ended here: its connection closes, as the session's did.
        await this.conn.close().catch(() => {});
        break;
      }
      const type = unit ? unit.type : this.deck.next();
      if (unit) {
        // A recorded order: due when the recording ran it, however late the terminal is; or, for a
        // unit that follows the one before (inside a transaction), that long after it ended.
        scheduled = unit.followsMs === undefined ? origin + unit.dueMs : previousEnded + unit.followsMs;
        let now = performance.now();
        while (now < scheduled && !stop.stopped) {
          await stop.until(scheduled);
          now = performance.now();
        }
        if (stop.stopped) break;
      } else if (arrivals !== undefined) {
        // Poisson arrivals as pgbench --rate: the next of the job's, taken now this terminal is
        // free, and latency counted from its scheduled start, so a stalled server shows up as
        // latency (no coordinated omission).
        let now = performance.now();
        scheduled = arrivals.next(now);
        if (skipLateMs !== undefined && now > scheduled + skipLateMs) {
          recorder.skip(type);
          this.logged++;
          if (recorder.measuring) this.log?.record(plan.id, this.logged, type, { kind: 'skipped' }, Math.round((now - scheduled) * 1000), 1, now);
          continue;
        }
        // The job's timer wakes it at the due time (the native reactor's to the microsecond, else
        // Node's, which a wait of its own makes never early); checked again all the same: no
        // transaction starts before its time.
        while (now < scheduled && !stop.stopped) {
          await stop.until(scheduled);
          now = performance.now();
        }
        if (stop.stopped) break;
      }
      const pauses = this.types[type]!.pauses;
      if (pauses) {
        // Keying time: the user fills in the screen before the transaction starts (TPC-C 5.2.5.2).
        await stop.sleep(pauses.keyingMs);
        if (stop.stopped) break;
      }
      // Without --rate a transaction is due when the terminal gets to it (after any keying time);
      // waiting at the gate of a blocking driver counts, as waiting for a lock would.
      let leave: (() => void) | undefined;
      let started: number;
      if (this.gate === undefined) {
        started = performance.now();
        if (!paced) scheduled = started;
        this.busySince = scheduled;
        this.busyType = type;
      } else {
        if (!paced) scheduled = performance.now();
        this.busySince = scheduled;
        this.busyType = type;
        this.waitingTurn = true;
        leave = await this.gate.enter();
        this.waitingTurn = false;
        started = performance.now();
      }
      if (plan.connectEach === true && !(await this.connectForTransaction())) {
        this.busySince = NaN;
        leave?.();
        return;
      }
      // The first try inline, without the retry loop's bookkeeping: it is all most transactions need.
      const state = plan.maxTries !== 1 ? this.random.save() : undefined;
      let error: DbError | undefined;
      let tries = 1;
      let rolledBack = false;
      try {
        rolledBack = (await this.runners[type]!()) === 'rolled-back';
      } catch (thrown) {
        // A recorded order is not tried again nor rolled back: the recording went on from the error.
        if (schedule) error = asDbError(thrown);
        else ({ error, tries, rolledBack } = await this.retry(type, asDbError(thrown), state, scheduled));
      }
      leave?.();
      this.busySince = NaN;
      if (this.abandoned) return;
      const lagUs = Math.round((started - scheduled) * 1000);
      this.logged++;
      const ended = performance.now();
      previousEnded = ended;
      // --abort-on-error: a transaction whose work ran to its end counts as processed; any other that
      // ends the terminal is, as pgbench counts it, neither processed nor failed (the abort says why).
      const aborting = error !== undefined && plan.abortOnError === true && error.errorClass !== 'retryable';
      if (error === undefined || (aborting && error.completed)) {
        const latencyUs = Math.max(1, Math.round((ended - scheduled) * 1000));
        recorder.success(type, latencyUs, lagUs, this.tally, ended, tries, rolledBack);
        if (this.log && recorder.measuring) this.log.record(plan.id, this.logged, type, { kind: 'committed', latencyUs }, lagUs, tries, ended);
      }
      if (plan.connectEach === true) {
        const closing = performance.now();
        await this.conn.close().catch(() => {});
        recorder.connected(performance.now() - closing);
      }
      if (aborting && error !== undefined) {
        this.abortedBy = error;
        this.tally.aborted = this.runners[type]!.abortText?.(error) ?? error.message;
        return;
      }
      if (error !== undefined) {
        recorder.failure(type, error, this.tally, ended, tries);
        if (this.log && recorder.measuring)
          this.log.record(
            plan.id,
            this.logged,
            type,
            { kind: 'failed', deadlock: error.errorClass === 'retryable' ? error.deadlock : undefined },
            lagUs,
            tries,
            ended,
          );
        if (error.errorClass === 'connection_lost') await this.reconnect();
        else if (error.errorClass === 'bad_request' && !schedule) {
          this.abortedBy = error;
          this.tally.aborted = error.message;
          return;
        }
      }
      if (pauses) await stop.sleep(this.pacing.thinkMs(pauses.thinkMeanMs));
      // better-sqlite3 never yields: without this, timers (progress, the end of -T) and Ctrl-C
      // would wait until the run is over.
      if (this.blocking) await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /** -C: opens and prepares the transaction's connection; false when it could not (the terminal ends, as pgbench ends its client). */
  private async connectForTransaction(): Promise<boolean> {
    const opening = performance.now();
    try {
      this.conn = await this.connect();
      await this.prepare();
    } catch (thrown) {
      const error = asDbError(thrown);
      this.abortedBy = error;
      this.tally.aborted = `aborted while establishing connection: ${error.message}`;
      return false;
    }
    this.recorder.connected(performance.now() - opening);
    return true;
  }

  async close(): Promise<void> {
    await this.conn.close().catch(() => {});
  }

  /** Milliseconds the transaction it is running has waited since it was due; undefined between transactions. */
  waitingMs(now: number): number | undefined {
    return Number.isNaN(this.busySince) ? undefined : now - this.busySince;
  }

  /**
   * The run ended and this terminal is still in its transaction after the stop's grace: that
   * transaction is counted unfinished, with the time it had waited by `now` as its latency, and
   * under --rate so is every arrival of the job's stream due before `stoppedAt` that no terminal
   * took (the schedule ran on while the terminals waited: no coordinated omission at the run's
   * edge); the first terminal abandoned counts them, with its tally. Those already later
   * than --latency-limit count as skipped, as they would have been. What the terminal does after
   * this is not counted. Returns where it was stuck; undefined when it was not in a transaction.
   */
  abandon(now: number, stoppedAt: number): StuckTerminal | undefined {
    if (Number.isNaN(this.busySince)) return undefined;
    this.abandoned = true;
    const { plan, recorder } = this;
    recorder.unfinished(this.busyType, Math.max(1, Math.round((now - this.busySince) * 1000)), this.tally);
    if (this.schedule) {
      for (const unit of this.schedule.remaining()) {
        const due = this.origin + unit.dueMs;
        if (due >= stoppedAt) break;
        recorder.unfinished(unit.type, Math.max(1, Math.round((now - due) * 1000)), this.tally);
      }
    } else if (this.arrivals !== undefined) {
      for (const due of this.arrivals.dueBefore(stoppedAt)) {
        const type = this.deck.next();
        if (plan.latencyLimitMs !== undefined && now - due > plan.latencyLimitMs) recorder.skippedAtStop(type);
        else recorder.unfinished(type, Math.max(1, Math.round((now - due) * 1000)), this.tally);
      }
    }
    const statement = this.waitingTurn ? undefined : this.conn.pendingRequest?.();
    return {
      terminal: plan.id,
      transaction: this.types[this.busyType]!.name,
      waitedMs: Math.round(now - this.busySince),
      place: this.waitingTurn ? 'turn' : statement === undefined ? 'workload' : 'statement',
      ...(statement === undefined ? {} : { statement }),
    };
  }

  /**
   * After a failed first try: rolls back, and runs the transaction again with the same random
   * values while the error is retryable and --max-tries (0: no limit) and --latency-limit allow. Returns the error that ended it, if
   * any, and the tries made.
   */
  private async retry(
    type: number,
    first: DbError,
    state: ReturnType<Random['save']> | undefined,
    scheduled: number,
  ): Promise<{ error: DbError | undefined; tries: number; rolledBack: boolean }> {
    let error = first;
    const { maxTries, latencyLimitMs } = this.plan;
    for (let tries = 1; ; tries++) {
      if (error.errorClass !== 'connection_lost') await this.conn.rollback().catch(() => {});
      // As pgbench's doRetry: no further try once the transaction has taken longer than --latency-limit.
      const again =
        error.errorClass === 'retryable' &&
        (maxTries === 0 || tries < maxTries) &&
        !this.stop.stopped &&
        (latencyLimitMs === undefined || performance.now() - scheduled <= latencyLimitMs);
      if (this.plan.verboseErrors === true && error.errorClass === 'retryable') this.tellError(type, error, tries, again, scheduled);
      if (!again) return { error, tries, rolledBack: false };
      this.recorder.retry(error, type);
      this.runners[type]!.retrying?.();
      this.random.restore(state!);
      try {
        const outcome = await this.runners[type]!();
        return { error: undefined, tries: tries + 1, rolledBack: outcome === 'rolled-back' };
      } catch (thrown) {
        error = asDbError(thrown);
      }
    }
  }

  /** --verbose-errors: pgbench's two lines for an error a transaction may be tried again after. */
  private tellError(type: number, error: DbError, tries: number, again: boolean, scheduled: number): void {
    const { id, maxTries, latencyLimitMs } = this.plan;
    const place = this.runners[type]!.errorPlace?.();
    let attempt = `try ${tries}${maxTries === 0 ? '' : `/${maxTries}`}`;
    if (latencyLimitMs !== undefined)
      attempt += `, ${(((performance.now() - scheduled) / latencyLimitMs) * 100).toFixed(3)}% of the maximum time of tries was used`;
    process.stderr.write(
      `client ${id} got an error${place === undefined ? '' : ` in ${place}`}; ${error.report ?? error.message}\n` +
        `client ${id} ${again ? 'repeats the transaction after the error' : 'ends the failed transaction'} (${attempt})\n`,
    );
  }

  /** Capped, jittered exponential backoff until a new connection is open and prepared, or the run stops. */
  private async reconnect(): Promise<void> {
    const startMs = Date.now();
    let errors = 1;
    await this.conn.close().catch(() => {});
    let delay = RECONNECT_FIRST_DELAY_MS;
    while (!this.stop.stopped) {
      await this.stop.sleep(this.pacing.reconnectDelayMs(delay));
      if (this.stop.stopped) break;
      try {
        this.conn = await this.connect();
        await this.prepare();
        this.recorder.outage({ startMs, endMs: Date.now(), errors, recovered: true });
        return;
      } catch (thrown) {
        errors++;
        this.recorder.sample(asDbError(thrown));
        delay = Math.min(delay * 2, RECONNECT_MAX_DELAY_MS);
      }
    }
    this.recorder.outage({ startMs, endMs: Date.now(), errors, recovered: false });
  }
}

/** An exception that is not a DbError is a bug in a workload, not a DBMS answer: class "other". */
function asDbError(thrown: unknown): DbError {
  if (thrown instanceof DbError) return thrown;
  return new DbError('other', thrown instanceof Error ? thrown.message : String(thrown), undefined, undefined, { cause: thrown });
}
