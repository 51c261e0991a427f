import { DbError, statementTextOf, withStatementText, type ErrorClass } from '../errors.js';
import type { ServerTarget } from '../../config/target.js';
import { WrongServerError } from '../probe.js';
import { TlsError } from '../transport/tls.js';

/** 1213 deadlock, 1205 lock wait timeout, 1020 record changed (snapshot isolation). */
const RETRYABLE = new Set([1213, 1205, 1020]);
/** 1040 too many connections; 1203 and 1226 a user over its max_user_connections. */
const CAPACITY = new Set([1040, 1203, 1226]);
/** 1053 server shutdown, 1927 connection killed, 2002/2003/2006/2013 client-side "gone away". */
const CONNECTION_LOST = new Set([1053, 1927, 2002, 2003, 2006, 2013]);
/** 1044/1045 access denied, 1049 unknown database, 1054 unknown column, 1062 duplicate key,
 *  1064 syntax error, 1146 no such table, 1050 table exists, 1051 unknown table, 1210 wrong
 *  arguments (parameters that do not match the statement's placeholders). */
const BAD_REQUEST = new Set([1044, 1045, 1049, 1050, 1051, 1054, 1062, 1064, 1146, 1210]);
/** EPROTO: a stream the client cannot read, which it closes. */
const SOCKET_CODES = new Set(['EPROTO', 'ENOENT', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

interface MariadbErrorShape {
  errno?: number;
  /** The server's own message. */
  sqlMessage?: string | null;
  code?: string;
  fatal?: boolean;
}

/** Maps the wire client's errors (errno from the server's ERR packet, code of a socket error, fatal) onto the common classes. */
export function classifyMariadbError(error: unknown, target?: ServerTarget): DbError {
  if (error instanceof DbError) return error;
  if (error instanceof WrongServerError) return new DbError('bad_request', error.message, error.code, error.hint, { cause: error });
  // A certificate or TLS setting the user must fix: bad input, told in one line.
  if (error instanceof TlsError) return new DbError('bad_request', error.message, error.code, error.hint, { cause: error });
  const shape = (error ?? {}) as MariadbErrorShape;
  const message = shape.sqlMessage ?? (error instanceof Error ? error.message : String(error));
  const code = shape.errno !== undefined ? String(shape.errno) : shape.code;
  const failed = new DbError(mariadbClass(shape), message, code, target ? mariadbHint(shape, target) : undefined, {
    cause: error,
    deadlock: shape.errno === 1213,
  });
  return withStatementText(failed, statementTextOf(error));
}

function mariadbClass(error: MariadbErrorShape): ErrorClass {
  const errno = error.errno ?? -1;
  if (RETRYABLE.has(errno)) return 'retryable';
  if (CAPACITY.has(errno)) return 'capacity';
  if (BAD_REQUEST.has(errno)) return 'bad_request';
  if (CONNECTION_LOST.has(errno) || SOCKET_CODES.has(error.code ?? '')) return 'connection_lost';
  // Fatal: the connection cannot be used any more (the socket failed, or the server closed it).
  if (error.fatal === true) return 'connection_lost';
  return 'other';
}

function mariadbHint(error: MariadbErrorShape, target: ServerTarget): string | undefined {
  const where = `${target.host}:${target.port}`;
  if (error.code === 'ECONNREFUSED' || /ECONNREFUSED/.test(String(error.code)))
    return `nothing accepts connections at ${where}: is MariaDB running? (start-stop-daemon --start --background --exec /usr/sbin/mariadbd)`;
  if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') return `the host "${target.host}" is unknown: check the host in --db or MYSQL_HOST`;
  if (error.code === 'ENOENT') return `no socket at ${target.host}: is MariaDB running? mariadb -e "select @@socket" shows where its socket is`;
  switch (error.errno) {
    case 1044:
      return `check the user "${target.user}" and the password in --db (or MYSQL_USER / MYSQL_PWD) and the user's grants`;
    case 1045:
      // MariaDB refuses a plaintext login under require_secure_transport=ON with this same error.
      return `check the user "${target.user}" and the password in --db (or MYSQL_USER / MYSQL_PWD) and the user's grants${
        (target.tls?.mode ?? 'disable') === 'disable' ? '; a server with require_secure_transport=ON wants TLS: add ?ssl=true' : ''
      }`;
    case 1049:
      return `create it first: mariadb -h ${target.host} -P ${target.port} -u ${target.user} -e 'CREATE DATABASE ${target.database}'`;
    case 1040:
      return 'the server has no free connection slot: use fewer clients (-c) or raise max_connections';
    case 1203:
      return `the user "${target.user}" may hold no more connections (the server's max_user_connections): use fewer clients (-c), or raise it: SET GLOBAL max_user_connections = N (0: none)`;
    case 1226: {
      // The account's own limit; the message names which one (its names are the same in every language).
      const resource = /'(max_[a-z_]+)'/.exec(error.sqlMessage ?? '')?.[1] ?? 'max_user_connections';
      const fewer = resource === 'max_user_connections' ? 'use fewer clients (-c), or raise it' : 'raise it';
      return `the user "${target.user}" has reached its ${resource}: ${fewer}: ALTER USER '${target.user}'@'HOST' WITH ${resource.toUpperCase()} N (0: none)`;
    }
    default:
      return undefined;
  }
}
