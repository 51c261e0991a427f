import type { DataContext, LoadPhase } from './workload.js';
import { createTableIfMissing } from '../drivers/create-table.js';
import { claimTables, releaseTables } from './table-claims.js';

/**
 * headroom's own record of each workload's load: one row per workload in `headroom_load`, written
 * before the first row of data and given its `completed` time only after the loader's last commit.
 * A row without `completed` is a load that stopped part way (Ctrl-C, a crash, a full disk): its
 * data is refused by run, check and the experiments.
 */
export const LOAD_TABLE = 'headroom_load';

type MarkerContext = Pick<DataContext, 'conn' | 'driver' | 'dbms'>;

export interface LoadMark {
  workload: string;
  /** The scale the load was asked for, as text (chain's are fractions). */
  scale: string;
  started: string;
  /** undefined while the load has not finished. */
  completed: string | undefined;
}

const COLUMNS = 'workload VARCHAR(32) NOT NULL PRIMARY KEY, scale VARCHAR(40) NOT NULL, started VARCHAR(32) NOT NULL, completed VARCHAR(32)';

function createStatement(dbms: MarkerContext['dbms']): string {
  return createTableIfMissing(dbms, LOAD_TABLE, COLUMNS);
}

/**
 * Before the load touches the data: a row saying it started and has not completed, and its
 * tables claimed as the workload's (another workload's record of them no longer holds).
 */
export async function markLoadStarted(ctx: MarkerContext, workload: string, tables: readonly string[], scale: number): Promise<void> {
  const started = new Date().toISOString();
  await ctx.conn.query(createStatement(ctx.dbms));
  await ctx.conn.query(`DELETE FROM ${LOAD_TABLE} WHERE workload = ?`, [workload]);
  await ctx.conn.query(`INSERT INTO ${LOAD_TABLE} (workload, scale, started) VALUES (?, ?, ?)`, [workload, String(scale), started]);
  await claimTables(ctx, workload, tables, started);
  // The options and the loader of the load before are no longer the data's.
  await clearLoadOptions(ctx, workload);
  await clearLoadCode(ctx, workload);
}

/**
 * The workload options a load was made with (a module: the ones its load() read), one JSON object
 * per workload beside headroom_load, so that a run on that data later records what data it measured.
 * A table of its own: headroom_load tables made before it keep their columns.
 */
export const LOAD_OPTIONS_TABLE = 'headroom_load_options';

const OPTIONS_COLUMNS = 'workload VARCHAR(32) NOT NULL PRIMARY KEY, option_values VARCHAR(2000) NOT NULL';

/** Before markLoadCompleted: a load that stops part way is refused by its record, whatever options it wrote. */
export async function recordLoadOptions(ctx: MarkerContext, workload: string, options: Readonly<Record<string, unknown>>): Promise<void> {
  await ctx.conn.query(createTableIfMissing(ctx.dbms, LOAD_OPTIONS_TABLE, OPTIONS_COLUMNS));
  await ctx.conn.query(`DELETE FROM ${LOAD_OPTIONS_TABLE} WHERE workload = ?`, [workload]);
  await ctx.conn.query(`INSERT INTO ${LOAD_OPTIONS_TABLE} (workload, option_values) VALUES (?, ?)`, [workload, JSON.stringify(options)]);
}

/** The options the workload's data was loaded with, or undefined when its load recorded none. */
export async function readLoadOptions(ctx: MarkerContext, workload: string): Promise<Record<string, unknown> | undefined> {
  if (!(await ctx.driver.tableExists(ctx.conn, LOAD_OPTIONS_TABLE))) return undefined;
  const [row] = await ctx.conn.query(`SELECT option_values FROM ${LOAD_OPTIONS_TABLE} WHERE workload = ?`, [workload]);
  return row ? (JSON.parse(String(row[0])) as Record<string, unknown>) : undefined;
}

async function clearLoadOptions(ctx: MarkerContext, workload: string): Promise<void> {
  if (await ctx.driver.tableExists(ctx.conn, LOAD_OPTIONS_TABLE)) await ctx.conn.query(`DELETE FROM ${LOAD_OPTIONS_TABLE} WHERE workload = ?`, [workload]);
}

