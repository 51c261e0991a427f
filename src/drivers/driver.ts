import type { TransportKind } from './transport/transport.js';
import type { DbmsObservation } from './observation.js';
import type { LiteralValue } from './literals.js';

/**
 * The contract every DBMS driver implements. Workloads and the engine only see these types;
 * DBMS-specific error codes never leave a driver folder (see errors.ts).
 */

export type DbmsName = 'sqlite' | 'postgres' | 'mariadb' | 'firebird';

/** A parameter value a statement can bind. */
export type SqlValue = number | bigint | string | boolean | null | Date;

/** Rows come back as arrays in select-list order: cheaper than objects on every driver. */
export type Row = unknown[];

/**
 * A statement prepared once per connection and executed many times. SQL uses `?` placeholders;
 * a driver whose DBMS wants another style rewrites them once, at prepare time.
 */
export interface Statement {
  /** Executes and returns the number of affected rows. */
  run(params?: readonly SqlValue[]): Promise<number>;
  /** Executes and returns all rows. */
  all(params?: readonly SqlValue[]): Promise<Row[]>;
}

/**
 * A parameter's type as a statement declares it to the server, as a JDBC program's setters do:
 * setInt integer, setLong bigint; setTimestamp leaves it unspecified, for the server to infer.
 */
export type DeclaredType = 'integer' | 'bigint' | 'unspecified';

/** See Connection.literalStatement. */
export interface LiteralStatement {
  /** Executes and returns the number of affected (or returned) rows. */
  run(values: readonly LiteralValue[]): Promise<number>;
  /** Executes and returns all rows. */
  all(values: readonly LiteralValue[]): Promise<Row[]>;
}

export interface Connection {
  prepare(sql: string): Promise<Statement>;
  /** One unprepared statement (text protocol); `?` placeholders as in prepare(). */
  query(sql: string, params?: readonly SqlValue[]): Promise<Row[]>;
  /**
   * Several statements sent together in one request (pgbench's \\; under the simple protocol),
   * answered with each statement's rows and column names (columns undefined: no rows returned).
   * Only where the DBMS's protocol has such a request (PostgreSQL's simple Query message).
   */
  queryResults?(sql: string): Promise<{ columns: string[] | undefined; rows: Row[] }[]>;
  /**
   * A statement sent unprepared with its values written into its text as SQL literals between
   * `pieces` (drivers/literals.ts): run(values) and all(values) answer as query(literalText(pieces,
   * values)) would, for drivers that can build the request without the text (PostgreSQL's Query
   * message). pgbench -M simple runs each command so.
   */
  literalStatement?(pieces: readonly string[]): LiteralStatement;
  /**
   * One statement without parameters as pgJDBC sends a plain Statement: PostgreSQL's unnamed
   * statement and portal (Parse, Bind, Describe, Execute, Sync in one write), parsed and planned at
   * every call; `withBegin` puts BEGIN ahead of it in the same write, as pgJDBC opens a transaction
   * with autocommit off. Only where the DBMS's protocol has an unnamed statement (PostgreSQL).
   */
  queryUnnamed?(sql: string, withBegin: boolean): Promise<Row[]>;
  /**
   * A statement with parameters sent as pgJDBC sends a PreparedStatement with prepareThreshold
   * `threshold`: its first threshold-1 executions through the unnamed statement (parsed and
   * planned at each), the threshold-th parses it under a name in the same write, later ones only
   * bind and execute it. `types` are the parameters' declared types (absent: none declared).
   * Nothing is sent until the first execution. Only where queryUnnamed is (PostgreSQL).
   */
  prepareAtThreshold?(sql: string, threshold: number, types?: readonly DeclaredType[]): Statement;
  begin(): Promise<void>;
  commit(): Promise<void>;
  /**
   * commit() as pgJDBC sends it: COMMIT as a named statement, parsed with its first execution and
   * then only bound and executed. Only where queryUnnamed is (PostgreSQL).
   */
  commitNamed?(): Promise<void>;
  rollback(): Promise<void>;
  /**
   * Loads rows through the fastest path the DBMS offers (COPY, multi-row insert, one prepared
   * insert in one transaction). Returns the number of rows written.
   */
  bulkInsert(table: string, columns: readonly string[], rows: Iterable<readonly SqlValue[]>): Promise<number>;
  close(): Promise<void>;
  /**
   * Says whether the transactions about to run (the next begin(), or each statement in its own
   * transaction until the next call) declared themselves read-only: a connection that routes to
   * replicas (engine/routing) sends them to one, a driver whose DBMS runs read-only transactions
   * cheaper starts them so (Firebird). A statement that writes in one then fails.
   */
  declareReadOnly?(readOnly: boolean): void;
  /**
   * The request this connection waits on the server for: its statement's text ('' where the request
   * keeps none), undefined when nothing is pending. Read only where a run ends with a terminal stuck,
   * to say where it was; never on a hot path. Absent where requests block the thread (SQLite).
   */
  pendingRequest?(): string | undefined;
  /**
   * The server's own number for this connection (PostgreSQL's backend pid), by which another
   * connection can ask what it waits for (DbmsObservation.lockHolders). Absent where unknown.
   */
  serverSessionId?(): number | undefined;
}

