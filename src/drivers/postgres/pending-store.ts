import type { Connection, PendingChange, PendingRecord, PendingStore } from '../driver.js';
import { parsePendingRecords } from '../pending-records.js';
import { pgLiteral } from './settings.js';

/**
 * The record lives in postgresql.auto.conf as the custom parameter headroom.pending_settings,
 * beside the settings ALTER SYSTEM changed: cluster-wide as they are, surviving restarts as they
 * do, and visible from every database. It is read back from pg_file_settings (the file only a
 * superuser writes), never from current_setting, which a role or database could set to anything.
 * A change to a table alone (the experiments' autovacuum hold) is recorded in the table's comment
 * instead: its owner may write that, and it lives and dies with the table.
 */
const PARAMETER = 'headroom.pending_settings';
const FROM_AUTO_CONF = `sourcefile LIKE '%postgresql.auto.conf'`;

async function recordsInFile(conn: Connection): Promise<PendingRecord[]> {
  const rows = await conn.query(`SELECT setting FROM pg_file_settings WHERE name = ? AND ${FROM_AUTO_CONF} ORDER BY seqno DESC LIMIT 1`, [PARAMETER]);
  return parsePendingRecords(rows[0]?.[0] === undefined || rows[0][0] === null ? '' : String(rows[0][0]));
}

const COMMENT_PREFIX = `${PARAMETER} `;

/** Records in table comments of this database, each about its own table only. */
async function recordsInComments(conn: Connection): Promise<PendingRecord[]> {
  const rows = await conn.query(
    "SELECT c.relname, d.description FROM pg_description d JOIN pg_class c ON c.oid = d.objoid WHERE d.classoid = 'pg_class'::regclass AND d.objsubid = 0 AND d.description LIKE ?",
    [`${COMMENT_PREFIX}%`],
  );
  return rows.flatMap(([table, text]) =>
    parsePendingRecords(String(text).slice(COMMENT_PREFIX.length)).filter((r) => r.changes.every((c) => c.kind === 'table' && c.table === table)),
  );
}

/**
 * The hold on a setting is a session-level advisory lock (two keys: headroom's own, then the
 * name's hash), which the server drops when the session ends however the client ends. Advisory
 * locks belong to one database, while ALTER SYSTEM changes the cluster: a command in another
 * database is found by its record instead (src/session/pending-settings.ts, holdSettings).
 */
const HOLD_KEY = 0x6864726d;
const HOLD_ARGS = `${HOLD_KEY}, hashtext(lower(?))`;

/** holder() of the session holding the lock, as pg_locks and pg_stat_activity tell it. */
const LOCK_HOLDER = `SELECT l.pid, a.backend_start::text FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
  WHERE l.locktype = 'advisory' AND l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND l.classid = ${HOLD_KEY}::oid AND l.objid = hashtext(lower(?))::oid AND l.objsubid = 2`;

function holderPid(holder: string): number {
  return Number(holder.slice(0, holder.indexOf('@')));
}

async function writeRecords(conn: Connection, records: PendingRecord[]): Promise<void> {
  // ALTER SYSTEM of PostgreSQL before 17 takes a custom parameter only once the session knows it.
  await conn.query(`SELECT set_config('${PARAMETER}', '', false)`);
  await conn.query(records.length === 0 ? `ALTER SYSTEM RESET ${PARAMETER}` : `ALTER SYSTEM SET ${PARAMETER} = ${pgLiteral(JSON.stringify(records))}`);
  await conn.query('SELECT pg_reload_conf()');
}

