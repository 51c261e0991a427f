import type { DbError } from '../drivers/errors.js';
import type { Connection, DbmsName, Driver } from '../drivers/driver.js';
import type { OptionSpec, OptionValues } from '../config/options.js';
import type { Random } from '../common/random.js';
import type { CommandTimings } from '../metrics/command-timings.js';

/** What a workload sees while it creates, loads, checks or drops its data. */
export interface DataContext {
  conn: Connection;
  driver: Driver;
  dbms: DbmsName;
  scale: number;
  options: OptionValues;
  /** A line for the user (load phases and the like); the CLI decides where it goes. */
  log(message: string): void;
  /**
   * How far a long load is, called as often as convenient (the CLI throttles what it draws):
   * rows and bytes done so far in this phase, and the phase's total rows when known. Absent where
   * nothing draws it (tests, detectScale).
   */
  progress?(update: LoadProgress): void;
  /** --force: a load may drop a larger dataset to make a smaller one (kv; the others always load anew). */
  replaceLarger?: boolean;
}

export interface LoadProgress {
  phase: string;
  rowsDone: number;
  /** undefined when the phase does not know its size in advance. */
  rowsTotal: number | undefined;
  /** Bytes sent to the server so far in this phase (an estimate where the driver does not count). */
  bytesDone: number;
}

export interface LoadPhase {
  name: string;
  rows: number;
  seconds: number;
}

export interface CheckOutcome {
  name: string;
  ok: boolean;
  detail: string;
}

/** What one terminal hands to each transaction: its own random stream and identity. */
export interface TerminalContext {
  readonly terminal: number;
  /** How many terminals the run has, across all jobs. */
  readonly terminals: number;
  /** -t: transactions this terminal runs; undefined when the run is bounded by time (-T). */
  readonly transactionsPerTerminal: number | undefined;
  readonly scale: number;
  readonly dbms: DbmsName;
  /** The driver queues statements on one socket (Driver.pipelines); absent: it does not. */
  readonly pipelines?: boolean;
  readonly random: Random;
  readonly options: OptionValues;
  /** --protocol: how statements are sent (workloads that honour it; see Protocol). */
  readonly protocol: Protocol;
  /** The run's --seed (the same for every terminal), e.g. for pgbench's default_seed. */
  readonly seed: number;
  /** -r: where scripts record per-command figures; undefined when not asked for (no timing cost). */
  readonly commandTimings?: CommandTimings;
  /**
   * Adds to a count of the workload's own for this transaction type over the measured period
   * (tpcc Delivery: districts skipped for want of a new-order). Call it once the transaction has
   * committed, so that a try that fails and runs again does not count twice. Absent where nothing
   * records (tests that prepare a transaction by hand).
   */
  readonly count?: (name: string, amount: number) => void;
  /**
   * What the workload's runStart read once before this run's terminals started (chain: the count
   * of existing operations), the same for every terminal, thread and agent. Absent where nothing
   * read it (no hook, no data, tests that prepare a transaction by hand): the workload reads it itself.
   */
  readonly runStart?: Readonly<Record<string, number>>;
}

/**
 * What a finished transaction reports: nothing for a commit, 'rolled-back' for a rollback the
 * workload's specification asks for (TPC-C's 1% of New-Orders, clause 2.4.2.3). Such a
 * transaction completed as specified: it counts with its latency, and apart as rolledBack.
 */
export type TransactionOutcome = void | 'rolled-back';

/**
 * simple: the text with values written in (PostgreSQL: a Query message); extended: a one-off
 * statement with parameters (PostgreSQL: the unnamed statement, parsed each time); prepared:
 * named statements prepared once per connection.
 */
