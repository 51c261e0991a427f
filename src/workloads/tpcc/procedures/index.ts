import type { DbmsName } from '../../../drivers/driver.js';
import type { OptionValues } from '../../../config/options.js';
import { UserError } from '../../../errors.js';
import type { DataContext } from '../../workload.js';
import { tpccDialect } from '../dialect.js';
import { PROCEDURES_OPTION } from '../options.js';
import type { TpccProcedures } from './procedures.js';

export function wantsProcedures(options: OptionValues): boolean {
  return options[PROCEDURES_OPTION] === true;
}

/** Refuses --procedures where headroom has no procedures for the DBMS (dialect.ts). */
export function refuseProcedures(dbms: DbmsName, options: OptionValues): void {
  if (wantsProcedures(options)) proceduresFor(dbms);
}

/** The DBMS's procedures; refused where headroom has none. */
export function proceduresFor(dbms: DbmsName): TpccProcedures {
  const procedures = tpccDialect(dbms).procedures;
  if (procedures) return procedures;
  throw new UserError(`tpcc --procedures runs on PostgreSQL and MariaDB, not on ${dbms}`, 'omit --procedures: the client-side transactions run on every DBMS');
}

/** CREATE OR REPLACE of the five procedures: after a load with --procedures, and before a run with it on data loaded without. */
export async function createProcedures(ctx: Pick<DataContext, 'conn' | 'dbms' | 'options'>): Promise<number> {
  refuseProcedures(ctx.dbms, ctx.options);
  const statements = proceduresFor(ctx.dbms).create;
  for (const sql of statements) await ctx.conn.query(sql);
  return statements.length;
}

/** What drop removes besides the tables, whether or not the data was loaded with --procedures. */
export function dropProcedureStatements(dbms: DbmsName): readonly string[] {
  return tpccDialect(dbms).procedures?.drop ?? [];
}
