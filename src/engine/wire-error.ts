import { DbError, type ErrorClass } from '../drivers/errors.js';
import { UserError } from '../errors.js';

/** An error as plain data, to cross from a worker thread to the main thread. */
export interface WireError {
  kind: 'db' | 'user' | 'other';
  message: string;
  hint?: string;
  errorClass?: ErrorClass;
  code?: string;
  deadlock?: boolean;
  stack?: string;
}

export function toWire(error: unknown): WireError {
  if (error instanceof DbError) return { kind: 'db', message: error.message, hint: error.hint, errorClass: error.errorClass, code: error.code, deadlock: error.deadlock, stack: error.stack };
  if (error instanceof UserError) return { kind: 'user', message: error.message, hint: error.hint, stack: error.stack };
  return { kind: 'other', message: error instanceof Error ? error.message : String(error), stack: error instanceof Error ? error.stack : undefined };
}

export function fromWire(wire: WireError): Error {
  const error =
    wire.kind === 'db'
      ? new DbError(wire.errorClass ?? 'other', wire.message, wire.code, wire.hint, { deadlock: wire.deadlock ?? false })
      : wire.kind === 'user'
        ? new UserError(wire.message, wire.hint)
        : new Error(wire.message);
  if (wire.stack) error.stack = wire.stack;
  return error;
}
