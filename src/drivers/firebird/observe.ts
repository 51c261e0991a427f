import type { Connection } from '../driver.js';
import type { DbmsObservation, SizeSnapshot } from '../observation.js';

/** Firebird's monitoring tables (MON$): the database's size and what the attachments' statements are doing. */
export function observeFirebird(conn: Connection): DbmsObservation {
  // The observer only reads: a read-write transaction start rewrites the header page, once a second,
  // which would show in the run's server writes.
  conn.declareReadOnly?.(true);
  return {
    serverProcessNames: ['firebird', 'fb_smp_server', 'fb_inet_server'],
    async sizes(): Promise<SizeSnapshot> {
      const [[pages, pageSize]] = (await conn.query('SELECT mon$pages, mon$page_size FROM mon$database')) as [[number, number]];
      // Firebird 3 keeps no per-table sizes short of reading every page (gstat).
      return { databaseBytes: Number(pages) * Number(pageSize), tables: [] };
    },
    async waits() {
      // MON$STATE: 1 = running, 2 = stalled (waiting for the client or a lock).
      const rows = await conn.query(
        `SELECT CASE mon$state WHEN 1 THEN 'running' WHEN 2 THEN 'stalled' ELSE 'idle' END, COUNT(*) FROM mon$statements
          WHERE mon$attachment_id <> CURRENT_CONNECTION AND mon$state > 0 GROUP BY 1`,
      );
      return Object.fromEntries(rows.map(([state, count]) => [String(state).trim(), Number(count)]));
    },
    async startStatements() {
      return 'Firebird 3 keeps no per-statement totals; its trace manager (fbtracemgr) can log them';
    },
    async topStatements() {
      return [];
    },
    /**
     * The next transaction number (every start takes one) and the database's page I/O since it was
     * opened (MON$IO_STATS of MON$DATABASE): reads and writes go to disk, fetches and marks are
     * pages looked at and changed in the cache. The observer's own attachment keeps it open.
     */
    async activity() {
      const [[next, reads, writes, fetches, marks]] = (await conn.query(
        `SELECT d.mon$next_transaction, i.mon$page_reads, i.mon$page_writes, i.mon$page_fetches, i.mon$page_marks
           FROM mon$database d JOIN mon$io_stats i ON i.mon$stat_id = d.mon$stat_id`,
      )) as [[number, number, number, number, number]];
      return {
        transactions_started: Number(next),
        page_reads: Number(reads),
        page_writes: Number(writes),
        page_fetches: Number(fetches),
        page_marks: Number(marks),
      };
    },
  };
}
