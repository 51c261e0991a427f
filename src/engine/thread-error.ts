import { DbError, type ErrorClass } from '../drivers/errors.js';
import { StalledError, UserError } from '../errors.js';

/** An error as plain data, to cross from a worker thread to the main thread. */
export interface ThreadError {
  kind: 'db' | 'user' | 'stalled' | 'other';
  message: string;
  hint?: string;
  errorClass?: ErrorClass;
  code?: string;
  deadlock?: boolean;
  statementUndone?: boolean;
  stack?: string;
}

export function toThreadError(error: unknown): ThreadError {
  if (error instanceof DbError) {
    const { message, hint, errorClass, code, deadlock, statementUndone, stack } = error;
    return { kind: 'db', message, hint, errorClass, code, deadlock, statementUndone, stack };
  }
  if (error instanceof StalledError) return { kind: 'stalled', message: error.message, stack: error.stack };
  if (error instanceof UserError) return { kind: 'user', message: error.message, hint: error.hint, stack: error.stack };
  return { kind: 'other', message: error instanceof Error ? error.message : String(error), stack: error instanceof Error ? error.stack : undefined };
}

export function fromThreadError(data: ThreadError): Error {
  const error =
    data.kind === 'db'
      ? new DbError(data.errorClass ?? 'other', data.message, data.code, data.hint, {
          deadlock: data.deadlock ?? false,
          statementUndone: data.statementUndone ?? false,
        })
      : data.kind === 'user'
        ? new UserError(data.message, data.hint)
        : data.kind === 'stalled'
          ? new StalledError(data.message)
          : new Error(data.message);
  if (data.stack) error.stack = data.stack;
  return error;
}
