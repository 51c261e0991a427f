import { DbError, type ErrorClass } from '../errors.js';

/** Maps better-sqlite3's SqliteError codes (SQLITE_* extended result codes) onto the common classes. */
export function classifySqliteError(error: unknown): DbError {
  if (error instanceof DbError) return error;
  const code = typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : undefined;
  const message = error instanceof Error ? error.message : String(error);
  return new DbError(sqliteClass(code), message, code, sqliteHint(code), { cause: error });
}

function sqliteClass(code: string | undefined): ErrorClass {
  if (code === undefined) return 'other';
  // BUSY: another connection holds the write lock past busy_timeout; LOCKED: a conflict inside
  // one shared cache. Both succeed when the transaction is simply tried again.
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'retryable';
  // Plain SQLITE_ERROR is what SQLite raises for syntax errors and missing tables or columns.
  if (code === 'SQLITE_ERROR' || code === 'SQLITE_RANGE' || code.startsWith('SQLITE_CONSTRAINT')) return 'bad_request';
  return 'other';
}

function sqliteHint(code: string | undefined): string | undefined {
  if (code?.startsWith('SQLITE_CANTOPEN')) return 'check that the folder of the sqlite: file exists and is writable';
  if (code?.startsWith('SQLITE_READONLY')) return 'the database file is read-only; give a writable file';
  if (code === 'SQLITE_FULL') return 'the disk is full';
  return undefined;
}
