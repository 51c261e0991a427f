import { UserError } from '../errors.js';
import type { DbmsName } from '../drivers/driver.js';
import { connectTimeoutMs, sortParameters } from './parameters.js';
import { resolvePostgres } from './postgres/target.js';
import { SQLITE_SYNCHRONOUS, type NodeAddress, type ServerTarget, type SqliteSynchronous, type Target } from './target-types.js';
import { nonEmpty, splitUrl, type UrlParts } from './url.js';
import { mariadbTlsSettings } from '../drivers/mariadb/tls-options.js';
import { postgresTlsSettings } from '../drivers/postgres/tls-options.js';

export * from './target-types.js';

export const DEFAULT_DB = 'sqlite:headroom.db';

const SCHEMES: Record<string, DbmsName> = {
  sqlite: 'sqlite',
  postgres: 'postgres',
  postgresql: 'postgres',
  pg: 'postgres',
  mariadb: 'mariadb',
  mysql: 'mariadb',
  firebird: 'firebird',
  fb: 'firebird',
};

const URL_HINT = 'use e.g. sqlite:./bench.db, postgres://user@host:5432/db, mariadb://user@host:3306/db or firebird://SYSDBA@host:3050//path/file.fdb';

type Env = Readonly<Record<string, string | undefined>>;

const warned = new Set<string>();

/** A warning about the connection settings (an ignored password file), printed once per process. */
function warnOnce(message: string): void {
  if (warned.has(message)) return;
  warned.add(message);
  process.stderr.write(`headroom: warning: ${message}\n`);
}

/**
 * Resolves the connection the way porsager/postgres and libpq do: explicit URL parts first, then
 * the DBMS's usual environment variables (PG*, MYSQL_*), then defaults. `--db postgres` alone
 * therefore means "PostgreSQL, everything from the environment".
 */
export function resolveTarget(db: string | undefined, env: Env = process.env, warn: (message: string) => void = warnOnce): Target {
  const given = db ?? env['DATABASE_URL'] ?? DEFAULT_DB;
  // A bare server name ("postgres", "mariadb") means that DBMS with everything from the environment.
  const text = /^[a-z]+$/i.test(given) && SCHEMES[given.toLowerCase()] !== 'sqlite' ? `${given}:` : given;
  const match = /^([a-z]+):(.*)$/i.exec(text);
  const dbms = match ? SCHEMES[match[1]!.toLowerCase()] : undefined;
  if (!match || !dbms) {
    throw new UserError(`cannot tell which DBMS "${redact(text)}" names`, URL_HINT);
  }
  const rest = match[2]!;
  if (dbms === 'sqlite') {
    // `?` starts parameters (synchronous only), never part of the file name; any other is refused.
    const queryAt = rest.indexOf('?');
    const { own } = sortParameters('sqlite', queryAt >= 0 ? splitUrl(rest.slice(queryAt), text, URL_HINT).params : []);
    const file = (queryAt < 0 ? rest : rest.slice(0, queryAt)).replace(/^\/\/(?=\/)/, '');
    if (file === '' || file === '//') throw new UserError('sqlite: needs a file name', 'use e.g. sqlite:./bench.db');
    const synchronous = sqliteSynchronous(own.get('synchronous'));
    return synchronous === undefined ? { dbms, file } : { dbms, file, synchronous };
  }
  return serverTarget(dbms, rest, text, env, warn);
}

const SQLITE_HINT = 'synchronous is full, normal or off, e.g. sqlite:./bench.db?synchronous=normal; full is the default';

function sqliteSynchronous(value: string | undefined): SqliteSynchronous | undefined {
  if (value === undefined) return undefined;
  const synchronous = SQLITE_SYNCHRONOUS.find((s) => s === value.toLowerCase());
  if (synchronous === undefined) throw new UserError(`?synchronous=${value} is not a SQLite synchronous mode`, SQLITE_HINT);
  return synchronous;
}

