import { homedir } from 'node:os';
import path from 'node:path';
import { UserError } from '../../errors.js';
import { connectTimeoutMs, sortParameters } from '../../config/parameters.js';
import { TARGET_SESSION_ATTRS, type FallbackHost, type ServerTarget, type TargetSessionAttrs } from '../../config/target-types.js';
import { nonEmpty, type UrlParts } from '../../config/url.js';
import { serverGrammar } from '../../config/target-grammar.js';
import { postgresTlsSettings } from './tls-options.js';
import { passwordFromPgpass } from './pgpass.js';
import { readService } from './service-file.js';

export { TARGET_SESSION_ATTRS, type TargetSessionAttrs };

type Env = Readonly<Record<string, string | undefined>>;

/** libpq's environment variable for each parameter (PGSERVICE is read apart: it names the service file's group). */
const ENVIRONMENT: Record<string, string> = {
  host: 'PGHOST',
  port: 'PGPORT',
  dbname: 'PGDATABASE',
  user: 'PGUSER',
  password: 'PGPASSWORD',
  passfile: 'PGPASSFILE',
  connect_timeout: 'PGCONNECT_TIMEOUT',
  application_name: 'PGAPPNAME',
  options: 'PGOPTIONS',
  target_session_attrs: 'PGTARGETSESSIONATTRS',
};

const DEFAULT_HOST = '127.0.0.1';
const DEFAULT_PORT = 5432;

/**
 * PostgreSQL's URLs as libpq reads them (config/target.ts picks this by the scheme). The TLS code
 * reads its parameters and the PGSSL* variables (tls-options.ts); absent, libpq's sslmode=prefer.
 */
export const POSTGRES_TARGET = serverGrammar({
  dbms: 'postgres',
  defaultPort: DEFAULT_PORT,
  fields: (url, own, tlsParameters, _text, env, warn) => resolvePostgres(url, own, tlsParameters, env, warn),
  tls: (given, env) => postgresTlsSettings(given, env),
});

/** PostgreSQL's part of a target: what resolveTarget cannot resolve the same way for every DBMS. */
export type PostgresTarget = Omit<ServerTarget, 'dbms' | 'replicas'>;

/**
 * Resolves a PostgreSQL connection as libpq does, so that a psql user's URL, service file,
 * password file and environment work unchanged: each parameter from the URL (its query
 * parameters over its host, user and path), else from the connection service (`service=` or
 * PGSERVICE), else from its PG* environment variable, else the default. The password, when none
 * of these gives one, comes from the password file (passfile, PGPASSFILE or ~/.pgpass), per host.
 * `own` and `tlsParameters` are the URL's query parameters, already sorted (config/parameters.ts).
 */
export function resolvePostgres(
  url: UrlParts | undefined,
  own: ReadonlyMap<string, string>,
  tlsParameters: Record<string, string>,
  env: Env,
  warn: (message: string) => void,
): PostgresTarget {
  const given = new Map<string, string>();
  if (url?.user !== undefined) given.set('user', url.user);
  if (url?.password !== undefined) given.set('password', url.password);
  if (url?.path !== undefined) given.set('dbname', url.path);
  if (url && url.hosts.length > 0) {
    given.set('host', url.hosts.map((h) => h.host ?? '').join(','));
    if (url.hosts.some((h) => h.port !== undefined)) given.set('port', url.hosts.map((h) => h.port ?? '').join(','));
  }
  for (const [name, value] of own) if (name !== 'replicas') given.set(name, value);
  const home = nonEmpty(env['HOME']) ?? homedir();
  const service = given.get('service') ?? nonEmpty(env['PGSERVICE']);
  if (service !== undefined) {
    const { file, entries } = readService(service, env, home);
    for (const [key, value, line] of entries) {
      const where = `service "${service}" (${file}, line ${line})`;
      if (key === 'replicas') throw new UserError(`unknown parameter "replicas" in ${where}`, 'give ?replicas= in the database URL');
      const sorted = sortParameters('postgres', [[key, value]], where);
      if (sorted.own.has(key) && !given.has(key)) given.set(key, value);
      if (key in sorted.tlsParameters) tlsParameters[key] ??= value;
    }
  }
  for (const [name, variable] of Object.entries(ENVIRONMENT)) {
    const value = nonEmpty(env[variable]);
    if (value !== undefined && !given.has(name)) given.set(name, value);
  }

  const hostGiven = given.has('host');
  const hosts = (given.get('host') ?? DEFAULT_HOST).split(',').map((h) => h.trim() || DEFAULT_HOST);
  const ports = parsePorts(given.get('port'), hosts.length);
  const user = given.get('user') ?? 'postgres';
  const database = given.get('dbname') ?? user;
  let password = given.get('password');
  let passwordFile: string | undefined;
  const passfile = given.get('passfile') ?? path.join(home, '.pgpass');
  const fromFile = (host: string, port: number): string | undefined =>
    // With no host anywhere, libpq would use its default socket, which its password file calls localhost.
    passwordFromPgpass(passfile, { host: hostGiven ? host : 'localhost', port, database, user }, warn);
  if (password === undefined) {
    password = fromFile(hosts[0]!, ports[0]!);
    if (password !== undefined) passwordFile = passfile;
  }
  const target: PostgresTarget = { host: hosts[0]!, port: ports[0]!, user, password, database };
  if (hosts.length > 1) {
    target.fallbacks = hosts.slice(1).map((host, i): FallbackHost => {
      const port = ports[i + 1]!;
      // A given password is every host's (target.password); the password file may hold one per host.
      const own = given.has('password') ? undefined : fromFile(host, port);
      return own === undefined ? { host, port } : { host, port, password: own };
    });
  }
  if (passwordFile !== undefined) target.passwordFile = passwordFile;
  const timeout = given.get('connect_timeout');
  if (timeout !== undefined) target.connectTimeoutMs = connectTimeoutMs(timeout);
  const applicationName = given.get('application_name') ?? given.get('fallback_application_name');
  if (applicationName !== undefined) target.applicationName = applicationName;
  const options = given.get('options');
  if (options !== undefined) target.options = options;
  const attrs = given.get('target_session_attrs');
  if (attrs !== undefined) {
    if (!(TARGET_SESSION_ATTRS as readonly string[]).includes(attrs)) {
      throw new UserError(`target_session_attrs "${attrs}" is not one libpq knows`, `use one of ${TARGET_SESSION_ATTRS.join(', ')}`);
    }
    if (attrs !== 'any') target.targetSessionAttrs = attrs as TargetSessionAttrs;
  }
  if (Object.keys(tlsParameters).length > 0) target.tlsParameters = tlsParameters;
  return target;
}

/** libpq: one port for every host, or one per host; an empty one is the default. */
function parsePorts(text: string | undefined, hosts: number): number[] {
  const ports = (text ?? '').split(',').map((p) => {
    const trimmed = p.trim();
    const port = trimmed === '' ? DEFAULT_PORT : Number(trimmed);
    if (!/^\d*$/.test(trimmed) || port < 1 || port > 65535) {
      throw new UserError(`port "${p}" is not a TCP port`, 'give a number from 1 to 65535 in the URL, ?port= or PGPORT');
    }
    return port;
  });
  if (ports.length === 1) return new Array<number>(hosts).fill(ports[0]!);
  if (ports.length !== hosts) {
    throw new UserError(
      `could not match ${ports.length} port numbers to ${hosts} hosts`,
      'give one port for all hosts, or one per host (host=a,b&port=5432,5433)',
    );
  }
  return ports;
}
