import type { Connection, DbmsName, Row, SqlValue, Statement } from '../drivers/driver.js';
import type { Random } from '../common/random.js';
import type { RefGenerator } from '../workloads/chain/generator.js';

/**
 * The public workload API: what a user's module default-exports, made with defineWorkload().
 * headroom maps it onto the same contract its built-in workloads implement (src/workloads/workload.ts),
 * so a module's transactions run in the same terminals with the same retries, reconnects, -R pacing,
 * -l logs, observation and result as tpcb or tpcc.
 */

export type { Connection, DbmsName, Random, RefGenerator, Row, SqlValue, Statement };

/** One option of the workload, given on the command line as --NAME VALUE (the key is NAME). */
export type OptionDefinition =
  | { type: 'integer' | 'number'; help: string; default: number; min?: number; value?: string }
  | { type: 'string'; help: string; default: string; choices?: readonly string[]; value?: string }
  | { type: 'boolean'; help: string; default?: boolean };

export type OptionsDefinition = Record<string, OptionDefinition>;

/** The values a run was given, typed from the options' definitions. */
export type OptionValuesOf<O extends OptionsDefinition> = {
  readonly [K in keyof O]: O[K] extends { type: 'integer' | 'number' } ? number : O[K] extends { type: 'boolean' } ? boolean : string;
};

/**
 * One table: portable DDL (CREATE TABLE in the SQL the four DBMSs share), its indexes, and per DBMS
 * a replacement where the portable text does not work there (identity columns, types, engines).
 */
export interface TableDefinition {
  create: string;
  indexes?: readonly string[];
  dialect?: Partial<Record<DbmsName, { create?: string; indexes?: readonly string[] }>>;
}

/** What a module's loader, check and transactions all see. */
export interface WorkloadContext<O extends OptionsDefinition> {
  readonly dbms: DbmsName;
  /** -s as the module's scale.parse read it. */
  readonly scale: number;
  readonly options: OptionValuesOf<O>;
}

/** What the loader gets: the tables are already created (empty) when load() is called. */
export interface LoadContext<O extends OptionsDefinition> extends WorkloadContext<O> {
  readonly conn: Connection;
  /** A line for the user. */
  log(message: string): void;
  /**
   * A timed load phase (shown as it ends, kept in the result's data.phases); `work` returns the rows
   * it wrote (or nothing for DDL).
   */
  phase(name: string, work: () => Promise<number | void>): Promise<void>;
  /**
   * The DBMS's fastest load path (COPY on PostgreSQL, bulk execute on MariaDB, one transaction on
   * SQLite, EXECUTE BLOCK on Firebird), with the progress bar; rows may be a generator.
   */
  bulkInsert(table: string, columns: readonly string[], rows: Iterable<readonly SqlValue[]>, expectedRows?: number): Promise<number>;
  /** The chain study's reference generator (r -> 11r mod 982,451,653), started where the study starts it, or at `at`. */
  referenceGenerator(at?: number): RefGenerator;
  /** A seeded random source for generated data (the same seed gives the same rows). */
  random(seed: number): Random;
}

/** What a transaction type's prepare() gets: the terminal's identity and its seeded random source. */
export interface TerminalContext<O extends OptionsDefinition> extends WorkloadContext<O> {
  /** This terminal's number, from 0, and how many the run has across all -j threads. */
  readonly terminal: number;
  readonly terminals: number;
  /** -t per terminal; undefined under -T. */
  readonly transactionsPerTerminal: number | undefined;
  /**
   * The terminal's random stream, seeded from --seed: on a retry (--max-tries) headroom replays it,
   * so the retry draws the same values as the first try.
   */
  readonly random: Random;
  /** The run's --seed. */
  readonly seed: number;
}

/**
 * One kind of business transaction. prepare() runs once per terminal connection (again after a
 * reconnect): prepare the statements there and return the function that runs one transaction. A
 * transaction that throws is rolled back by headroom, counted as failed, and tried again under
 * --max-tries when the driver classes the error as a serialization failure or a deadlock.
 */
export interface TransactionDefinition<O extends OptionsDefinition> {
  /** Its share of the mix: whole numbers, dealt from a shuffled deck (TPC-C 5.2.4.2), so the mix holds over every deck. */
  weight: number;
  /** Reads only (lets --route read-only-transactions send it to a replica). */
  readOnly?: boolean;
  prepare(conn: Connection, terminal: TerminalContext<O>): Promise<() => Promise<void | 'rolled-back'>>;
}

export interface CheckResult {
  name: string;
  ok: boolean;
  detail: string;
}

/**
 * What one business event costs in the module's transactions, for `headroom plan`: a number (of
 * the mix's transactions as run) or a count per transaction type. eventsPerDay, peakFactor and scale
 * are the defaults `plan` uses when its own flags are not given.
 */
export interface DemandDefinition {
  event: string;
  transactionsPerEvent: number | Readonly<Record<string, number>>;
  eventsPerDay?: number;
  peakFactor?: number;
  /**
   * The -s at which the module's data is the business's size: `plan` warns when the run's data
   * was under a tenth of it, since a database that small stays in caches the business's would not.
   */
  scale?: number;
}

export interface WorkloadDefinition<O extends OptionsDefinition = OptionsDefinition> {
  /** Lower case letters, digits and dashes, at most 32 characters; not the name of a built-in workload. */
  name: string;
  description: string;
  /** Where the tables work; absent: every DBMS headroom drives. */
  runsOn?: readonly DbmsName[];
  /** What -s means, its default, and how its text is read (default: a whole number of at least 1). */
  scale?: { help: string; default: number; parse?(text: string): number };
  options?: O;
  /** Tables in creation order (dropped in reverse); headroom drops and creates them around load(). */
  tables: Readonly<Record<string, TableDefinition>>;
  load(ctx: LoadContext<O>): Promise<void>;
  transactions: Readonly<Record<string, TransactionDefinition<O>>>;
  /** Invariants of the data: run after every load and after every run (a failed one fails the run, exit 1), and by `headroom check`. */
  check?(ctx: LoadContext<O>): Promise<CheckResult[]>;
  demand?: DemandDefinition;
}

/** Marks a module's default export as a workload definition (the loader refuses anything else). */
export const WORKLOAD_MARK: unique symbol = Symbol.for('headroom.workload');

export type DefinedWorkload<O extends OptionsDefinition = OptionsDefinition> = WorkloadDefinition<O> & { readonly [WORKLOAD_MARK]: true };

/**
 * Declares a workload: `export default defineWorkload({ name, description, tables, load, transactions })`.
 * Types only; headroom checks the definition's shape when it loads the module and names what is wrong.
 */
export function defineWorkload<const O extends OptionsDefinition = Record<never, never>>(definition: WorkloadDefinition<O>): DefinedWorkload<O> {
  return Object.assign(Object.create(null) as object, definition, { [WORKLOAD_MARK]: true as const }) as DefinedWorkload<O>;
}
