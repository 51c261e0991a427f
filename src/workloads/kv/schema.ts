import type { Connection, DbmsName } from '../../drivers/driver.js';
import { TABLE, kvDialect } from './dialect.js';

export { TABLE };

/**
 * The study's table (docs/experiments.md section 3): `numbers(number bigserial primary key, operator
 * smallint, region smallint)`. headroom writes the numbers itself, so `bigint`, not a sequence.
 * Each DBMS's statement is in dialect.ts.
 */
export function createTableStatement(dbms: DbmsName): string {
  return kvDialect(dbms).createTable;
}

/** Named, so Firebird's statistics can be recomputed by index name after an extension. */
export const ADD_PRIMARY_KEY = `ALTER TABLE ${TABLE} ADD CONSTRAINT ${TABLE}_pk PRIMARY KEY (number)`;

/** Does the table have its primary key (absent while a load that adds it after the data is unfinished)? */
export async function primaryKeyExists(conn: Connection, dbms: DbmsName): Promise<boolean> {
  const { keyWithTable, primaryKeyCount } = kvDialect(dbms);
  if (keyWithTable || primaryKeyCount === undefined) return true;
  const [[count]] = (await conn.query(primaryKeyCount)) as [[unknown]];
  return Number(count) > 0;
}

/** Statistics after a load, so the planner knows the table's size. */
export function analyzeStatement(dbms: DbmsName): string {
  return kvDialect(dbms).analyze;
}

export function dropStatement(dbms: DbmsName): string {
  return kvDialect(dbms).dropTableIfExists;
}
