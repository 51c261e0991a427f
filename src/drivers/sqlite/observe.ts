import type { Connection } from '../driver.js';
import { tableNameList, type DbmsObservation, type SizeSnapshot } from '../observation.js';

/** SQLite runs inside the client: sizes from its pragmas, and nothing to wait on but the file lock. */
export function observeSqlite(conn: Connection): DbmsObservation {
  return {
    serverProcessNames: [],
    async sizes(only): Promise<SizeSnapshot> {
      const [[pages]] = (await conn.query('PRAGMA page_count')) as [[number]];
      const [[pageSize]] = (await conn.query('PRAGMA page_size')) as [[number]];
      let tables: SizeSnapshot['tables'] = [];
      try {
        // dbstat exists only when SQLite was built with SQLITE_ENABLE_DBSTAT_VTAB.
        // dbstat lists each b-tree (a table, each index) by its own name: summed under the table's.
        const rows = await conn.query(
          `SELECT s.tbl_name, SUM(d.pgsize) FROM dbstat d JOIN sqlite_schema s ON s.name = d.name
            WHERE s.tbl_name NOT LIKE 'sqlite_%' ${only ? `AND lower(s.tbl_name) IN (${tableNameList(only)})` : ''} GROUP BY s.tbl_name ORDER BY 2 DESC LIMIT 20`,
        );
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
