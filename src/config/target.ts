import { UserError } from '../errors.js';
import type { DbmsName } from '../drivers/driver.js';
import { TARGETS } from '../drivers/targets.js';
import { redactUrl } from './redact.js';
import { conninfoPairs, conninfoUrl, isConninfo } from './conninfo.js';
import { sortParameters } from './parameters.js';
import { URL_HINT, type Env, type TargetGrammar } from './target-grammar.js';
import { DEFAULT_DB, type ServerTarget, type Target } from './target-types.js';

export * from './target-types.js';

/** The URL's scheme names the DBMS; each DBMS's part of the URL is its driver's (src/drivers/targets.ts). */
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

/** The DBMS a scheme names; undefined for any other word (including Object's own keys). */
function schemeDbms(scheme: string): DbmsName | undefined {
  const name = scheme.toLowerCase();
  return Object.hasOwn(SCHEMES, name) ? SCHEMES[name] : undefined;
}

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
 * therefore means "PostgreSQL, everything from the environment". Each DBMS's grammar, variables
 * and defaults are in its driver's folder (src/drivers/<dbms>/target.ts).
 */
export function resolveTarget(db: string | undefined, env: Env = process.env, warn: (message: string) => void = warnOnce): Target {
  const given = db ?? env['DATABASE_URL'] ?? DEFAULT_DB;
  if (isConninfo(given)) return resolveConninfo(given, env, warn);
  // A bare server name ("postgres", "mariadb") means that DBMS with everything from the environment.
  const named = schemeDbms(given);
  const text = /^[a-z]+$/i.test(given) && (named === undefined || TARGETS[named].bareName) ? `${given}:` : given;
  const match = /^([a-z]+):(.*)$/i.exec(text);
  const dbms = match ? schemeDbms(match[1]!) : undefined;
  if (!match || !dbms) {
    throw new UserError(`cannot tell which DBMS "${redactUrl(text)}" names`, URL_HINT);
  }
  return TARGETS[dbms].resolve(match[2]!, text, env, warn);
}

/**
 * A libpq connection string: PostgreSQL's, as only its clients read that form. Each key must be a
 * parameter a postgres:// URL takes (a misspelt one is refused by name, not ignored); the string
 * is then that URL.
 */
function resolveConninfo(text: string, env: Env, warn: (message: string) => void): Target {
  const pairs = conninfoPairs(text);
  if (pairs.length === 0) throw new UserError('the connection string holds no key=value pair', URL_HINT);
  sortParameters('postgres', pairs, 'the connection string');
  const url = conninfoUrl(pairs);
  return TARGETS.postgres.resolve(url.slice('postgres:'.length), text, env, warn);
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
 * The target as it may be printed or stored: never with the password; with what changes the
 * connection's behaviour (a socket, fallback hosts, startup options, target_session_attrs).
 */
export function describeTarget(target: Target): string {
  const grammar: TargetGrammar = TARGETS[target.dbms];
  return grammar.describe(target);
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
