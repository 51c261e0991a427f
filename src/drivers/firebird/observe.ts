import type { Connection } from '../driver.js';
import type { DbmsObservation, SizeSnapshot } from '../observation.js';
import { parentPid, processName } from '../../common/proc.js';

const SERVER_NAMES = ['firebird', 'fb_smp_server', 'fb_inet_server'];

/**
 * The process whose children and itself are the server's (see serverPid), from the one that
 * serves this attachment; undefined where that cannot be told, and every process named as
 * Firebird's is read instead.
 */
export function firebirdRoot(attachmentPid: number, servesOthers: boolean): number | undefined {
  const name = processName(attachmentPid);
  if (name === undefined || !SERVER_NAMES.includes(name)) return undefined;
  const parent = parentPid(attachmentPid);
  const parentName = parent === undefined ? undefined : processName(parent);
  // Classic under its listener: one process an attachment, each a child of the listening one.
  if (parentName !== undefined && SERVER_NAMES.includes(parentName)) return parent;
  // SuperServer: one process, whose threads serve every attachment, the cache writer's among them.
  return servesOthers ? attachmentPid : undefined;
}

/** Firebird's monitoring tables (MON$): the database's size and what the attachments' statements are doing. */
export function observeFirebird(conn: Connection): DbmsObservation {
  // The observer only reads: a read-write transaction start rewrites the header page, once a second,
  // which would show in the run's server writes.
  conn.declareReadOnly?.(true);
  return {
    serverProcessNames: SERVER_NAMES,
    /**
     * MON$SERVER_PID: the process serving this attachment. A system attachment (the cache writer,
     * the garbage collector) served by the same process makes it SuperServer's one process. Classic
     * started by inetd has no listener of its own to be the parent, and neither sign: its processes
     * are found by name, as before. MON$ATTACHMENTS shows a user who is not an administrator only
     * their own attachments, so SuperServer's too when such a user observes.
     */
    async serverPid() {
      const [[pid, shared]] = (await conn.query(
        `SELECT a.mon$server_pid,
                (SELECT COUNT(*) FROM mon$attachments s WHERE s.mon$system_flag = 1 AND s.mon$server_pid = a.mon$server_pid)
           FROM mon$attachments a WHERE a.mon$attachment_id = CURRENT_CONNECTION`,
      )) as [[number, number]];
      return firebirdRoot(Number(pid), Number(shared) > 0);
    },
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
