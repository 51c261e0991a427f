import { DbError, statementTextOf, withStatementText, type ErrorClass } from '../errors.js';
import type { ServerTarget } from '../../config/target.js';
import { WrongServerError } from '../probe.js';
import { TlsError } from '../transport/tls.js';
import { PgServerError } from './wire/pg-error.js';
import { errorPositionLines } from './error-position.js';
import { connectionFailureReport } from './connect-report.js';

/** Socket-level codes that mean the server is gone or was never there (EPROTO: a stream the client cannot read, which it closes). */
const SOCKET_CODES = new Set(['EPROTO', 'ENOENT', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * Maps the wire client's errors (src/drivers/postgres/wire: PgServerError with the server's SQLSTATE in
 * `code`; PgConnectionError with a socket's errno name in `code`, or none and "connection
 * terminated" in its message when the server closed the connection) onto the common classes. A
 * connection the client closed itself ("connection closed by the client") matches neither and is
 * class `other`.
 */
export function classifyPostgresError(
  error: unknown,
  target?: ServerTarget,
  connecting?: { host: string; port: number; address?: string | undefined },
): DbError {
  if (error instanceof DbError) return error;
  // The hint names the host that was tried, not the first of several.
  if (connecting && target) target = { ...target, host: connecting.host, port: connecting.port };
  if (error instanceof WrongServerError) return new DbError('bad_request', error.message, error.code, error.hint, { cause: error });
  // A certificate or TLS setting the user must fix: bad input, told in one line.
  if (error instanceof TlsError) return new DbError('bad_request', error.message, error.code, error.hint, { cause: error });
  const code = typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : undefined;
  const message = error instanceof Error ? error.message : String(error);
  const cause = (error as Error | undefined)?.cause;
  const server = error instanceof PgServerError ? error : cause instanceof PgServerError ? cause : undefined;
  let report = server ? libpqReport(server) : undefined;
  if (connecting) {
    const address = (error as { address?: unknown }).address;
    report = connectionFailureReport({
      host: connecting.host,
      port: connecting.port,
      code,
      address: typeof address === 'string' ? address : connecting.address,
      serverReport: report,
      message,
    });
  }
  const options = { cause: error, deadlock: code === '40P01', connecting: connecting !== undefined, ...(report === undefined ? {} : { report }) };
  return withStatementText(
    new DbError(postgresClass(code, message), message, code, target ? postgresHint(code, target, server?.routine) : undefined, options),
    statementTextOf(error),
  );
}

/**
 * The error as libpq's PQerrorMessage gives it at its default verbosity (what psql and pgbench
 * print): under the message, the line its position falls on with a caret, in the generated
 * statement (QUERY) where the position is within one, else in the statement sent.
 */
function libpqReport(e: PgServerError): string {
  let text = `${e.severity}:  ${e.message}`;
  const [query, position] = e.internalPosition !== undefined ? [e.internalQuery, e.internalPosition] : [e.query, e.position];
  if (query !== undefined && position !== undefined) for (const line of errorPositionLines(query, position)) text += `\n${line}`;
  if (e.detail !== undefined) text += `\nDETAIL:  ${e.detail}`;
  if (e.hint !== undefined) text += `\nHINT:  ${e.hint}`;
  if (e.internalQuery !== undefined) text += `\nQUERY:  ${e.internalQuery}`;
  if (e.context !== undefined) text += `\nCONTEXT:  ${e.context}`;
  return text;
}

function postgresClass(code: string | undefined, message: string): ErrorClass {
  if (code === undefined) {
    return /connection terminated|connection error|not queryable|client was closed|timeout expired/i.test(message) ? 'connection_lost' : 'other';
  }
  if (SOCKET_CODES.has(code)) return 'connection_lost';
  // 40001 serialization_failure, 40P01 deadlock_detected, 55P03 lock_not_available.
  if (code === '40001' || code === '40P01' || code === '55P03') return 'retryable';
  if (code === '53300') return 'capacity'; // too_many_connections
  // Class 08 connection exceptions; 57P01-57P03 admin/crash shutdown and "cannot connect now".
  if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03') return 'connection_lost';
  // 42 syntax error or access rule violation, 22 data exception, 23 integrity constraint,
  // 3D000 unknown database, 28 invalid authorization.
  if (/^(42|22|23|28)/.test(code) || code === '3D000') return 'bad_request';
  return 'other';
}

function postgresHint(code: string | undefined, target: ServerTarget, routine: string | undefined): string | undefined {
  const where = `${target.host}:${target.port}`;
  switch (code) {
    case 'ECONNREFUSED':
      return `nothing accepts connections at ${where}: is PostgreSQL running? (Debian: pg_ctlcluster 15 main start)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `the host "${target.host}" is unknown: check the host in --db or PGHOST`;
    case 'ENOENT':
      return `no PostgreSQL socket in ${target.host} for port ${target.port}: is the server running, and is this folder in its unix_socket_directories?`;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
      return `${where} does not answer: check the host and port, and any firewall`;
    case '28P01':
    case '28000':
      if (target.passwordFile !== undefined)
        return `the password came from the password file ${target.passwordFile}: check its line for user "${target.user}", and pg_hba.conf`;
      return `check the user "${target.user}" and the password in --db (or PGUSER / PGPASSWORD / the password file) and pg_hba.conf`;
    case '3D000':
      return `create it first: createdb -h ${target.host} -p ${target.port} -U ${target.user} ${target.database}`;
    case '53300':
      return tooManyConnectionsHint(target, routine);
    default:
      return undefined;
  }
}

/**
 * 53300 has three causes, told apart by the routine that raised it (its message is in the
 * server's language): the role's CONNECTION LIMIT, the database's, or max_connections.
 */
function tooManyConnectionsHint(target: ServerTarget, routine: string | undefined): string {
  if (routine === 'InitializeSessionUserId') {
    return `the role "${target.user}" may hold no more connections: use fewer clients (-c), or raise its limit: ALTER ROLE ${quoteIdentifier(target.user)} CONNECTION LIMIT N (-1: none)`;
  }
  if (routine === 'CheckMyDatabase') {
    return `the database "${target.database}" takes no more connections: use fewer clients (-c), or raise its limit: ALTER DATABASE ${quoteIdentifier(target.database)} CONNECTION LIMIT N (-1: none)`;
  }
  return 'the server has no free connection slot: use fewer clients (-c) or raise max_connections';
}

/** A name as SQL must write it: bare when it folds to itself, else double-quoted. */
function quoteIdentifier(name: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}