function serverTarget(dbms: ServerTarget['dbms'], rest: string, text: string, env: Env, warn: (message: string) => void): ServerTarget {
  const url = rest !== '' && rest !== '//' ? splitUrl(rest, redact(text), URL_HINT) : undefined;
  if (dbms === 'firebird' && url?.params.some(([name]) => name === 'replicas')) {
    throw new UserError('replicas are supported for PostgreSQL and MariaDB only', 'remove ?replicas= from the Firebird URL');
  }
  const { own, tlsParameters } = sortParameters(dbms, url?.params ?? []);
  const defaultPort = { postgres: 5432, mariadb: 3306, firebird: 3050 }[dbms];
  const target: ServerTarget =
    dbms === 'postgres' ? { dbms, ...resolvePostgres(url, own, tlsParameters, env, warn) } : otherTarget(dbms, url, own, tlsParameters, text, env);
  // The TLS code reads its own parameters (and PGSSL* variables), merged from the URL and a service file.
  const tlsGiven = new URLSearchParams(target.tlsParameters ?? {});
  const tls = dbms === 'postgres' ? postgresTlsSettings(tlsGiven, env) : dbms === 'mariadb' ? mariadbTlsSettings(tlsGiven) : undefined;
  if (tls) target.tls = tls;
  const replicas = own.get('replicas');
  if (replicas !== undefined) target.replicas = parseReplicas(replicas, defaultPort);
  return target;
}

/** MariaDB and Firebird: the URL's parts, then the DBMS's usual environment variables, then defaults. */
function otherTarget(
  dbms: 'mariadb' | 'firebird',
  url: UrlParts | undefined,
  own: ReadonlyMap<string, string>,
  tlsParameters: Record<string, string>,
  text: string,
  env: Env,
): ServerTarget {
  if (url && url.hosts.length > 1) throw new UserError(`a ${dbms} URL names one host, not ${url.hosts.length}`, 'replicas go in ?replicas=host:port,host:port');
  const fromEnv: Partial<Record<'host' | 'port' | 'user' | 'password' | 'database' | 'socket', string>> =
    dbms === 'mariadb'
      ? {
          ...{ host: env['MYSQL_HOST'], port: env['MYSQL_TCP_PORT'], user: env['MYSQL_USER'], password: env['MYSQL_PWD'] },
          ...{ database: env['MYSQL_DATABASE'], socket: env['MYSQL_UNIX_PORT'] },
        }
      : // Firebird's own tools (isql, gbak) read only these two.
        { user: env['ISC_USER'], password: env['ISC_PASSWORD'] };
  const defaults = { mariadb: { port: 3306, user: 'root' }, firebird: { port: 3050, user: 'SYSDBA' } }[dbms];
  const portText = url?.hosts[0]?.port ?? nonEmpty(fromEnv.port);
  const port = portText === undefined ? defaults.port : Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new UserError(`port "${portText}" in the database URL is not a TCP port`, URL_HINT);
  }
  const user = url?.user ?? fromEnv.user ?? defaults.user;
  const database = dbms === 'firebird' ? firebirdDatabase(url?.path, text) : (url?.path ?? fromEnv.database ?? 'test');
  const host = url?.hosts[0]?.host ?? fromEnv.host ?? '127.0.0.1';
  // MariaDB's Unix socket: ?socket=, else MYSQL_UNIX_PORT when the URL names no host (as the mysql client does).
  const socket = own.get('socket') ?? (url?.hosts[0]?.host === undefined ? nonEmpty(fromEnv.socket) : undefined);
  if (socket !== undefined && !socket.startsWith('/')) {
    throw new UserError(`socket "${socket}" is not an absolute path`, 'use e.g. ?socket=/run/mysqld/mysqld.sock (mariadb -e "select @@socket" shows it)');
  }
  const target: ServerTarget = { dbms, host: socket ?? host, port, user, password: url?.password ?? fromEnv.password, database };
  const timeout = own.get('connect_timeout');
  if (timeout !== undefined) target.connectTimeoutMs = connectTimeoutMs(timeout);
  if (Object.keys(tlsParameters).length > 0) target.tlsParameters = tlsParameters;
  return target;
}

const REPLICAS_HINT = 'list them as ?replicas=host:port,host:port, e.g. postgres://u@10.0.0.1:5432/db?replicas=10.0.0.2:5432,10.0.0.3:5432';

