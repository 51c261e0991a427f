import type { DataContext } from './workload.js';
import { createTableIfMissing } from '../drivers/create-table.js';

/**
 * Which workload last loaded each table, one row per table: two workloads may use the same table
 * names (a module modelled on a built-in), and each load replaces the other's rows while the
 * other's own record (headroom_load, chain_meta) stays. Every load claims its tables as it starts,
 * so a workload whose tables are claimed by another holds that other's data, not its own. Data
 * loaded before claims were kept has no rows here and is taken as it is.
 */
export const LOAD_TABLES_TABLE = 'headroom_load_tables';

type ClaimContext = Pick<DataContext, 'conn' | 'driver' | 'dbms'>;

export interface TableClaim {
  table: string;
  /** The workload's name (a module: the name it defines). */
  loadedBy: string;
  /** When that load started, ISO 8601. */
  loadedAt: string;
}

const COLUMNS = 'table_name VARCHAR(64) NOT NULL PRIMARY KEY, loaded_by VARCHAR(64) NOT NULL, loaded_at VARCHAR(32) NOT NULL';

/** Before a load touches its tables: they are `workload`'s from now on, whatever loaded them before. */
export async function claimTables(ctx: ClaimContext, workload: string, tables: readonly string[], at: string): Promise<void> {
  await ctx.conn.query(createTableIfMissing(ctx.dbms, LOAD_TABLES_TABLE, COLUMNS));
  for (const table of tables) {
    await ctx.conn.query(`DELETE FROM ${LOAD_TABLES_TABLE} WHERE table_name = ?`, [table]);
    await ctx.conn.query(`INSERT INTO ${LOAD_TABLES_TABLE} (table_name, loaded_by, loaded_at) VALUES (?, ?, ?)`, [table, workload, at]);
  }
}

/** The claims on `tables` made by workloads other than `workload`; none where no claims were kept. */
export async function otherClaims(ctx: ClaimContext, workload: string, tables: readonly string[]): Promise<TableClaim[]> {
  return (await allClaims(ctx, tables)).filter((claim) => claim.loadedBy !== workload);
}

/** Every claim on `tables`, whoever made it; none where no claims were kept. */
export async function allClaims(ctx: ClaimContext, tables: readonly string[]): Promise<TableClaim[]> {
  if (!(await ctx.driver.tableExists(ctx.conn, LOAD_TABLES_TABLE))) return [];
  const wanted = new Set(tables);
  const text = (value: unknown): string => String(value).trim();
  return (await ctx.conn.query(`SELECT table_name, loaded_by, loaded_at FROM ${LOAD_TABLES_TABLE}`))
    .map((row): TableClaim => ({ table: text(row[0]), loadedBy: text(row[1]), loadedAt: text(row[2]) }))
    .filter((claim) => wanted.has(claim.table));
}

/** `drop`: the workload's claims go with its tables. */
export async function releaseTables(ctx: ClaimContext, workload: string): Promise<void> {
  if (await ctx.driver.tableExists(ctx.conn, LOAD_TABLES_TABLE)) await ctx.conn.query(`DELETE FROM ${LOAD_TABLES_TABLE} WHERE loaded_by = ?`, [workload]);
}
