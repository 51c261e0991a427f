import type { Target } from '../config/target.js';
import type { Connection, Driver } from '../drivers/driver.js';
import { PendingChanges } from '../session/pending-settings.js';

export interface AutovacuumHold {
  note: string;
  restore(): Promise<void>;
}

/**
 * Holds off the DBMS's background cleanup for the experiment's table where the driver has one to
 * hold (Driver.cleanupHold). PostgreSQL's autovacuum would clean a small table in the middle of the experiment (it starts at
 * 50 + 20% dead rows, checked every minute), hiding the effect the study measured on a billion
 * rows, where that threshold is 200 M. So the table's own autovacuum_enabled is set off for the
 * experiment and reset afterwards; a table whose owner already set it is left as it is. The hold
 * is recorded first (src/session/pending-settings.ts), so a killed experiment's is undone by the
 * next command.
 */
export async function holdAutovacuum(
  session: { driver: Driver; conn: Connection; target: Target },
  table: string,
  warn: (message: string) => void,
): Promise<AutovacuumHold | undefined> {
  const { driver, conn, target } = session;
  if (!driver.cleanupHold || !driver.pendingStore) return undefined;
  const hold = await driver.cleanupHold.planHold(conn, table);
  const { change, apply, undo } = hold;
  if (!change || apply === undefined || undo === undefined) return { note: hold.note, restore: async () => undefined };
  const database = await driver.pendingStore.database(conn);
  const pending = await PendingChanges.begin(driver, conn, target, [{ kind: 'table', table, database, ...change }], warn);
  await conn.query(apply);
  return {
    note: hold.note,
    restore: async () => {
      await conn.query(undo);
      await pending.end(conn);
    },
  };
}
