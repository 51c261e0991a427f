import type { Connection, DbmsName } from '../../drivers/driver.js';

/**
 * What pgbench does before a run unless -n: vacuum the branches and tellers, empty the history
 * (and with -v vacuum and analyze the accounts too). A statement that fails is reported and the
 * run goes on, as pgbench's tryExecuteStatement does. Elsewhere than PostgreSQL there is nothing
 * to vacuum: the history is emptied alone.
 */
export async function pgbenchVacuum(conn: Connection, dbms: DbmsName, accounts: boolean, report: (text: string) => void): Promise<void> {
  const attempt = async (sql: string): Promise<void> => {
    await conn.query(sql).catch((error: unknown) => report(`pgbench: error: ${(error as Error).message}(ignoring this error and continuing anyway)\n`));
  };
  report('starting vacuum...');
  if (dbms === 'postgres') {
    await attempt('vacuum pgbench_branches');
    await attempt('vacuum pgbench_tellers');
    await attempt('truncate pgbench_history');
  } else {
    await attempt('DELETE FROM pgbench_history');
  }
  report('end.\n');
  if (!accounts || dbms !== 'postgres') return;
  report('starting vacuum pgbench_accounts...');
  await attempt('vacuum analyze pgbench_accounts');
  report('end.\n');
}
