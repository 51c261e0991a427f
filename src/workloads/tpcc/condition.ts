import type { Row } from '../../drivers/driver.js';
import type { CheckOutcome, DataContext } from '../workload.js';
import { Decimals, format } from './decimal.js';
import { tpccDialect } from './dialect.js';

/** Offending rows shown per failed condition: enough to find them, short enough to read. */
export const SHOWN_OFFENDERS = 5;

/**
 * One consistency condition of clause 3.3.2 as a query that returns the rows breaking it, ordered
 * by key. The comparison happens in the DBMS, in its exact decimal arithmetic (integer units on
 * SQLite), never in JavaScript floats.
 */
export interface Condition {
  name: string;
  /** What the rows are ("districts"), for the message. */
  subject: string;
  sql: string;
  /** One offending row in words; money read through Decimals. */
  describe(row: Row, money: (value: unknown) => string): string;
}

export async function checkCondition(ctx: DataContext, condition: Condition): Promise<CheckOutcome> {
  const shown = await ctx.conn.query(condition.sql + tpccDialect(ctx.dbms).firstRows(SHOWN_OFFENDERS));
  if (shown.length === 0) return { name: condition.name, ok: true, detail: `holds for all ${condition.subject}` };
  const [[count]] = (await ctx.conn.query(`SELECT COUNT(*) FROM (${condition.sql}) offenders`)) as [[unknown]];
  const decimals = new Decimals(ctx.dbms);
  const money = (value: unknown): string => (value === null || value === undefined ? 'none' : format(decimals.read(value, 2), 2));
  return {
    name: condition.name,
    ok: false,
    detail: `fails for ${String(count)} ${condition.subject}; first: ${shown.map((row) => condition.describe(row, money)).join('; ')}`,
  };
}

/** A count or id as a plain number for messages (drivers return bigint, string or number). */
export function n(value: unknown): string {
  return value === null || value === undefined ? 'none' : String(value);
}
