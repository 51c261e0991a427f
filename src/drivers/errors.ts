/**
 * The error classes the engine acts on. Each driver maps its DBMS's codes onto these once, in
 * its own errors.ts; nothing outside a driver folder looks at a DBMS error code.
 */
export const ERROR_CLASSES = ['retryable', 'capacity', 'connection_lost', 'bad_request', 'other'] as const;
export type ErrorClass = (typeof ERROR_CLASSES)[number];

export class DbError extends Error {
  override readonly name = 'DbError';
  /**
   * For a retryable error: true when the DBMS reported a deadlock, false for a serialization
   * failure or other write conflict (pgbench's --failures-detailed splits failures this way).
   */
  readonly deadlock: boolean;
  /**
   * For a write conflict: true when the DBMS undid only the failed statement and the transaction
   * goes on (Firebird 3), so a workload may read again and retry the statement within it; false
   * where the conflict ends the transaction.
   */
  readonly statementUndone: boolean;
  /** The error as the DBMS's own client prints it (PostgreSQL: libpq's "ERROR:  ..." lines with DETAIL, HINT, CONTEXT), when the driver has it. */
  readonly report: string | undefined;
  /**
   * The transaction's work ran to its end and the error is about the state it left (a script that
   * ended inside its transaction): pgbench counts such a transaction processed before it aborts the client.
   */
  readonly completed: boolean;
  /** Opening the connection failed (no session was made); `report` then says so in the DBMS client's words where the driver has them. */
  readonly connecting: boolean;
  /** For a request of several statements (queryResults), which one failed, from 0; set by the driver. */
  statement: number | undefined;
  /**
   * The text of the statement the server refused, where the driver knows it (a prepared statement's
   * execution); set on the error path only, so that an error a workload module shows names its SQL.
   */
  sql: string | undefined;
  constructor(
    readonly errorClass: ErrorClass,
    message: string,
    /** The DBMS's own code (SQLSTATE, errno, SQLITE_*), kept for the result file and --verbose. */
    readonly code: string | undefined,
    /** What the user can do about it, when the driver knows. */
    readonly hint?: string,
    options?: { cause?: unknown; deadlock?: boolean; statementUndone?: boolean; report?: string; completed?: boolean; connecting?: boolean },
  ) {
    super(message, options);
    this.deadlock = options?.deadlock ?? false;
    this.statementUndone = options?.statementUndone ?? false;
    this.report = options?.report;
    this.completed = options?.completed ?? false;
    this.connecting = options?.connecting ?? false;
  }
}

/**
 * Names the statement an error came from (DbError.sql) unless the driver named it already. For
 * the error path only: the drivers call it where a failed execution is classified, never per call.
 */
export function withStatementText(error: DbError, sql: string | undefined): DbError {
  error.sql ??= sql;
  return error;
}

/** The statement text a wire client left on an error it had not classified yet (see DbError.sql). */
export function statementTextOf(error: unknown): string | undefined {
  const sql = (error as { sql?: unknown } | undefined)?.sql;
  return typeof sql === 'string' ? sql : undefined;
}
