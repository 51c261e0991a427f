import type { Connection } from '../driver.js';
import { tableNameList, type DbmsObservation, type SizeSnapshot, type StatementStat } from '../observation.js';
import { parentPid } from '../../common/proc.js';
import { countersById, diffStatements, toCounters, type StatementCounters } from '../statement-diff.js';

const STATEMENTS = `SELECT queryid::text, calls, total_exec_time, rows, query FROM pg_stat_statements
  WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`;
/** With track_planning on, total_plan_time counts planning apart from execution (off, it stays 0 and is not read). */
const STATEMENTS_WITH_PLANNING = STATEMENTS.replace('query FROM', 'query, total_plan_time FROM');

/** PostgreSQL's statistics views: sizes, pg_stat_activity waits, pg_stat_statements. */
export function observePostgres(conn: Connection): DbmsObservation {
  let baseline = new Map<string, StatementCounters>();
  let tracksPlanning = false;
  const read = async (): Promise<StatementCounters[]> => toCounters(await conn.query(tracksPlanning ? STATEMENTS_WITH_PLANNING : STATEMENTS));
  return {
    serverProcessNames: ['postgres', 'postmaster'],
    async serverPid() {
      // Every backend is a child of the postmaster: this connection's backend names it.
      const [[backend]] = (await conn.query('SELECT pg_backend_pid()')) as [[number]];
      return parentPid(Number(backend));
    },
    async sizes(only): Promise<SizeSnapshot> {
      const [[database]] = (await conn.query('SELECT pg_database_size(current_database())')) as [[unknown]];
      const tables = await conn.query(
        `SELECT relname, pg_total_relation_size(relid), n_live_tup, n_dead_tup, pg_relation_size(relid), pg_indexes_size(relid)
           FROM pg_stat_user_tables ${only ? `WHERE lower(relname) IN (${tableNameList(only)})` : ''} ORDER BY 2 DESC LIMIT 20`,
      );
      return {
        databaseBytes: Number(database),
        tables: tables.map(([name, bytes, rows, dead, table, indexes]) => ({
          name: String(name),
          bytes: Number(bytes),
          rows: Number(rows),
          deadRows: Number(dead),
          tableBytes: Number(table),
          indexBytes: Number(indexes),
        })),
      };
    },
    async lockHolders(waiting) {
      const rows = await conn.query(
        `SELECT pid, COALESCE(NULLIF(application_name, ''), usename), state, EXTRACT(EPOCH FROM now() - xact_start)::int
           FROM pg_stat_activity WHERE pid = ANY(pg_blocking_pids($1)) ORDER BY pid`,
        [waiting],
      );
      // Who and for how long, never what it runs: another session's text may hold a secret.
      return rows.map(([pid, who, state, seconds]) => {
        const open = seconds === null ? '' : `, its transaction open for ${Number(seconds)} s`;
        return `pid ${Number(pid)} (${String(who ?? 'unknown')}: ${String(state ?? 'state unknown')}${open})`;
      });
    },
    async waits() {
      // An active session without a wait event is running on a CPU (pg_stat_activity docs). Only
      // this database's sessions: other databases' work on the same server is not the run's.
      const rows = await conn.query(
        `SELECT COALESCE(wait_event_type || ':' || wait_event, 'CPU'), count(*)::int FROM pg_stat_activity
          WHERE state = 'active' AND backend_type = 'client backend' AND pid <> pg_backend_pid() AND datname = current_database() GROUP BY 1`,
      );
      return Object.fromEntries(rows.map(([event, count]) => [String(event), Number(count)]));
    },
    async startStatements() {
      const [[installed]] = (await conn.query("SELECT count(*)::int FROM pg_extension WHERE extname = 'pg_stat_statements'")) as [[number]];
      if (installed === 0) {
        return 'pg_stat_statements is not installed: add it to shared_preload_libraries, restart, and CREATE EXTENSION pg_stat_statements';
      }
      try {
        const [[planning]] = (await conn.query("SELECT current_setting('pg_stat_statements.track_planning', true)")) as [[string | null]];
        tracksPlanning = planning === 'on';
        // A snapshot, not a reset: the user's own statistics stay as they were.
        baseline = countersById(await read());
        return undefined;
      } catch (error) {
        return `pg_stat_statements cannot be read (${(error as Error).message}): add it to shared_preload_libraries and restart`;
      }
    },
    async topStatements(limit): Promise<StatementStat[]> {
      return diffStatements(baseline, await read(), limit);
    },
  };
}
