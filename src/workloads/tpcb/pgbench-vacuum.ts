import type { Connection, DbmsName } from '../../drivers/driver.js';
import { tpcbDialect } from './dialect.js';

/**
 * What pgbench does before a run unless -n: vacuum the branches and tellers, empty the history
 * (and with -v vacuum and analyze the accounts too). A statement that fails is reported and the
 * run goes on, as pgbench's tryExecuteStatement does. Where there is nothing to vacuum the
 * history is emptied alone (dialect.ts).
 */
export async function pgbenchVacuum(conn: Connection, dbms: DbmsName, accounts: boolean, report: (text: string) => void): Promise<void> {
  const attempt = async (sql: string): Promise<void> => {
    await conn.query(sql).catch((error: unknown) => report(`pgbench: error: ${(error as Error).message}(ignoring this error and continuing anyway)\n`));
  };
  const { beforeRun, beforeRunAccounts } = tpcbDialect(dbms).pgbench;
  report('starting vacuum...');
  for (const sql of beforeRun) await attempt(sql);
  report('end.\n');
  if (!accounts || beforeRunAccounts.length === 0) return;
  report('starting vacuum pgbench_accounts...');
  for (const sql of beforeRunAccounts) await attempt(sql);
  report('end.\n');
}