export const postgresPendingStore: PendingStore = {
  async holder(conn) {
    const [[pid, started]] = (await conn.query('SELECT pg_backend_pid(), backend_start::text FROM pg_stat_activity WHERE pid = pg_backend_pid()')) as [
      [number, string],
    ];
    return `${pid}@${started}`;
  },

  async holderAlive(conn, holder) {
    const at = holder.indexOf('@');
    const pid = Number(holder.slice(0, at));
    if (!Number.isInteger(pid)) return false;
    // backend_start is hidden (null) from a role that may not see other roles' sessions: taken as alive.
    const sql = 'SELECT count(*) FROM pg_stat_activity WHERE pid = ?::int AND (backend_start IS NULL OR backend_start::text = ?)';
    const [[count]] = (await conn.query(sql, [pid, holder.slice(at + 1)])) as [[number]];
    return Number(count) > 0;
  },

  async read(conn) {
    // The cheap look every command takes; the file is read only when it says there is something.
    const [[value]] = (await conn.query(`SELECT current_setting('${PARAMETER}', true)`)) as [[string | null]];
    const inComments = await recordsInComments(conn);
    if (value === null || value === '' || value === '[]') return inComments;
    try {
      return [...(await recordsInFile(conn)), ...inComments];
    } catch (error) {
      return `the server has a record of headroom changes left in place (${PARAMETER}), but this role cannot read pg_file_settings (${(error as Error).message})`;
    }
  },

  async put(conn, record) {
    const tables = new Set(record.changes.map((c) => (c.kind === 'table' ? c.table : undefined)));
    if (tables.size === 1 && !tables.has(undefined)) {
      await conn.query(`COMMENT ON TABLE ${[...tables][0]} IS ${pgLiteral(COMMENT_PREFIX + JSON.stringify(record))}`);
      return;
    }
    const records = (await recordsInFile(conn)).filter((r) => r.id !== record.id);
    await writeRecords(conn, [...records, record]);
  },

  async remove(conn, id) {
    for (const record of await recordsInComments(conn)) if (record.id === id) await conn.query(`COMMENT ON TABLE ${record.changes[0]!.table} IS NULL`);
    // pg_file_settings is the superuser's: a role without it has no record there to remove.
    const records = await recordsInFile(conn).catch(() => []);
    if (records.some((r) => r.id === id))
      await writeRecords(
        conn,
        records.filter((r) => r.id !== id),
      );
  },

  async inForce(conn, change) {
    if (change.kind === 'table') {
      const sql = 'SELECT option_value FROM pg_options_to_table((SELECT reloptions FROM pg_class WHERE oid = to_regclass(?))) WHERE option_name = ?';
      const rows = await conn.query(sql, [change.table!, change.name]);
      return rows[0] === undefined ? undefined : String(rows[0][0]);
    }
    const rows = await conn.query(`SELECT setting FROM pg_file_settings WHERE name = ? AND ${FROM_AUTO_CONF} ORDER BY seqno DESC LIMIT 1`, [change.name]);
    return rows[0] === undefined || rows[0][0] === null ? undefined : String(rows[0][0]);
  },

  restoreStatements(change: PendingChange) {
    if (change.kind === 'table') {
      return [
        change.restoreTo === null
          ? `ALTER TABLE ${change.table} RESET (${change.name})`
          : `ALTER TABLE ${change.table} SET (${change.name} = ${pgLiteral(change.restoreTo)})`,
      ];
    }
    return [
      change.restoreTo === null ? `ALTER SYSTEM RESET ${change.name}` : `ALTER SYSTEM SET ${change.name} = ${pgLiteral(change.restoreTo)}`,
      'SELECT pg_reload_conf()',
    ];
  },

  async database(conn) {
    return String((await conn.query('SELECT current_database()'))[0]![0]);
  },

  async hold(conn, name) {
    const [[taken]] = (await conn.query(`SELECT pg_try_advisory_lock(${HOLD_ARGS})`, [name])) as [[boolean]];
    if (taken === true) return undefined;
    const rows = await conn.query(LOCK_HOLDER, [name]);
    // Released between the two looks: the next try takes it.
    if (rows[0] === undefined) return '';
    const [pid, started] = rows[0];
    return `${String(pid)}@${started === null ? '' : String(started)}`;
  },

  async release(conn, name) {
    await conn.query(`SELECT pg_advisory_unlock(${HOLD_ARGS})`, [name]);
  },

  async describeSession(conn, holder) {
    // Another role's session shows only its user to a role without pg_read_all_stats.
    const sql = 'SELECT usename, host(client_addr), application_name, backend_start::text FROM pg_stat_activity WHERE pid = ?::int';
    const row = (await conn.query(sql, [holderPid(holder)]))[0];
    const [user, from, application, started] = (row ?? []).map((v) => (v === null ? undefined : String(v)));
    const about = [user && `user ${user}`, from && `from ${from}`, application && `application "${application}"`, started && `connected at ${started}`].filter(
      Boolean,
    );
    return `server session ${holderPid(holder)}${about.length > 0 ? ` (${about.join(', ')})` : ''}`;
  },

  endSessionStatement(holder) {
    return `SELECT pg_terminate_backend(${holderPid(holder)})`;
  },
};
