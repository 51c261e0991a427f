import { UserError } from '../errors.js';
import type { DbmsName } from '../drivers/driver.js';

/** Where to connect, resolved from --db, then DATABASE_URL, then the embedded default. */
export type Target = SqliteTarget | ServerTarget;

export interface SqliteTarget {
  dbms: 'sqlite';
  file: string;
  /**
   * PRAGMA synchronous of every connection, from the URL's `?synchronous=` (absent: full). Set
   * explicitly because SQLite's own default differs between a new file and one already in WAL mode.
   */
  synchronous?: SqliteSynchronous;
}

export const SQLITE_SYNCHRONOUS = ['full', 'normal', 'off'] as const;
export type SqliteSynchronous = (typeof SQLITE_SYNCHRONOUS)[number];

export interface ServerTarget {
  dbms: Exclude<DbmsName, 'sqlite'>;
  host: string;
  port: number;
  user: string;
  password: string | undefined;
  database: string;
  /**
   * Read replicas (or, for Galera, the other nodes) from the URL's `?replicas=host:port,...`;
   * absent when there are none. They share the primary's user, password and database.
   */
  replicas?: NodeAddress[];
}

export interface NodeAddress {
  host: string;
  port: number;
}

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

/**
 * Resolves the connection the way porsager/postgres and libpq do: explicit URL parts first, then
 * the DBMS's usual environment variables (PG*, MYSQL_*), then defaults. `--db postgres` alone
 * therefore means "PostgreSQL, everything from the environment".
 */
export function resolveTarget(db: string | undefined, env: Env = process.env): Target {
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
    const [path, query] = splitQuery(rest);
    const file = path.replace(/^\/\/(?=\/)/, '');
    if (file === '' || file === '//') throw new UserError('sqlite: needs a file name', 'use e.g. sqlite:./bench.db');
    return query === undefined ? { dbms, file } : { dbms, file, ...sqliteParameters(query) };
  }
  return serverTarget(dbms, rest, text, env);
}

/** `file?query`: the query is headroom's parameters, not part of the file name. */
function splitQuery(rest: string): [string, string | undefined] {
  const at = rest.indexOf('?');
  return at < 0 ? [rest, undefined] : [rest.slice(0, at), rest.slice(at + 1)];
}

const SQLITE_HINT = 'synchronous is full, normal or off, e.g. sqlite:./bench.db?synchronous=normal; full is the default';

function sqliteParameters(query: string): { synchronous?: SqliteSynchronous } {
  const parameters = new URLSearchParams(query);
  const unknown = [...parameters.keys()].find((name) => name !== 'synchronous');
  if (unknown !== undefined) throw new UserError(`unknown SQLite URL parameter "${unknown}"`, SQLITE_HINT);
  const value = parameters.get('synchronous');
  if (value === null) return {};
  const synchronous = SQLITE_SYNCHRONOUS.find((s) => s === value.toLowerCase());
  if (synchronous === undefined) throw new UserError(`?synchronous=${value} is not a SQLite synchronous mode`, SQLITE_HINT);
  return { synchronous };
}

function serverTarget(dbms: ServerTarget['dbms'], rest: string, text: string, env: Env): ServerTarget {
  let url: URL | undefined;
  if (rest !== '' && rest !== '//') {
    try {
      url = new URL(`${dbms}:${rest.startsWith('//') ? rest : `//${rest}`}`);
    } catch {
      throw new UserError(`malformed database URL "${redact(text)}"`, URL_HINT);
    }
  }
  const fromEnv: Partial<Record<'host' | 'port' | 'user' | 'password' | 'database', string>> =
    dbms === 'postgres'
      ? { host: env['PGHOST'], port: env['PGPORT'], user: env['PGUSER'], password: env['PGPASSWORD'], database: env['PGDATABASE'] }
      : dbms === 'mariadb'
        ? { host: env['MYSQL_HOST'], port: env['MYSQL_TCP_PORT'], user: env['MYSQL_USER'], password: env['MYSQL_PWD'], database: env['MYSQL_DATABASE'] }
        : // Firebird's own tools (isql, gbak) read only these two.
          { user: env['ISC_USER'], password: env['ISC_PASSWORD'] };
  const defaults = { postgres: { port: 5432, user: 'postgres' }, mariadb: { port: 3306, user: 'root' }, firebird: { port: 3050, user: 'SYSDBA' } }[dbms];
  const portText = nonEmpty(url?.port) ?? fromEnv.port;
  const port = portText === undefined ? defaults.port : Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new UserError(`port "${portText}" in the database URL is not a TCP port`, URL_HINT);
  }
  const user = nonEmpty(decode(url?.username)) ?? fromEnv.user ?? defaults.user;
  const path = nonEmpty(decode(url?.pathname.replace(/^\//, '')));
  const database = dbms === 'firebird' ? firebirdDatabase(path, text) : (path ?? fromEnv.database ?? (dbms === 'postgres' ? user : 'test'));
  const target: ServerTarget = {
    dbms,
    host: nonEmpty(url?.hostname) ?? fromEnv.host ?? '127.0.0.1',
    port,
    user,
    password: nonEmpty(decode(url?.password)) ?? fromEnv.password,
    database,
  };
  const replicas = url?.searchParams.get('replicas');
  if (replicas !== null && replicas !== undefined) {
    if (dbms === 'firebird') throw new UserError('replicas are supported for PostgreSQL and MariaDB only', 'remove ?replicas= from the Firebird URL');
    target.replicas = parseReplicas(replicas, defaults.port);
  }
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

/** The primary and each replica as a target of its own: same user, password and database. */
export function nodeTargets(target: ServerTarget): ServerTarget[] {
  const { replicas, ...primary } = target;
  return [primary, ...(replicas ?? []).map((r) => ({ ...primary, host: r.host, port: r.port }))];
}

/**
 * A Firebird database is a file on the server or an alias from its databases.conf. After the
 * host's slash comes the file: `//var/lib/x.fdb` or `/var/lib/x.fdb` (a path with a folder is
 * taken as absolute, since the server resolves relative ones against its own working folder),
 * or a bare alias such as `employee`.
 */
function firebirdDatabase(path: string | undefined, text: string): string {
  if (path === undefined) {
    throw new UserError(`the Firebird URL "${redact(text)}" names no database`, 'add the database file or alias, e.g. firebird://SYSDBA@127.0.0.1:3050//var/lib/firebird/3.0/data/bench.fdb');
  }
  return path.includes('/') && !path.startsWith('/') ? `/${path}` : path;
}

/** The target as it may be printed or stored: never with the password. */
export function describeTarget(target: Target): string {
  if (target.dbms === 'sqlite') return `sqlite:${target.file}${target.synchronous === undefined ? '' : `?synchronous=${target.synchronous}`}`;
  const replicas = target.replicas ? `?replicas=${target.replicas.map((r) => `${r.host}:${r.port}`).join(',')}` : '';
  return `${target.dbms}://${target.user}@${target.host}:${target.port}/${target.database}${replicas}`;
}

function redact(text: string): string {
  return text.replace(/(\/\/[^:/@]*):[^@]*@/, '$1:***@');
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

function decode(value: string | undefined): string | undefined {
  return value === undefined ? undefined : decodeURIComponent(value);
}

/** A server on this machine, whose processes can be read from /proc; SQLite runs inside the client. */
export function runsOnThisMachine(target: Target): boolean {
  if (target.dbms === 'sqlite') return false;
  return ['127.0.0.1', 'localhost', '::1'].includes(target.host) || target.host.startsWith('/');
}
