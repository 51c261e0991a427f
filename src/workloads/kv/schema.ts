import type { Connection, DbmsName } from '../../drivers/driver.js';

export const TABLE = 'numbers';

/**
 * The study's table (docs/experiments.md section 3): `numbers(number bigserial primary key, operator
 * smallint, region smallint)`. headroom writes the numbers itself, so `bigint`, not a sequence.
 * Whether the primary key comes with the table or after the data is each DBMS's fastest way.
 */
export function createTableStatement(dbms: DbmsName): string {
  switch (dbms) {
    case 'postgres':
      // Key after the data: one sorted index build is faster than COPY maintaining the b-tree.
      return `CREATE TABLE ${TABLE} (number bigint NOT NULL, operator smallint, region smallint)`;
    case 'mariadb':
      // InnoDB clusters rows by primary key: declaring it up front and loading in key order is
      // faster than rebuilding the whole table for ALTER TABLE ... ADD PRIMARY KEY afterwards.
      return `CREATE TABLE ${TABLE} (number bigint NOT NULL PRIMARY KEY, operator smallint, region smallint) ENGINE = InnoDB`;
    case 'sqlite':
      // INTEGER PRIMARY KEY (64-bit) makes the number the rowid: no second b-tree to maintain.
      return `CREATE TABLE ${TABLE} (number INTEGER PRIMARY KEY, operator SMALLINT, region SMALLINT)`;
    case 'firebird':
      // Key after the data: Firebird then builds the index by one sort.
      return `CREATE TABLE ${TABLE} (number BIGINT NOT NULL, operator SMALLINT, region SMALLINT)`;
  }
}

/** Named, so Firebird's statistics can be recomputed by index name after an extension. */
export const ADD_PRIMARY_KEY = `ALTER TABLE ${TABLE} ADD CONSTRAINT ${TABLE}_pk PRIMARY KEY (number)`;

/** Does the table have its primary key (absent while a PostgreSQL or Firebird load is unfinished)? */
export async function primaryKeyExists(conn: Connection, dbms: DbmsName): Promise<boolean> {
  if (dbms === 'mariadb' || dbms === 'sqlite') return true;
  const sql =
    dbms === 'postgres'
      ? `SELECT count(*) FROM pg_index WHERE indrelid = '${TABLE}'::regclass AND indisprimary`
      : `SELECT count(*) FROM rdb$relation_constraints WHERE rdb$relation_name = '${TABLE.toUpperCase()}' AND rdb$constraint_type = 'PRIMARY KEY'`;
  const [[count]] = (await conn.query(sql)) as [[unknown]];
  return Number(count) > 0;
}

/**
 * PostgreSQL 15+: a backend sends its row counters to the shared statistics at most once a second
 * when idle, so the COPY's inserts would arrive after VACUUM has set n_live_tup and count the rows
 * twice. Forcing the flush first keeps n_live_tup true (older servers lack the function: skipped).
 */
export const FLUSH_POSTGRES_STATS = 'SELECT pg_stat_force_next_flush()';

/** Statistics after a load, so the planner knows the table's size. */
export function analyzeStatement(dbms: DbmsName): string | undefined {
  switch (dbms) {
    case 'postgres':
      // VACUUM also sets the visibility map, as pgbench -i does after its COPY.
      return `VACUUM ANALYZE ${TABLE}`;
    case 'mariadb':
      return `ANALYZE TABLE ${TABLE}`;
    case 'sqlite':
      return `ANALYZE ${TABLE}`;
    case 'firebird':
      // A new index has fresh selectivity statistics; an extended one is recomputed.
      return `SET STATISTICS INDEX ${TABLE}_pk`;
  }
}

export function dropStatement(dbms: DbmsName): string {
  // Firebird 3 has no DROP TABLE IF EXISTS; names are stored upper case in RDB$RELATIONS.
  if (dbms === 'firebird') {
    return `EXECUTE BLOCK AS BEGIN IF (EXISTS (SELECT 1 FROM rdb$relations WHERE rdb$relation_name = '${TABLE.toUpperCase()}')) THEN EXECUTE STATEMENT 'DROP TABLE ${TABLE}'; END`;
  }
  return `DROP TABLE IF EXISTS ${TABLE}`;
}
