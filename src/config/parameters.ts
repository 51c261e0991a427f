import { UserError } from '../errors.js';
import type { DbmsName } from '../drivers/driver.js';
import { MARIADB_TLS_PARAMETERS } from '../drivers/mariadb/tls-options.js';
import { POSTGRES_TLS_PARAMETERS } from '../drivers/postgres/tls-options.js';

/**
 * The URL parameters each DBMS takes. A parameter outside these lists is an error, never ignored:
 * a setting the user believes in (a socket, a timeout, a TLS mode) that silently does nothing
 * would make the figures describe another connection than the one asked for.
 */
const OWN_PARAMETERS: Record<DbmsName, readonly string[]> = {
  // libpq's names and meanings, so that a psql user's URL works unchanged.
  postgres: [
    ...['host', 'port', 'dbname', 'user', 'password', 'passfile', 'service', 'connect_timeout'],
    ...['application_name', 'fallback_application_name', 'options', 'target_session_attrs', 'replicas'],
  ],
  // socket and connect_timeout as the mariadb/mysql clients name them (seconds, as theirs).
  mariadb: ['socket', 'connect_timeout', 'replicas'],
  firebird: ['connect_timeout'],
  // PRAGMA synchronous on every connection (full by default).
  sqlite: ['synchronous'],
};

/**
 * TLS parameters: accepted here and handed on as given in ServerTarget.tlsParameters; the TLS code
 * that names them parses and checks them (src/drivers/postgres/tls-options.ts,
 * src/drivers/mariadb/tls-options.ts). Firebird's WireCrypt is the server's setting, not a URL
 * parameter.
 */
export const TLS_PARAMETERS: Record<DbmsName, readonly string[]> = {
  postgres: POSTGRES_TLS_PARAMETERS,
  mariadb: MARIADB_TLS_PARAMETERS,
  firebird: [],
  sqlite: [],
};

/** libpq parameters headroom does not honour yet: named as such, not as unknown. */
const LIBPQ_NOT_SUPPORTED = [
  'hostaddr',
  'sslpassword',
  'sslsni',
  'sslcompression',
  'sslcertmode',
  'sslkeylogfile',
  'ssl_min_protocol_version',
  'ssl_max_protocol_version',
  'requiressl',
  'client_encoding',
  'keepalives',
  'keepalives_idle',
  'keepalives_interval',
  'keepalives_count',
  'tcp_user_timeout',
  'replication',
  'gssencmode',
  'krbsrvname',
  'gsslib',
  'gssdelegation',
  'requirepeer',
  'require_auth',
  'load_balance_hosts',
];

/** The mariadb and mysql clients' TLS options headroom does not honour yet. */
const MARIADB_CLIENT_NOT_SUPPORTED = ['ssl-capath', 'ssl-cipher', 'tls-version', 'tls-ciphersuites', 'ssl-fp', 'ssl-fplist', 'ssl-passphrase', 'ssl-fips-mode'];

/** Parameters of the DBMS's usual client that headroom does not honour yet, by that client's name. */
const NOT_SUPPORTED_YET: Record<DbmsName, { client: string; names: readonly string[] } | undefined> = {
  postgres: { client: 'libpq', names: LIBPQ_NOT_SUPPORTED },
  mariadb: { client: 'mariadb client', names: MARIADB_CLIENT_NOT_SUPPORTED },
  firebird: undefined,
  sqlite: undefined,
};

const DBMS_NAMES: Record<DbmsName, string> = { postgres: 'PostgreSQL', mariadb: 'MariaDB', firebird: 'Firebird', sqlite: 'SQLite' };

export interface SortedParameters {
  /** Parameters headroom's own resolution reads (the last value when one is given twice, as libpq). */
  own: Map<string, string>;
  /** TLS parameters as given, for the TLS code. */
  tlsParameters: Record<string, string>;
}

/** Splits `params` into headroom's own and TLS ones; any other is a UserError naming it. `where` says where they were read. */
export function sortParameters(dbms: DbmsName, params: readonly (readonly [string, string])[], where = 'the database URL'): SortedParameters {
  const own = new Map<string, string>();
  const tlsParameters: Record<string, string> = {};
  for (const [name, value] of params) {
    if (OWN_PARAMETERS[dbms].includes(name)) own.set(name, value);
    else if (TLS_PARAMETERS[dbms].includes(name)) tlsParameters[name] = value;
    else throw unknownParameter(dbms, name, where);
  }
  return { own, tlsParameters };
}

export function unknownParameter(dbms: DbmsName, name: string, where: string): UserError {
  const known = [...OWN_PARAMETERS[dbms], ...TLS_PARAMETERS[dbms]];
  const takes = known.length === 0 ? `${DBMS_NAMES[dbms]} URLs take no parameters` : `${DBMS_NAMES[dbms]} URLs take ${known.join(', ')}`;
  const notYet = NOT_SUPPORTED_YET[dbms];
  if (notYet?.names.includes(name)) {
    return new UserError(`the ${notYet.client} parameter "${name}" in ${where} is not supported by headroom yet`, `remove it; ${takes}`);
  }
  return new UserError(`unknown parameter "${name}" in ${where}`, `remove it or check its spelling; ${takes}`);
}

/**
 * connect_timeout in whole seconds, per host tried, as libpq and the mariadb client read it; 0 (or less) waits without
 * limit. The limit is Node's largest timer, about 24 days.
 */
export function connectTimeoutMs(text: string): number {
  const trimmed = text.trim();
  if (!/^[-+]?\d+$/.test(trimmed)) {
    throw new UserError(`connect_timeout "${text}" is not a whole number of seconds`, 'use e.g. connect_timeout=10 (0 waits without limit)');
  }
  const seconds = Number(trimmed);
  return seconds <= 0 ? NO_TIMEOUT_MS : Math.min(seconds * 1000, NO_TIMEOUT_MS);
}

const NO_TIMEOUT_MS = 2 ** 31 - 1;
