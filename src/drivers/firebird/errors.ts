import { DbError, type ErrorClass } from '../errors.js';
import type { ServerTarget } from '../../config/target.js';
import { WrongServerError } from '../probe.js';

/**
 * Firebird status codes (gdscode, ISC error numbers) and how the engine treats them. A status
 * vector often carries several: e.g. isc_deadlock followed by isc_update_conflict, so every code
 * in it is looked at, most specific class first.
 */
const GDS = {
  deadlock: 335544336,
  io_error: 335544344,
  lock_conflict: 335544345,
  no_dup: 335544349,
  no_meta_update: 335544351,
  /** "attempted update during read-only transaction": a write in a transaction declared read-only. */
  read_only_trans: 335544361,
  /** "Object ... is in use": DDL on a table some statement or transaction still holds. */
  obj_in_use: 335544453,
  update_conflict: 335544451,
  login: 335544472,
  lock_timeout: 335544510,
  shutdown: 335544528,
  dsql_error: 335544569,
  conn_lost: 335544648,
  unique_key_violation: 335544665,
  network_error: 335544721,
  net_read_err: 335544726,
  net_write_err: 335544727,
  lost_db_connection: 335544741,
  max_att_exceeded: 335544744,
  att_shutdown: 335544856,
  /** isc_random: a message of its own, e.g. "cannot update erased record". */
  random: 335544382,
  /** "Killed by database administrator": the attachment was deleted from MON$ATTACHMENTS. */
  att_shut_killed: 335545056,
  /** "Incompatible wire encryption levels requested on client and server". */
  wirecrypt_incompatible: 335545064,
  /** "Client attempted to attach unencrypted but wire encryption is required" (WireCrypt = Required). */
  wirecrypt_required: 335545065,
} as const;

/** Concurrent writers on one row: the whole transaction can be tried again. */
const RETRYABLE = new Set<number>([GDS.deadlock, GDS.lock_conflict, GDS.update_conflict, GDS.lock_timeout]);
const CAPACITY = new Set<number>([GDS.max_att_exceeded]);
const CONNECTION_LOST = new Set<number>([
  GDS.shutdown,
  GDS.conn_lost,
  GDS.network_error,
  GDS.net_read_err,
  GDS.net_write_err,
  GDS.lost_db_connection,
  GDS.att_shutdown,
  GDS.att_shut_killed,
]);
const BAD_REQUEST = new Set<number>([
  ...[GDS.io_error, GDS.no_dup, GDS.no_meta_update, GDS.read_only_trans, GDS.login, GDS.dsql_error, GDS.unique_key_violation],
  ...[GDS.wirecrypt_incompatible, GDS.wirecrypt_required],
]);
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPROTO',
  'ECONNABORTED',
]);

interface FirebirdErrorShape {
  gdscode?: number;
  status?: { gdscode?: number }[];
  code?: string;
}

/** Maps node-firebird errors (gdscode and status vector, socket codes, or its own messages). */
export function classifyFirebirdError(error: unknown, target?: ServerTarget): DbError {
  if (error instanceof DbError) return error;
  if (error instanceof WrongServerError) return new DbError('bad_request', error.message, error.code, error.hint, { cause: error });
  const shape = (error ?? {}) as FirebirdErrorShape;
  const codes = gdsCodes(shape);
  // The result file counts errors by message: the conflicting transaction's number would make
  // every update conflict a message of its own.
  const message = (error instanceof Error ? error.message : String(error))
    .replace(/\s*\n\s*/g, ' ')
    .replace(/, Concurrent transaction number is \d+/, '')
    .trim();
  const errorClass = firebirdClass(codes, shape.code, message, error instanceof Error ? error.name : '');
  const code = codes[0] !== undefined ? String(codes[0]) : shape.code;
  // An update conflict also arrives under isc_deadlock: only a deadlock without it is one.
  const deadlock = codes.includes(GDS.deadlock) && !codes.includes(GDS.update_conflict) && !codes.includes(GDS.lock_conflict);
  return new DbError(errorClass, message, code, target ? firebirdHint(codes, shape.code, target) : undefined, {
    cause: error,
    deadlock,
    // Firebird 3 undoes only the statement that met a write conflict and keeps the transaction.
    statementUndone: errorClass === 'retryable' && !deadlock,
  });
}