export interface ServerInfo {
  dbms: DbmsName;
  /** What the server itself reports, e.g. "PostgreSQL 15.19 on x86_64-pc-linux-gnu". */
  version: string;
  /** Settings that decide speed and durability, by their DBMS names. */
  settings: Record<string, string>;
  /**
   * Why an acknowledged commit could be lost in a crash under these settings (e.g.
   * "synchronous_commit=off"); empty when the settings are durable.
   */
  durabilityRisks: string[];
  /** The session's encryption as the server reports it (pg_stat_ssl, Ssl_version/Ssl_cipher); absent in plaintext. */
  tls?: { protocol: string; cipher: string };
  /**
   * Set where the DBMS runs inside headroom's own process (embedded): its name as reports print it
   * ("SQLite"). Its work is then in the client's CPU figures, and there is no server process.
   */
  embedded?: string;
  /**
   * A durability setting the connection chose itself rather than the server (SQLite's PRAGMA
   * synchronous, from the URL), as reports print it beside the version: "synchronous=FULL".
   */
  connectionDurability?: string;
  /**
   * The transport the connection serverInfo ran on, for drivers whose client rides one
   * (drivers/transport: PostgreSQL, MariaDB, Firebird): the process's default, or, once encrypted,
   * tls (in the native reactor) or node-tls (Node's tls module). Absent for SQLite (embedded).
   */
  transport?: TransportKind;
}

/**
 * How a server setting asked with --set is applied (see src/session/server-settings.ts).
 * `session`: `statement` runs on every connection headroom opens (each terminal's, and the admin
 * one so serverInfo sees it); nothing to restore, it ends with the connection.
 * `global`: `apply` changes the server for everyone and `restore` puts `previous` back.
 * A setting the DBMS cannot change while running makes planSetting throw a UserError.
 */
export type SettingPlan =
  | { scope: 'session'; statement: string }
  | {
      scope: 'global';
      previous: string;
      apply: string[];
      restore: string[];
      /** SQL answering the value in force, to wait for a reload */
      current?: string;
      /** What the pending-settings record keeps, written before `apply` runs (src/session/pending-settings.ts). */
      change: PendingChange;
    };

/**
 * One change headroom makes that outlives its connection: a server-wide setting, or a table's
 * storage option (the experiments' autovacuum hold). Recorded before it is made, so a later
 * headroom command can put it back if this one dies before it does.
 */
export interface PendingChange {
  kind: 'global' | 'table';
  name: string;
  /** kind table: the table and the database it is in. */
  table?: string;
  database?: string;
  /** The value headroom set, as the DBMS stores it where inForce() reads. */
  set: string;
  /** The stored value to go back to; null: there was no entry (PostgreSQL: ALTER SYSTEM RESET / ALTER TABLE ... RESET). */
  restoreTo: string | null;
  /** The value in force before, for messages (e.g. "on" where restoreTo is null). */
  previous: string;
}

/** A set of changes one headroom command made, as kept on the client and on the server. */
export interface PendingRecord {
  id: string;
  /** dbms://host:port: which server the client-side file is about. */
  server: string;
  writtenAt: string;
  /** The client machine and process, for messages. */
  client: string;
  /** The server session of the command that made the changes: while it lives, the changes are in use. */
  holder: string;
  /** The headroom verb that made them (`run`, `experiment peak`), for messages; absent in older records. */
  command?: string;
  changes: PendingChange[];
}

/** Where a DBMS keeps headroom's pending-settings record and how it tells and undoes a change. */
export interface PendingStore {
  /** This session's identity on the server (see PendingRecord.holder). */
  holder(conn: Connection): Promise<string>;
  holderAlive(conn: Connection, holder: string): Promise<boolean>;
  /** The records kept on the server; a string says why they cannot be read (e.g. no privilege). */
  read(conn: Connection): Promise<PendingRecord[] | string>;
  put(conn: Connection, record: PendingRecord): Promise<void>;
  remove(conn: Connection, id: string): Promise<void>;
  /** The value a change left, read where the DBMS stores it (undefined: no entry). */
  inForce(conn: Connection, change: PendingChange): Promise<string | undefined>;
  /** The statements that put a change back, also shown to the user to run by hand. */
  restoreStatements(change: PendingChange): string[];
  /** The database this session is in (a table change is put back from there). */
  database(conn: Connection): Promise<string>;
  /**
   * Takes the hold on server-wide setting `name` for this session's life, so that two commands
   * never change one setting at once: kept by the server, which drops it when the session ends
   * (a killed command's too). Undefined when taken; else the session holding it, as holder()
   * names sessions.
   */
  hold(conn: Connection, name: string): Promise<string | undefined>;
  release(conn: Connection, name: string): Promise<void>;
  /** What the server tells of a session no record names (who, from where, since when), for messages. */
  describeSession(conn: Connection, holder: string): Promise<string>;
  /** The statement that ends a session, for a holder whose command is gone while its session lingers. */
  endSessionStatement(holder: string): string;
}

