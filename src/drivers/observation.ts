/** What a DBMS tells about itself during a run; each driver folder has its own (observe.ts). */
export interface DbmsObservation {
  /** Process names of the server on this machine, to sample from /proc when it runs here. */
  serverProcessNames: readonly string[];
  /**
   * The pid of this server's main process as the server reports it, so that only its own
   * processes are sampled when several servers of one DBMS run on the machine; undefined when unknown.
   */
  serverPid?(): Promise<number | undefined>;
  /**
   * Database and per-table sizes in bytes; dead rows where the DBMS counts them. `tables`: only
   * these tables (the workload's own), not the others that share the database.
   */
  sizes(tables?: readonly string[]): Promise<SizeSnapshot>;
  /** What the other sessions are waiting on right now, as counts by wait event; undefined where not exposed. */
  waits(): Promise<Record<string, number> | undefined>;
  /** Resets or snapshots the statement statistics; returns why they are unavailable, if they are. */
  startStatements(): Promise<string | undefined>;
  /** The top statements by total time since startStatements(). */
  topStatements(limit: number): Promise<StatementStat[]>;
  /**
   * Running totals the server keeps of its work in this database (every attachment's), by names
   * that say what they count (e.g. transactions_started, page_writes); the run reports how much
   * each grew. Absent where headroom reads none.
   */
  activity?(): Promise<Record<string, number>>;
  /**
   * The sessions holding the locks that the session `waiting` (Connection.serverSessionId) waits
   * for, each as who and how long: "pid 4321 (psql: idle in transaction, its transaction open for
   * 40 s)". Their statements are left out, since another session's text may hold a secret. Asked
   * over a connection of its own. Absent where the DBMS does not tell.
   */
  lockHolders?(waiting: number): Promise<string[]>;
}

export interface SizeSnapshot {
  databaseBytes: number | null;
  /**
   * bytes: the table with its indexes. tableBytes and indexBytes split it where the DBMS tells
   * (PostgreSQL, MariaDB); absent elsewhere.
   */
  tables: { name: string; bytes: number; rows: number | null; deadRows: number | null; tableBytes?: number; indexBytes?: number }[];
}

/** An SQL list of table names for IN (...): the workload's own constant names, quoted all the same. */
export function tableNameList(tables: readonly string[]): string {
  return tables.map((name) => `'${name.toLowerCase().replace(/'/g, "''")}'`).join(', ');
}

/** The sum of the tables' sizes, or null when the DBMS gave none of them (no per-table sizes). */
export function tablesBytes(snapshot: SizeSnapshot): number | null {
  return snapshot.tables.length === 0 ? null : snapshot.tables.reduce((sum, t) => sum + t.bytes, 0);
}

export interface StatementStat {
  statement: string;
  calls: number;
  totalMs: number;
  meanMs: number;
  rows: number;
  /** Planning time over the run as the server counts it, apart from totalMs (execution): PostgreSQL with pg_stat_statements.track_planning on; absent elsewhere. */
  planMs?: number;
}