/** True for "object in use": DDL refused while a prepared statement or transaction holds the object. */
export function isObjectInUse(error: unknown): boolean {
  const cause = error instanceof DbError ? error.cause : error;
  const codes = gdsCodes((cause ?? {}) as FirebirdErrorShape);
  // node-firebird keeps only the first code of the vector (no_meta_update); the rest is in the text.
  return codes.includes(GDS.obj_in_use) || (codes.includes(GDS.no_meta_update) && /\bis in use\b/i.test(cause instanceof Error ? cause.message : ''));
}

function gdsCodes(shape: FirebirdErrorShape): number[] {
  const codes = (shape.status ?? []).map((s) => s.gdscode).filter((c): c is number => typeof c === 'number');
  if (typeof shape.gdscode === 'number' && !codes.includes(shape.gdscode)) codes.unshift(shape.gdscode);
  return codes;
}

function firebirdClass(codes: number[], socketCode: string | undefined, message: string, errorName: string): ErrorClass {
  if (codes.some((c) => CONNECTION_LOST.has(c))) return 'connection_lost';
  if (codes.some((c) => RETRYABLE.has(c))) return 'retryable';
  // A read-committed writer that reaches a row a concurrent transaction deleted and committed
  // (TPC-C's Delivery, two terminals of one warehouse): a conflict like an update conflict.
  if (codes.includes(GDS.random) && /cannot update erased record/i.test(message)) return 'retryable';
  if (codes.some((c) => CAPACITY.has(c))) return 'capacity';
  if (codes.some((c) => BAD_REQUEST.has(c))) return 'bad_request';
  if (socketCode !== undefined && SOCKET_CODES.has(socketCode)) return 'connection_lost';
  // The client's own refusal of a parameter value or type (wire/messages.ts): nothing was sent.
  if (codes.length === 0 && /^(ParameterError|UnsupportedType)$/.test(errorName)) return 'bad_request';
  // node-firebird's own errors for a socket that closed under it carry no code.
  if (codes.length === 0 && /connection to firebird server was lost|connection is closed|socket/i.test(message)) return 'connection_lost';
  return 'other';
}

function firebirdHint(codes: number[], socketCode: string | undefined, target: ServerTarget): string | undefined {
  const where = `${target.host}:${target.port}`;
  if (socketCode === 'ECONNREFUSED') return `nothing accepts connections at ${where}: is Firebird running? (bash scripts/firebird.sh installs and starts it)`;
  if (socketCode === 'ENOTFOUND' || socketCode === 'EAI_AGAIN') return `the host "${target.host}" is unknown: check the host in --db`;
  if (codes.includes(GDS.login)) return `check the user "${target.user}" and the password in --db (or ISC_USER / ISC_PASSWORD)`;
  if (codes.includes(GDS.io_error))
    return `the server cannot open "${target.database}": create it first, e.g. echo "CREATE DATABASE '${where}:${target.database}' PAGE_SIZE 8192;" | isql-fb -user ${target.user} -password ...; the server's own user (firebird) must be able to write its folder`;
  if (codes.includes(GDS.wirecrypt_required) || codes.includes(GDS.wirecrypt_incompatible)) {
    // node-firebird encrypts the wire (Arc4/ChaCha) only with the session key of an Srp login.
    return `the server's firebird.conf says WireCrypt = Required, and headroom's Firebird client encrypts only a login by Srp: give "${target.user}" an Srp password (CREATE USER ... USING PLUGIN Srp, AuthServer listing Srp), or set WireCrypt = Enabled`;
  }
  if (codes.includes(GDS.max_att_exceeded)) return 'the server accepts no more attachments: use fewer clients (-c)';
  return undefined;
}
