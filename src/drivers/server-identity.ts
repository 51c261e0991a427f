import type { Connection, DbmsName } from './driver.js';

/**
 * What identifies a database server (not a database): PostgreSQL's system identifier, fixed at
 * initdb and kept by a physical copy's replicas but not by a logical dump restored elsewhere;
 * MariaDB's @@server_uuid where the server has one (MySQL), else its host name and port. A capture
 * records its server's, so that a replay can refuse to run the load again on the same server.
 */
export interface ServerIdentity {
  systemId: string;
}

const QUERIES: Partial<Record<DbmsName, { sql: string; identity(row: unknown[]): string }>> = {
  postgres: { sql: 'SELECT system_identifier::text FROM pg_control_system()', identity: (row) => String(row[0]) },
  mariadb: {
    // MariaDB has no @@server_uuid (MySQL has): the host name and port name the server there.
    sql: 'SELECT @@hostname, @@port',
    identity: (row) => `${String(row[0])}:${String(row[1])}`,
  },
};

/** The connected server's identity, or undefined for a DBMS that has none to give (SQLite, Firebird). */
export async function serverIdentity(dbms: DbmsName, conn: Connection): Promise<ServerIdentity | undefined> {
  const query = QUERIES[dbms];
  if (!query) return undefined;
  if (dbms === 'mariadb') {
    // A MySQL server has server_uuid; MariaDB has no such variable, and SHOW answers it with no row rather than an error.
    const [uuid] = await conn.query("SHOW GLOBAL VARIABLES LIKE 'server_uuid'");
    if (typeof uuid?.[1] === 'string' && uuid[1] !== '') return { systemId: uuid[1] };
  }
  const [row] = await conn.query(query.sql);
  return row ? { systemId: query.identity(row) } : undefined;
}
