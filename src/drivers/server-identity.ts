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
    // A MySQL server answers @@server_uuid; MariaDB refuses the name (unknown system variable).
    const uuid = await conn.query('SELECT @@server_uuid').then(
      (rows) => rows[0]?.[0],
      () => undefined,
    );
    if (typeof uuid === 'string' && uuid !== '') return { systemId: uuid };
  }
  const [row] = await conn.query(query.sql);
  return row ? { systemId: query.identity(row) } : undefined;
}