/**
 * What the loader was (a workload module: the sha256 of its load(), load-module.ts), one row per
 * workload beside headroom_load, so that a run on the data can tell when the module's load() has
 * changed since. A table of its own, as the options' is.
 */
export const LOAD_CODE_TABLE = 'headroom_load_code';

const CODE_COLUMNS = 'workload VARCHAR(32) NOT NULL PRIMARY KEY, sha256 VARCHAR(64) NOT NULL';

/** Before markLoadCompleted, as recordLoadOptions. */
export async function recordLoadCode(ctx: MarkerContext, workload: string, sha256: string): Promise<void> {
  await ctx.conn.query(createTableIfMissing(ctx.dbms, LOAD_CODE_TABLE, CODE_COLUMNS));
  await ctx.conn.query(`DELETE FROM ${LOAD_CODE_TABLE} WHERE workload = ?`, [workload]);
  await ctx.conn.query(`INSERT INTO ${LOAD_CODE_TABLE} (workload, sha256) VALUES (?, ?)`, [workload, sha256]);
}

/** The sha256 of the loader that made the workload's data, or undefined when its load recorded none (a built-in, or data loaded before it was kept). */
export async function readLoadCode(ctx: MarkerContext, workload: string): Promise<string | undefined> {
  if (!(await ctx.driver.tableExists(ctx.conn, LOAD_CODE_TABLE))) return undefined;
  const [row] = await ctx.conn.query(`SELECT sha256 FROM ${LOAD_CODE_TABLE} WHERE workload = ?`, [workload]);
  return row ? String(row[0]).trim() : undefined;
}

async function clearLoadCode(ctx: MarkerContext, workload: string): Promise<void> {
  if (await ctx.driver.tableExists(ctx.conn, LOAD_CODE_TABLE)) await ctx.conn.query(`DELETE FROM ${LOAD_CODE_TABLE} WHERE workload = ?`, [workload]);
}

/** After the loader's last commit, the last thing a load writes. */
export async function markLoadCompleted(ctx: MarkerContext, workload: string): Promise<void> {
  await ctx.conn.query(`UPDATE ${LOAD_TABLE} SET completed = ? WHERE workload = ?`, [new Date().toISOString(), workload]);
}

/** The workload's record, or undefined when no load by headroom is recorded (data made by pgbench -i, or before records were kept). */
export async function readLoadMark(ctx: MarkerContext, workload: string): Promise<LoadMark | undefined> {
  if (!(await ctx.driver.tableExists(ctx.conn, LOAD_TABLE))) return undefined;
  const [row] = await ctx.conn.query(`SELECT scale, started, completed FROM ${LOAD_TABLE} WHERE workload = ?`, [workload]);
  if (!row) return undefined;
  const text = (value: unknown): string | undefined => (value === null || value === undefined ? undefined : String(value).trim());
  return { workload, scale: text(row[0]) ?? '', started: text(row[1]) ?? '', completed: text(row[2]) };
}

/** `drop` removes the workload's record, and its claims, with its tables. */
export async function clearLoadMark(ctx: MarkerContext, workload: string): Promise<void> {
  if (await ctx.driver.tableExists(ctx.conn, LOAD_TABLE)) await ctx.conn.query(`DELETE FROM ${LOAD_TABLE} WHERE workload = ?`, [workload]);
  await clearLoadOptions(ctx, workload);
  await clearLoadCode(ctx, workload);
  await releaseTables(ctx, workload);
}

/**
 * A workload's load with its record around it: started before the loader drops or writes anything,
 * completed after its last commit. `completes` false: the steps make no complete dataset (pgbench -i
 * steps without data generation), so the record stays unfinished. `tables`: the workload's, which
 * the load claims (table-claims.ts).
 */
export function recordedLoad<C extends DataContext>(
  workload: string,
  tables: readonly string[],
  load: (ctx: C) => Promise<LoadPhase[]>,
  completes = true,
): (ctx: C) => Promise<LoadPhase[]> {
  return async (ctx) => {
    await markLoadStarted(ctx, workload, tables, ctx.scale);
    const phases = await load(ctx);
    if (completes) await markLoadCompleted(ctx, workload);
    return phases;
  };
}
