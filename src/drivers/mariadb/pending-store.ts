import { createHash } from 'node:crypto';
import type { Connection, PendingRecord, PendingStore } from '../driver.js';
import { parsePendingRecords } from '../pending-records.js';
import { mariadbLiteral } from './settings.js';

/**
 * MariaDB has no place for a custom value that lasts, so the record is a small table in the
 * database headroom connected to; any database's is found through information_schema. SET GLOBAL
 * lasts until the server restarts, the table longer: a record whose value is back is dropped.
 */
const TABLE = 'headroom_pending_settings';

function quoteName(name: string): string {
  return `\`${name.replace(/`/g, '``')}\``;
}

async function schemasWithRecords(conn: Connection): Promise<string[]> {
  return (await conn.query('SELECT TABLE_SCHEMA FROM information_schema.TABLES WHERE TABLE_NAME = ?', [TABLE])).map((row) => String(row[0]));
}

async function serverStart(conn: Connection): Promise<number> {
  const [[start]] = (await conn.query("SELECT UNIX_TIMESTAMP() - VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'UPTIME'")) as [
    [number],
  ];
  return Number(start);
}

/**
 * The hold on a setting is a user-level lock (GET_LOCK) of the session: server-wide, as SET GLOBAL
 * is, and released by the server when the session ends however the client ends.
 */
function lockName(name: string): string {
  const plain = `headroom.set.${name.toLowerCase()}`;
  // MariaDB takes lock names of up to 64 characters.
  return plain.length <= 64 ? plain : `headroom.set.${createHash('sha1').update(name.toLowerCase()).digest('hex')}`;
}

export const mariadbPendingStore: PendingStore = {
  async holder(conn) {
    const [[id]] = (await conn.query('SELECT CONNECTION_ID()')) as [[number]];
    // Connection ids start again at 1 when the server restarts: the start time tells them apart.
    return `${id}@${await serverStart(conn)}`;
  },

  async holderAlive(conn, holder) {
    const [id, start] = holder.split('@').map(Number);
    if (Math.abs((await serverStart(conn)) - start!) > 2) return false;
    const [[count]] = (await conn.query('SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = ?', [id!])) as [[number]];
    return Number(count) > 0;
  },

  async read(conn) {
    const records: PendingRecord[] = [];
    for (const schema of await schemasWithRecords(conn)) {
      for (const [text] of await conn.query(`SELECT record FROM ${quoteName(schema)}.${TABLE}`))
        for (const record of parsePendingRecords(String(text))) records.push(record);
    }
    return records;
  },

  async put(conn, record) {
    await conn.query(`CREATE TABLE IF NOT EXISTS ${TABLE} (id VARCHAR(64) PRIMARY KEY, record TEXT NOT NULL) ENGINE=InnoDB`);
    await conn.query(`REPLACE INTO ${TABLE} (id, record) VALUES (?, ?)`, [record.id, JSON.stringify(record)]);
  },

  async remove(conn, id) {
    for (const schema of await schemasWithRecords(conn)) {
      const table = `${quoteName(schema)}.${TABLE}`;
      await conn.query(`DELETE FROM ${table} WHERE id = ?`, [id]);
      const [[left]] = (await conn.query(`SELECT COUNT(*) FROM ${table}`)) as [[number]];
      if (Number(left) === 0) await conn.query(`DROP TABLE IF EXISTS ${table}`);
    }
  },

  async inForce(conn, change) {
    // Where planSetting read the value to go back to, so both are spelt alike (ON, not @@GLOBAL's 1).
    const rows = await conn.query('SELECT GLOBAL_VALUE FROM information_schema.SYSTEM_VARIABLES WHERE VARIABLE_NAME = UPPER(?)', [change.name]);
    return rows[0] === undefined || rows[0][0] === null ? undefined : String(rows[0][0]);
  },

  restoreStatements(change) {
    return [`SET GLOBAL ${change.name} = ${mariadbLiteral(change.restoreTo ?? change.previous)}`];
  },

  async database(conn) {
    return String((await conn.query('SELECT DATABASE()'))[0]![0]);
  },

  async hold(conn, name) {
    const [[taken]] = (await conn.query('SELECT GET_LOCK(?, 0)', [lockName(name)])) as [[unknown]];
    if (Number(taken) === 1) return undefined;
    const [[id]] = (await conn.query('SELECT IS_USED_LOCK(?)', [lockName(name)])) as [[unknown]];
    // Released between the two looks: the next try takes it.
    return id === null ? '' : `${String(id)}@${await serverStart(conn)}`;
  },

  async release(conn, name) {
    await conn.query('SELECT RELEASE_LOCK(?)', [lockName(name)]);
  },

  async describeSession(conn, holder) {
    const id = Number(holder.split('@')[0]);
    // Another user's session is listed only to a user with the PROCESS privilege.
    const row = (await conn.query('SELECT USER, HOST FROM information_schema.PROCESSLIST WHERE ID = ?', [id]))[0];
    return row === undefined ? `server session ${id}` : `server session ${id} (${String(row[0])}@${String(row[1])})`;
  },

  endSessionStatement(holder) {
    return `KILL ${Number(holder.split('@')[0])}`;
  },
};
