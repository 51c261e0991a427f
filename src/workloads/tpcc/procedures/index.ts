import type { DbmsName } from '../../../drivers/driver.js';
import type { OptionValues } from '../../../config/options.js';
import { UserError } from '../../../errors.js';
import type { DataContext } from '../../workload.js';
import { MARIADB_DROP_PROCEDURES, MARIADB_PROCEDURES } from './mariadb.js';
import { POSTGRES_DROP_PROCEDURES, POSTGRES_PROCEDURES } from './postgres.js';

/** --procedures: the transactions run as server-side procedures (issue #6), where the DBMS has them. */
export const PROCEDURES_OPTION = 'procedures';

export function wantsProcedures(options: OptionValues): boolean {
  return options[PROCEDURES_OPTION] === true;
}

/** Refuses --procedures where headroom has no procedures for the DBMS. */
export function refuseProcedures(dbms: DbmsName, options: OptionValues): void {
  if (wantsProcedures(options) && dbms !== 'postgres' && dbms !== 'mariadb') {
    throw new UserError(
      `tpcc --procedures runs on PostgreSQL and MariaDB, not on ${dbms}`,
      'omit --procedures: the client-side transactions run on every DBMS',
    );
  }
}

/** CREATE OR REPLACE of the five procedures: after a load with --procedures, and before a run with it on data loaded without. */
export async function createProcedures(ctx: Pick<DataContext, 'conn' | 'dbms' | 'options'>): Promise<number> {
  refuseProcedures(ctx.dbms, ctx.options);
  const statements = ctx.dbms === 'postgres' ? POSTGRES_PROCEDURES : MARIADB_PROCEDURES;
  for (const sql of statements) await ctx.conn.query(sql);
  return statements.length;
}

/** What drop removes besides the tables, whether or not the data was loaded with --procedures. */
export function dropProcedureStatements(dbms: DbmsName): readonly string[] {
  return dbms === 'postgres' ? POSTGRES_DROP_PROCEDURES : dbms === 'mariadb' ? MARIADB_DROP_PROCEDURES : [];
}
