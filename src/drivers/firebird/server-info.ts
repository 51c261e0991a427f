import type { Connection, ServerInfo } from '../driver.js';
import { FirebirdConnection } from './connection.js';

/**
 * The version and the settings that decide speed and durability: page size, page buffers, forced
 * writes, dialect, ODS and sweep interval from MON$DATABASE, and the server mode.
 */
export async function firebirdServerInfo(conn: Connection, connect: () => Promise<Connection>): Promise<ServerInfo> {
  const [[version, protocol]] = (await conn.query(
    "SELECT rdb$get_context('SYSTEM', 'ENGINE_VERSION'), rdb$get_context('SYSTEM', 'NETWORK_PROTOCOL') FROM rdb$database",
  )) as [[string, string | null]];
  const [[pageSize, pageBuffers, forcedWrites, dialect, odsMajor, odsMinor, sweep]] = (await conn.query(
    'SELECT mon$page_size, mon$page_buffers, mon$forced_writes, mon$sql_dialect, mon$ods_major, mon$ods_minor, mon$sweep_interval FROM mon$database',
  )) as [[number, number, number, number, number, number, number]];
  const settings: Record<string, string> = {
    page_size: String(pageSize),
    page_buffers: String(pageBuffers),
    forced_writes: forcedWrites === 1 ? 'on' : 'off',
    sql_dialect: String(dialect),
    ods: `${odsMajor}.${odsMinor}`,
    sweep_interval: String(sweep),
    server_mode: await serverMode(conn, connect),
  };
  if (protocol) settings['network_protocol'] = protocol;
  // With forced writes off, Firebird leaves writing pages to the OS cache: a crash of the machine
  // can take back acknowledged commits.
  const durabilityRisks = settings['forced_writes'] === 'on' ? [] : ['forced_writes=off'];
  const transport = conn instanceof FirebirdConnection ? conn.wire.transportKind : undefined;
  return { dbms: 'firebird', version: `Firebird ${version}`, settings, durabilityRisks, ...(transport ? { transport } : {}) };
}

/**
 * ServerMode of firebird.conf (Super, SuperClassic, Classic), which Firebird 3 does not report
 * (RDB$CONFIG arrives in Firebird 4), told from what the modes do:
 * - Super shares one page cache among attachments and runs a cache writer for it, which
 *   MON$ATTACHMENTS lists as a system attachment named "Cache Writer" (Classic and SuperClassic,
 *   with a cache per attachment, have none).
 * - Classic serves each attachment from a process of its own, SuperClassic all from one: a second
 *   attachment's MON$SERVER_PID tells them apart.
 * MON$ATTACHMENTS shows a user who is not an administrator only their own attachments, so the
 * cache writer is invisible to them: such a user gets "Super or SuperClassic" when the PIDs agree.
 */
export async function serverMode(conn: Connection, connect: () => Promise<Connection>): Promise<string> {
  const [[cacheWriters]] = (await conn.query("SELECT COUNT(*) FROM mon$attachments WHERE mon$system_flag = 1 AND TRIM(mon$user) = 'Cache Writer'")) as [
    [number],
  ];
  if (Number(cacheWriters) > 0) return 'Super';
  const second = await connect();
  try {
    const pid = async (c: Connection): Promise<number> =>
      Number(((await c.query('SELECT mon$server_pid FROM mon$attachments WHERE mon$attachment_id = CURRENT_CONNECTION')) as [[number]])[0][0]);
    if ((await pid(conn)) !== (await pid(second))) return 'Classic';
    // An administrator sees the system attachments: none, so no shared cache.
    const [[systemRows]] = (await conn.query('SELECT COUNT(*) FROM mon$attachments WHERE mon$system_flag = 1')) as [[number]];
    const [[admin]] = (await conn.query("SELECT CASE WHEN CURRENT_USER = 'SYSDBA' OR CURRENT_ROLE = 'RDB$ADMIN' THEN 1 ELSE 0 END FROM rdb$database")) as [
      [number],
    ];
    return Number(admin) === 1 || Number(systemRows) > 0 ? 'SuperClassic' : 'Super or SuperClassic';
  } finally {
    await second.close();
  }
}
