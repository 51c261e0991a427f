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
  constructor(
    readonly errorClass: ErrorClass,
    message: string,
    /** The DBMS's own code (SQLSTATE, errno, SQLITE_*), kept for the result file and --verbose. */
    readonly code: string | undefined,
    /** What the user can do about it, when the driver knows. */
    readonly hint?: string,
    options?: { cause?: unknown; deadlock?: boolean; statementUndone?: boolean },
  ) {
    super(message, options);
    this.deadlock = options?.deadlock ?? false;
    this.statementUndone = options?.statementUndone ?? false;
  }
}
