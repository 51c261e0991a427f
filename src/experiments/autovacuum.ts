import type { Connection, DbmsName } from '../drivers/driver.js';

export interface AutovacuumHold {
  note: string;
  restore(): Promise<void>;
}

/**
 * PostgreSQL's autovacuum would clean a small table in the middle of the experiment (it starts at
 * 50 + 20% dead rows, checked every minute), hiding the effect the study measured on a billion
 * rows, where that threshold is 200 M. So the table's own autovacuum_enabled is set off for the
 * experiment and reset afterwards; a table whose owner already set it is left as it is.
 */
export async function holdAutovacuum(conn: Connection, dbms: DbmsName, table: string): Promise<AutovacuumHold | undefined> {
  if (dbms !== 'postgres') return undefined;
  const [[options]] = (await conn.query(`SELECT COALESCE(array_to_string(reloptions, ','), '') FROM pg_class WHERE oid = '${table}'::regclass`)) as [[string]];
  if (/autovacuum_enabled=/.test(options)) return { note: `autovacuum left as the table sets it (${options})`, restore: async () => undefined };
  await conn.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
  return {
    note: `autovacuum held off for ${table} during the experiment (ALTER TABLE ... SET (autovacuum_enabled = false), reset at the end)`,
    restore: async () => void (await conn.query(`ALTER TABLE ${table} RESET (autovacuum_enabled)`)),
  };
}
