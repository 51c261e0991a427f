import type { Connection } from '../driver.js';
import type { DbmsObservation, SizeSnapshot } from '../../observe/observation.js';

/** SQLite runs inside the client: sizes from its pragmas, and nothing to wait on but the file lock. */
export function observeSqlite(conn: Connection): DbmsObservation {
  return {
    serverProcessNames: [],
    async sizes(): Promise<SizeSnapshot> {
      const [[pages]] = (await conn.query('PRAGMA page_count')) as [[number]];
      const [[pageSize]] = (await conn.query('PRAGMA page_size')) as [[number]];
      let tables: SizeSnapshot['tables'] = [];
      try {
        // dbstat exists only when SQLite was built with SQLITE_ENABLE_DBSTAT_VTAB.
        const rows = await conn.query("SELECT name, SUM(pgsize) FROM dbstat WHERE name NOT LIKE 'sqlite_%' GROUP BY name ORDER BY 2 DESC LIMIT 20");
        tables = rows.map(([name, bytes]) => ({ name: String(name), bytes: Number(bytes), rows: null, deadRows: null }));
      } catch {
        // No per-table sizes on this build.
      }
      return { databaseBytes: pages * pageSize, tables };
    },
    async waits() {
      return undefined;
    },
    async startStatements() {
      return 'SQLite keeps no statement statistics';
    },
    async topStatements() {
      return [];
    },
  };
}