/** One replica at one moment; PostgreSQL fills bytes and replayAgeMs, Galera the other three. */
export interface LagSample {
  bytes?: number;
  replayAgeMs?: number | null;
  recvQueue?: number;
  flowControlPaused?: number;
  behindTransactions?: number;
}

/**
 * A DBMS's background cleanup of dead rows (PostgreSQL's autovacuum), held off for one table while
 * an experiment measures what dead rows cost: how, and what the pending-settings record keeps.
 */
export interface CleanupHold {
  /** The hold for `table`, or only a note where the table's own setting is left as it is. */
  planHold(
    conn: Connection,
    table: string,
  ): Promise<{ note: string; change?: Pick<PendingChange, 'name' | 'set' | 'restoreTo' | 'previous'>; apply?: string; undo?: string }>;
}

export interface ConnectionBudget {
  /** The server's connection limit as an ordinary user sees it, or the tighter limit of this user or database. */
  max: number;
  /** Connections already open that count against max (including ours). */
  inUse: number;
  /**
   * What sets max, as a refusal names it, when it is not the server's max_connections: a role's
   * or database's CONNECTION LIMIT (PostgreSQL), the user's max_user_connections (MariaDB).
   */
  limit?: string;
  /** How to raise that limit (a statement), with limit. */
  raise?: string;
}

export interface Driver {
  readonly dbms: DbmsName;
  /**
   * True when the driver's calls block the thread (better-sqlite3): the engine must then yield to
   * the event loop between transactions or timers and signals would never run.
   */
  readonly blocking: boolean;
  /**
   * True when the client queues requests on one socket without waiting for each answer, so a
   * pgbench script's \startpipeline ... \endpipeline is a real pipeline; elsewhere its
   * statements run one after another.
   */
  readonly pipelines: boolean;
  /** The target as shown to people, never with a password. */
  readonly target: string;
  connect(): Promise<Connection>;
  serverInfo(conn: Connection): Promise<ServerInfo>;
  /** How many more connections the server accepts; undefined where there is no such limit. */
  connectionBudget(conn: Connection): Promise<ConnectionBudget | undefined>;
  /**
   * The folder the DBMS keeps this database's data in, as a path on the machine it runs on
   * (PostgreSQL needs a role that may read data_directory); undefined when it does not say.
   */
  dataFolder(conn: Connection): Promise<string | undefined>;
  /**
   * The server's own identity and the connected database, for replay's refusal of the server a
   * capture came from: PostgreSQL's system identifier, MariaDB's @@server_uuid where it has one and
   * its @@hostname:port (both are given: a capture may have recorded either). Absent: not known.
   */
  serverIdentity?(conn: Connection): Promise<{ ids: string[]; database: string }>;
  /**
   * A new database `name` made as a copy of `template` on the same server (PostgreSQL's CREATE
   * DATABASE ... TEMPLATE), and dropping it again; absent where the DBMS has no such copy.
   */
  copyDatabase?(conn: Connection, template: string, name: string): Promise<void>;
  dropDatabase?(conn: Connection, name: string): Promise<void>;
  /** Does a table exist in the connected database/schema? */
  tableExists(conn: Connection, table: string): Promise<boolean>;
  /** How --set NAME=VALUE is applied on this DBMS; throws UserError when it cannot be while the server runs. */
  planSetting(conn: Connection, name: string, value: string): Promise<SettingPlan>;
  /**
   * Server-wide settings that let the server lose commits it acknowledged, with the values that do
   * not (lower case): --set of any other value needs --i-accept-data-loss on a server that is not
   * on this machine. Absent: the DBMS has no such setting --set can change while it runs.
   */
  readonly durableValues?: Readonly<Record<string, readonly string[]>>;
  /** Where changes that outlive a connection are recorded on the server; absent where headroom makes none. */
  readonly pendingStore?: PendingStore;
  /** Holds off background cleanup per table (needs pendingStore to record it); absent where there is none to hold. */
  readonly cleanupHold?: CleanupHold;
  /**
   * How far each replica is behind the primary, read over connections to the primary and to each
   * replica (in the order given); absent where the DBMS's replication is not sampled.
   */
  replicaLag?(primary: Connection, replicas: readonly Connection[]): Promise<LagSample[]>;
  /** The DBMS's own statistics (sizes, waits, statements), read over `conn` during a run. */
  observe(conn: Connection): DbmsObservation;
  close(): Promise<void>;
}

/** The first value of a one-value answer, or undefined for none, NULL or ''. */
export async function oneValue(conn: Connection, sql: string): Promise<string | undefined> {
  const value = (await conn.query(sql))[0]?.[0];
  return value === null || value === undefined || String(value) === '' ? undefined : String(value);
}