/** `host:port,host:port` (a missing port means the DBMS's default). */
function parseReplicas(text: string, defaultPort: number): NodeAddress[] {
  if (text.trim() === '') throw new UserError('?replicas= lists no replica', REPLICAS_HINT);
  const nodes = text.split(',').map((part) => {
    const match = /^(\[[^\]]+\]|[^:\s]+)(?::(\d+))?$/.exec(part.trim());
    const port = match?.[2] === undefined ? defaultPort : Number(match[2]);
    if (!match || port < 1 || port > 65535) throw new UserError(`"${part}" in ?replicas= is not host:port`, REPLICAS_HINT);
    return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
  });
  return nodes;
}

/**
 * The primary and each replica as a target of its own: same user, password and database. A
 * replica is that one host: no fallback hosts, and no target_session_attrs, which would refuse it.
 */
export function nodeTargets(target: ServerTarget): ServerTarget[] {
  const { replicas, ...primary } = target;
  return [
    primary,
    ...(replicas ?? []).map((r) => {
      const { fallbacks: _fallbacks, targetSessionAttrs: _attrs, ...node } = primary;
      return { ...node, host: r.host, port: r.port };
    }),
  ];
}

/**
 * A Firebird database is a file on the server or an alias from its databases.conf. After the
 * host's slash comes the file: `//var/lib/x.fdb` or `/var/lib/x.fdb` (a path with a folder is
 * taken as absolute, since the server resolves relative ones against its own working folder),
 * or a bare alias such as `employee`.
 */
function firebirdDatabase(path: string | undefined, text: string): string {
  if (path === undefined) {
    throw new UserError(
      `the Firebird URL "${redact(text)}" names no database`,
      'add the database file or alias, e.g. firebird://SYSDBA@127.0.0.1:3050//var/lib/firebird/3.0/data/bench.fdb',
    );
  }
  return path.includes('/') && !path.startsWith('/') ? `/${path}` : path;
}

/**
 * The target as it may be printed or stored: never with the password; with what changes the
 * connection's behaviour (a socket, fallback hosts, startup options, target_session_attrs).
 */
export function describeTarget(target: Target): string {
  if (target.dbms === 'sqlite') return `sqlite:${target.file}${target.synchronous === undefined ? '' : `?synchronous=${target.synchronous}`}`;
  const params: string[] = [];
  let hosts: string;
  if (target.dbms === 'mariadb' && target.host.startsWith('/')) {
    hosts = 'localhost';
    params.push(`socket=${target.host}`);
  } else {
    // A PostgreSQL socket folder is written %2F-encoded, as libpq reads it.
    const host = (name: string): string => (name.startsWith('/') ? encodeURIComponent(name) : name.includes(':') ? `[${name}]` : name);
    const address = (node: NodeAddress): string => `${host(node.host)}:${node.port}`;
    hosts = [target, ...(target.fallbacks ?? [])].map(address).join(',');
  }
  if (target.options !== undefined) params.push(`options=${encodeURIComponent(target.options)}`);
  if (target.targetSessionAttrs !== undefined) params.push(`target_session_attrs=${target.targetSessionAttrs}`);
  if (target.replicas) params.push(`replicas=${target.replicas.map((r) => `${r.host}:${r.port}`).join(',')}`);
  return `${target.dbms}://${target.user}@${hosts}/${target.database}${params.length > 0 ? `?${params.join('&')}` : ''}`;
}

function redact(text: string): string {
  return text.replace(/(\/\/[^:/@]*):[^@]*@/, '$1:***@');
}

/** The target as a server's; undefined for an embedded DBMS, which runs inside the client. */
export function serverTargetOf(target: Target): ServerTarget | undefined {
  return 'host' in target ? target : undefined;
}

/** The DBMS runs on this machine: embedded in the client, or a server here. */
export function dbmsOnThisMachine(target: Target): boolean {
  return !serverTargetOf(target) || runsOnThisMachine(target);
}

/** A server on this machine, whose processes can be read from /proc; SQLite runs inside the client. */
export function runsOnThisMachine(target: Target): boolean {
  if (!('host' in target)) return false;
  // The whole loopback range, 127.0.0.0/8, is this machine (a test server may listen on 127.0.0.2).
  return target.host === 'localhost' || target.host === '::1' || target.host.startsWith('127.') || target.host.startsWith('/');
}
