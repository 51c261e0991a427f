import type { CheckOutcome, DataContext } from '../workload.js';
import { TABLE } from './schema.js';
import { OPERATORS, REGIONS } from './values.js';

/**
 * The rows are exactly 1..N and every value is in the range the load and the update test draw
 * from. The primary key rules out duplicates, so N rows between 1 and N leave no gap: one scan,
 * no COUNT(DISTINCT) sort over a billion keys.
 */
export async function checkKv(ctx: DataContext): Promise<CheckOutcome[]> {
  const [row] = await ctx.conn.query(
    `SELECT COUNT(*), MIN(number), MAX(number),
            SUM(CASE WHEN operator BETWEEN 1 AND ${OPERATORS} AND region BETWEEN 1 AND ${REGIONS} THEN 0 ELSE 1 END) FROM ${TABLE}`,
  );
  const [count, min, max, outOfRange] = (row ?? []).map((v) => (v === null ? 0 : Number(v)));
  const n = ctx.scale;
  return [
    { name: 'rows', ok: count === n && min === 1 && max === n, detail: `${count} rows, numbers ${min}..${max}, expected 1..${n}` },
    { name: 'values in range', ok: outOfRange === 0, detail: `${outOfRange} rows with operator outside 1..${OPERATORS} or region outside 1..${REGIONS}` },
  ];
}
