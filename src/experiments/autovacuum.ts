import type { Target } from '../config/target.js';
import type { Connection, Driver } from '../drivers/driver.js';
import { PendingChanges } from '../engine/pending-settings.js';

export interface AutovacuumHold {
  note: string;
  restore(): Promise<void>;
}

/**
 * PostgreSQL's autovacuum would clean a small table in the middle of the experiment (it starts at
 * 50 + 20% dead rows, checked every minute), hiding the effect the study measured on a billion
 * rows, where that threshold is 200 M. So the table's own autovacuum_enabled is set off for the
 * experiment and reset afterwards; a table whose owner already set it is left as it is. The hold
 * is recorded first (src/engine/pending-settings.ts), so a killed experiment's is undone by the
 * next command.
 */
export async function holdAutovacuum(
  session: { driver: Driver; conn: Connection; target: Target },
  table: string,
  warn: (message: string) => void,
): Promise<AutovacuumHold | undefined> {
  const { driver, conn, target } = session;
  if (target.dbms !== 'postgres' || !driver.pendingStore) return undefined;
  const [[options]] = (await conn.query(`SELECT COALESCE(array_to_string(reloptions, ','), '') FROM pg_class WHERE oid = '${table}'::regclass`)) as [[string]];
  if (/autovacuum_enabled=/.test(options)) return { note: `autovacuum left as the table sets it (${options})`, restore: async () => undefined };
  const database = await driver.pendingStore.database(conn);
  const pending = await PendingChanges.begin(driver, conn, target, [{ kind: 'table', name: 'autovacuum_enabled', table, database, set: 'false', restoreTo: null, previous: 'unset' }], warn);
  await conn.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
  return {
    note: `autovacuum held off for ${table} during the experiment (ALTER TABLE ... SET (autovacuum_enabled = false), reset at the end)`,
    restore: async () => {
      await conn.query(`ALTER TABLE ${table} RESET (autovacuum_enabled)`);
      await pending.end(conn);
    },
  };
}
