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
  constructor(
    readonly errorClass: ErrorClass,
    message: string,
    /** The DBMS's own code (SQLSTATE, errno, SQLITE_*), kept for the result file and --verbose. */
    readonly code: string | undefined,
    /** What the user can do about it, when the driver knows. */
    readonly hint?: string,
    options?: { cause?: unknown; deadlock?: boolean },
  ) {
    super(message, options);
    this.deadlock = options?.deadlock ?? false;
  }
}
