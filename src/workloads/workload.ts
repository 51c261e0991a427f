import type { Connection, DbmsName, Driver } from '../drivers/driver.js';
import type { OptionSpec, OptionValues } from '../config/options.js';
import type { Random } from '../engine/random.js';

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
  readonly random: Random;
  readonly options: OptionValues;
}

/** Runs one transaction of its type; prepared statements are bound once per terminal. */
export type TransactionRunner = () => Promise<void>;

export interface TransactionType {
  name: string;
  weight: number;
  /** Reads only: --route read-only-transactions may run it whole on a replica. */
  readOnly?: boolean;
  prepare(conn: Connection, terminal: TerminalContext): Promise<TransactionRunner>;
}

export interface Workload {
  name: string;
  description: string;
  /** The DBMSs it has a schema for; absent: every DBMS headroom drives. */
  runsOn?: readonly DbmsName[];
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
  /** How the data in the database was loaded, for workloads with more than one way (chain: faithful, bulk). */
  loadMode?(ctx: Omit<DataContext, 'scale'>): Promise<string | undefined>;
  drop(ctx: Omit<DataContext, 'scale'>): Promise<void>;
  /** The transaction mix for these options; throws UserError when the options are wrong. */
  transactions(options: OptionValues): TransactionType[];
}