export const PROTOCOLS = ['simple', 'extended', 'prepared'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

/** Runs one transaction of its type; prepared statements are bound once per terminal. */
export type TransactionRunner = (() => Promise<TransactionOutcome>) & {
  /**
   * Why an error ended the client, with where the transaction stood, in the words of the tool the
   * workload follows (scripts: pgbench's "script 0 aborted in command 1 query 0: ERROR:  ...").
   */
  abortText?: (error: DbError) => string;
  /** Where the transaction stood at an error it may be tried again after (scripts: pgbench's "command 3 (SQL) of script 0"), for --verbose-errors. */
  errorPlace?: () => string;
  /** The error the transaction just failed with is tried again (scripts: -r counts it as a retry of its command, not a failure). */
  retrying?: () => void;
};

export interface TransactionType {
  name: string;
  weight: number;
  /** Reads only: --route read-only-transactions may run it whole on a replica. */
  readOnly?: boolean;
  /**
   * A user's pauses around this type (TPC-C 5.2.5: keying time before, think time after; the
   * think time is drawn from an exponential distribution with this mean). Outside latency.
   */
  pauses?: { keyingMs: number; thinkMeanMs: number };
  /**
   * The terminal's random stream when the type needs a generator of its own (pgbench scripts:
   * pgbench's, seeded per client as pgbench seeds it); the first type's is used. The terminal
   * saves and restores it around retries as it does its own.
   */
  random?(run: { seed: number; terminal: number; terminals: number }): Random;
  /** Throws UserError when the type cannot be sent this --protocol way; before anything is loaded. */
  checkProtocol?(protocol: Protocol): void;
  prepare(conn: Connection, terminal: TerminalContext): Promise<TransactionRunner>;
}

/**
 * A terminal that runs a recorded order instead of drawing from the mix (replay): each unit is one
 * run of a type, due at dueMs after the terminal starts. The terminal waits for that time, counts
 * its lateness as schedule lag and its latency from it (no coordinated omission), and ends when
 * next() gives nothing more. An error leaves the connection as it is (no rollback, no abort): the
 * recording's later statements met whatever state it left.
 */
export interface TerminalSchedule {
  next(): ScheduledUnit | undefined;
  /** The units still to come, without taking them: those due before a stop are counted unfinished. */
  remaining(): Iterable<ScheduledUnit>;
}

export interface ScheduledUnit {
  type: number;
  /** When the recording ran it, from the terminal's start. */
  dueMs: number;
  /**
   * Where given, the unit is due this long after the one before it ended instead of at dueMs: it
   * follows that unit as the recording's client followed it (replay --pace transactions, inside a
   * transaction), so its latency is its own and the one before it carried any lateness.
   */
  followsMs?: number;
}

/** A workload's own headline figure for a run, e.g. TPC-C's NOPM. */
export interface WorkloadMetric {
  name: string;
  value: number;
  description: string;
  /**
   * rate: a throughput (higher is better), compared between runs beside tps; count: a whole
   * number of things (tpcc's skipped districts), printed as one. Absent in older files.
   */
  kind?: 'rate' | 'count';
}

/** What a workload's metrics are computed from: the measured period's counts per type. */
export interface TypeCounts {
  name: string;
  count: number;
  rolledBack: number;
  /** The type's own counts (TerminalContext.count), summed over terminals; absent or empty when it kept none. */
  counters?: Readonly<Record<string, number>>;
}

export interface Workload {
  name: string;
  description: string;
  /** The DBMSs it has a schema for; absent: every DBMS headroom drives. */
  runsOn?: readonly DbmsName[];
  /** The tables it creates and runs on: the server figures (sizes, dead rows) are of these, not of other tables in the database. */
  tables: readonly string[];
  /** True when its transactions send statements as --protocol says (pgbench scripts); `run` refuses --protocol for the others. */
  honoursProtocol?: boolean;
  /** How these options make it send its statements, for workloads with a choice (chain --statements); recorded and shown with the result. */
  statements?(options: OptionValues, dbms?: DbmsName): { style: string; description: string };
  /**
   * Called by `run` after measuring: how the server's time for these options' statements splits
   * between planning and executing, measured on ctx.conn; undefined where the DBMS cannot tell.
   */
  samplePlanning?(ctx: DataContext): Promise<PlanningSample | undefined>;
  /** The run's summary adds the study's lines this workload re-runs: its Total time and one line per terminal (chain). */
  studySummary?: boolean;
  /** Milliseconds between the starts of terminal i and i+1, where these options re-run a program that staggered them (chain --statements study: 10). */
  terminalStaggerMs?(options: OptionValues): number;
  /** What -s means for this workload. */
  scaleHelp: string;
  defaultScale: number;
  /** Reads -s text as this workload's scale; throws UserError when it is not one. */
  parseScale(text: string): number;
  options: readonly OptionSpec[];
  /** Scale of the data already in the database, or undefined when the schema is not there. */
  detectScale(ctx: Omit<DataContext, 'scale'>): Promise<number | undefined>;
  /** Drops what is there, creates the schema and loads the data at ctx.scale. */
  load(ctx: DataContext): Promise<LoadPhase[]>;
  check(ctx: DataContext): Promise<CheckOutcome[]>;
  /** About how many bytes the data takes at this scale, as measured on PostgreSQL (for the free-space check before a load). */
  estimatedBytes?(scale: number): number;
  /** The load keeps a smaller dataset and adds to it (kv) instead of dropping it. */
  appendsToSmaller?: boolean;
  /**
   * For data another tool may have made (tpcb: pgbench -i, with or without headroom's load record):
   * why it is not a complete dataset at `ctx.scale`, or undefined when it is. Absent: data without
   * headroom's record is refused.
   */
  unrecordedDataProblem?(ctx: DataContext): Promise<string | undefined>;
  /**
   * Another tool that may load these tables over headroom's recorded load (tpcb: pgbench -i), the
   * DBMSs it runs on, and what to do after it stopped part way: there unrecordedDataProblem runs
   * even when headroom's record says the load finished.
   */
  readonly otherLoader?: { tool: string; runsOn: readonly DbmsName[]; hint: string };
  /** After an interrupted load: what it left committed, in a few words (kv: the rows kept). */
  loadedSoFar?(ctx: Omit<DataContext, 'scale'>): Promise<string>;
  /** How the data in the database was loaded, for workloads with more than one way (chain: faithful, bulk). */
  loadMode?(ctx: Omit<DataContext, 'scale'>): Promise<string | undefined>;
  /** The options the data in the database was loaded with, as its load recorded them (workload modules: the ones load() read). */
  dataOptions?(ctx: Omit<DataContext, 'scale'>): Promise<Record<string, unknown> | undefined>;
  /** The sha256 of the loader that made the data in the database, as its load recorded it (workload modules: their load()); undefined where none was. */
  dataLoadCode?(ctx: Omit<DataContext, 'scale'>): Promise<string | undefined>;
  /**
   * Where the workload's own code raised an error (a module: its source file, line and column);
   * asked once per distinct error, when it is first sampled, never per transaction.
   */
  errorOrigin?(error: unknown): string | undefined;
  drop(ctx: Omit<DataContext, 'scale'>): Promise<void>;
  /** Throws UserError when these options do not work on this DBMS (tpcc --procedures on SQLite); before anything is loaded. */
  checkOptions?(dbms: DbmsName, options: OptionValues): void;
  /**
   * Called by `run` once the data is there (loaded by this run or earlier), before the terminals
   * start: what these options need beyond the data (tpcc --procedures: its procedures).
   */
  readyForRun?(ctx: DataContext): Promise<void>;
  /**
   * Called once per measured run, before its terminals open, where the run has the workload's
   * data: figures every terminal needs at its start (chain: how many operations exist), read once
   * here instead of once per terminal inside the measured time. Handed to every terminal as
   * TerminalContext.runStart; plain numbers, so they reach worker threads and agents.
   */
  runStart?(ctx: DataContext): Promise<Record<string, number>>;
  /** The recorded order terminal `terminal` runs (replay); absent: terminals draw from the mix. */
  schedule?(options: OptionValues, terminal: number): TerminalSchedule;
  /** Headline figures of a run beyond tps (TPC-C: NOPM, TPM). */
  metrics?(types: readonly TypeCounts[], measuredSeconds: number): WorkloadMetric[];
  /** True when `run` must check the data after measuring and fail the run when a check fails. */
  checkAfterRun?: boolean;
  /**
   * Whether the transactions for these options work on this workload's tables; when false, `run`
   * neither looks for nor loads them (tpcb with only -f scripts that never name a pgbench_ table:
   * as in pgbench, such scripts bring their own tables, and scale is -s or 1). Absent: true.
   */
  needsData?(options: OptionValues): boolean;
  /** The transaction mix for these options; throws UserError when the options are wrong. */
  transactions(options: OptionValues): TransactionType[];
}

/** What a workload measured of its statements' planning (Workload.samplePlanning). */
export interface PlanningSample {
  /** How it was measured, in words, e.g. "EXPLAIN (ANALYZE, SUMMARY) ... after the run, medians of 15". */
  method: string;
  statements: { name: string; planningMs: number; executionMs: number }[];
  /** Sums over the statements, each run once per unit. */
  planningMsPerUnit: number;
  executionMsPerUnit: number;
  /**
   * PostgreSQL, joins sent as literal text: their round trips less those of the same joins
   * prepared, per unit: parsing, analysing and planning the text (the planner alone is planningMs).
   */
  textOverheadMsPerUnit?: number;
  /** What avoids the planning, or why nothing does. */
  avoidedBy: string;
  /** Tables the statements read that were never analyzed, so that their plans rest on default estimates; absent when none. */
  statistics?: string;
}
