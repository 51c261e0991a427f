import type { Driver, DbmsName } from './driver.js';
import type { Target } from '../config/target.js';

export interface DriverDescription {
  dbms: DbmsName;
  url: string;
  /** The client library that speaks to the DBMS. */
  client: string;
  notes: string;
}

export const DRIVERS: readonly DriverDescription[] = [
  { dbms: 'sqlite', url: 'sqlite:./file.db', client: 'npm package better-sqlite3', notes: 'embedded default; WAL journal; no server needed' },
  {
    dbms: 'postgres',
    url: 'postgres://user:password@host:5432/database',
    client: "headroom's own protocol client (src/drivers/postgres/wire)",
    notes:
      'prepared statements, COPY for loading; trust, password, MD5 and SCRAM-SHA-256 logins; URL parameters as in libpq; PG* variables, the service file and the password file fill in what the URL leaves out',
  },
  {
    dbms: 'mariadb',
    url: 'mariadb://user:password@host:3306/database (or mysql://)',
    client: "headroom's own protocol client (src/drivers/mariadb/wire)",
    notes:
      'binary-protocol prepared statements (without repeated metadata on MariaDB 10.6+), multi-row INSERT for loading; mysql_native_password and caching_sha2_password (fast path) logins; ?socket= and ?connect_timeout=; MYSQL_HOST, MYSQL_TCP_PORT, MYSQL_UNIX_PORT, MYSQL_USER, MYSQL_PWD, MYSQL_DATABASE fill in the rest',
  },
  {
    dbms: 'firebird',
    url: 'firebird://user:password@host:3050//path/file.fdb',
    client: "headroom's own protocol client (src/drivers/firebird/wire; node-firebird only creates and drops database files)",
    notes:
      'Firebird 3 and later (protocols 13, 16, 17), Srp, Srp256 and Legacy_Auth logins, WireCrypt; a path with folders is absolute (firebird://SYSDBA@host/var/lib/firebird/data/bench.fdb)',
  },
];

/**
 * The target's driver, its DBMS's code loaded on first use: a run against PostgreSQL loads none of
 * the MariaDB, Firebird or SQLite clients (nor better-sqlite3). Awaited before a run's measured
 * period, never within it.
 */
export async function loadDriver(target: Target): Promise<Driver> {
  switch (target.dbms) {
    case 'sqlite':
      return new (await import('./sqlite/driver.js')).SqliteDriver(target);
    case 'postgres':
      return new (await import('./postgres/driver.js')).PostgresDriver(target);
    case 'mariadb':
      return new (await import('./mariadb/driver.js')).MariadbDriver(target);
    case 'firebird':
      return new (await import('./firebird/driver.js')).FirebirdDriver(target);
  }
}
