import type { DataContext, LoadPhase } from '../workload.js';
import { loadBulk } from './load-bulk.js';
import { loadFaithful } from './load-faithful.js';
import { chainDialect } from './dialect.js';
import { createMetaTable } from './schema.js';
import { chainSizes } from './sizes.js';

export type LoadMode = 'faithful' | 'bulk';

/** The tables a load fills; operation is left empty for the runs. */
const LOADED_TABLES = ['country', 'city', 'street', 'address', 'client'] as const;

/** Loads at ctx.scale in the mode --load asks for, then records scale and mode in chain_meta. */
export async function loadChain(ctx: DataContext): Promise<LoadPhase[]> {
  const mode: LoadMode = ctx.options['load'] === 'faithful' ? 'faithful' : 'bulk';
  const sizes = chainSizes(ctx.scale);
  ctx.log(
    `${mode} load: ${sizes.countries} countries, ${sizes.cities} cities, ${sizes.streets} streets, ${sizes.addresses} addresses, 3 x ${sizes.clientsPerBatch} clients`,
  );
  const phases = mode === 'faithful' ? await loadFaithful(ctx, sizes) : await loadBulk(ctx, sizes);
  // Statistics for the planner; not one of the timed phases of either mode. Of the loaded tables
  // only: operation is empty after a load, and PostgreSQL, told it has no rows, goes on planning
  // sequential scans of it as the runs fill it (chain-model.md, "Runs").
  for (const sql of chainDialect(ctx.dbms).analyze(LOADED_TABLES)) await ctx.conn.query(sql);
  await ctx.conn.query(createMetaTable(ctx.dbms));
  // One row per statement: Firebird has no multi-row VALUES.
  for (const [name, value] of [
    ['scale', String(ctx.scale)],
    ['load', mode],
  ]) {
    await ctx.conn.query(`INSERT INTO chain_meta (name, ${chainDialect(ctx.dbms).metaValueColumn}) VALUES (?, ?)`, [name!, value!]);
  }
  return phases;
}

/** What chain_meta says about the data: its scale and the load mode that produced it. */
export async function readMeta(ctx: Pick<DataContext, 'conn' | 'dbms'>): Promise<{ scale: number; load: string } | undefined> {
  const rows = await ctx.conn.query(`SELECT name, ${chainDialect(ctx.dbms).metaValueColumn} FROM chain_meta`);
  const meta = new Map(rows.map(([name, value]) => [String(name), String(value)]));
  const scale = Number(meta.get('scale'));
  if (!Number.isFinite(scale) || scale <= 0) return undefined;
  return { scale, load: meta.get('load') ?? 'unknown' };
}
