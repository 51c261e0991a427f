import type { Connection } from '../driver.js';
import { tableNameList, type DbmsObservation, type SizeSnapshot, type StatementStat } from '../observation.js';
import { readPidFile } from '../../common/proc.js';
import { countersById, diffStatements, toCounters, type StatementCounters } from '../statement-diff.js';

const DIGESTS = `SELECT DIGEST, COUNT_STAR, SUM_TIMER_WAIT / 1e9, SUM_ROWS_AFFECTED + SUM_ROWS_SENT, DIGEST_TEXT
  FROM performance_schema.events_statements_summary_by_digest WHERE SCHEMA_NAME = DATABASE()`;

/** MariaDB's information_schema sizes and process list, and performance_schema digests when it is on. */
export function observeMariadb(conn: Connection): DbmsObservation {
  let baseline = new Map<string, StatementCounters>();
  const read = async (): Promise<StatementCounters[]> => toCounters(await conn.query(DIGESTS));
  return {
    serverProcessNames: ['mariadbd', 'mysqld'],
    async serverPid() {
      // One process; its pid file is readable where the server runs on this machine.
      const [[file]] = (await conn.query('SELECT @@pid_file')) as [[string]];
      return readPidFile(String(file));
    },
    async sizes(only): Promise<SizeSnapshot> {
      const tables = await conn.query(
        `SELECT TABLE_NAME, DATA_LENGTH + INDEX_LENGTH, TABLE_ROWS, DATA_LENGTH, INDEX_LENGTH FROM information_schema.TABLES
          WHERE TABLE_SCHEMA = DATABASE() ${only ? `AND LOWER(TABLE_NAME) IN (${tableNameList(only)})` : ''} ORDER BY 2 DESC LIMIT 20`,
      );
      // InnoDB's DATA_LENGTH is the clustered primary key with the rows; INDEX_LENGTH the secondary indexes.
      const list = tables.map(([name, bytes, rows, data, index]) => ({
        name: String(name),
        bytes: Number(bytes),
        rows: rows === null ? null : Number(rows),
        deadRows: null,
        tableBytes: Number(data),
        indexBytes: Number(index),
      }));
      return { databaseBytes: list.reduce((n, t) => n + t.bytes, 0), tables: list };
    },
    async waits() {
      // Without performance_schema the process list's STATE says what each session is doing. Only
      // the sessions in this schema: other schemas' work on the same server is not the run's.
      const rows = await conn.query(
        `SELECT COALESCE(NULLIF(STATE, ''), COMMAND), COUNT(*) FROM information_schema.PROCESSLIST
          WHERE COMMAND NOT IN ('Sleep', 'Daemon') AND ID <> CONNECTION_ID() AND DB = DATABASE() GROUP BY 1`,
      );
      return Object.fromEntries(rows.map(([state, count]) => [String(state), Number(count)]));
    },
    async startStatements() {
      const [[enabled]] = (await conn.query('SELECT @@performance_schema')) as [[unknown]];
      if (Number(enabled) !== 1) return 'performance_schema is off: start MariaDB with performance_schema=ON to see statement statistics';
      baseline = countersById(await read());
      return undefined;
    },
    async topStatements(limit): Promise<StatementStat[]> {
      return diffStatements(baseline, await read(), limit);
    },
  };
}
