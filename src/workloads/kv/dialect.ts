import type { DbmsName } from '../../drivers/driver.js';

export const TABLE = 'numbers';

/**
 * Everything the kv workload says differently per DBMS, in one place: the rest of the workload asks
 * kvDialect(dbms) and names no DBMS. Whether the primary key comes with the table or after the data
 * is each DBMS's fastest way.
 */
export interface KvDialect {
  createTable: string;
  /** The primary key is declared by createTable; otherwise a load adds it after the data. */
  keyWithTable: boolean;
  /** Counts the table's primary keys (0 while a load has not reached it), where keyWithTable is false. */
  primaryKeyCount?: string;
  /** Sent before analyze, its failure ignored (a server too old to have it). */
  flushStatistics?: string;
  /** Statistics after a load, so the planner knows the table's size. */
  analyze: string;
  dropTableIfExists: string;
}

/**
 * PostgreSQL 15+: a backend sends its row counters to the shared statistics at most once a second
 * when idle, so the COPY's inserts would arrive after VACUUM has set n_live_tup and count the rows
 * twice. Forcing the flush first keeps n_live_tup true (older servers lack the function: skipped).
 */
const FLUSH_POSTGRES_STATS = 'SELECT pg_stat_force_next_flush()';

const plainDrop = `DROP TABLE IF EXISTS ${TABLE}`;

const DIALECTS: Record<DbmsName, KvDialect> = {
  postgres: {
    // Key after the data: one sorted index build is faster than COPY maintaining the b-tree.
    createTable: `CREATE TABLE ${TABLE} (number bigint NOT NULL, operator smallint, region smallint)`,
    keyWithTable: false,
    primaryKeyCount: `SELECT count(*) FROM pg_index WHERE indrelid = '${TABLE}'::regclass AND indisprimary`,
    flushStatistics: FLUSH_POSTGRES_STATS,
    // VACUUM also sets the visibility map, as pgbench -i does after its COPY.
    analyze: `VACUUM ANALYZE ${TABLE}`,
    dropTableIfExists: plainDrop,
  },
  mariadb: {
    // InnoDB clusters rows by primary key: declaring it up front and loading in key order is
    // faster than rebuilding the whole table for ALTER TABLE ... ADD PRIMARY KEY afterwards.
    createTable: `CREATE TABLE ${TABLE} (number bigint NOT NULL PRIMARY KEY, operator smallint, region smallint) ENGINE = InnoDB`,
    keyWithTable: true,
    analyze: `ANALYZE TABLE ${TABLE}`,
    dropTableIfExists: plainDrop,
  },
  sqlite: {
    // INTEGER PRIMARY KEY (64-bit) makes the number the rowid: no second b-tree to maintain.
    createTable: `CREATE TABLE ${TABLE} (number INTEGER PRIMARY KEY, operator SMALLINT, region SMALLINT)`,
    keyWithTable: true,
    analyze: `ANALYZE ${TABLE}`,
    dropTableIfExists: plainDrop,
  },
  firebird: {
    // Key after the data: Firebird then builds the index by one sort.
    createTable: `CREATE TABLE ${TABLE} (number BIGINT NOT NULL, operator SMALLINT, region SMALLINT)`,
    keyWithTable: false,
    // Unquoted names are stored upper case in the system tables.
    primaryKeyCount: `SELECT count(*) FROM rdb$relation_constraints WHERE rdb$relation_name = '${TABLE.toUpperCase()}' AND rdb$constraint_type = 'PRIMARY KEY'`,
    // A new index has fresh selectivity statistics; an extended one is recomputed.
    analyze: `SET STATISTICS INDEX ${TABLE}_pk`,
    // Firebird 3 has no DROP TABLE IF EXISTS.
    dropTableIfExists: `EXECUTE BLOCK AS BEGIN IF (EXISTS (SELECT 1 FROM rdb$relations WHERE rdb$relation_name = '${TABLE.toUpperCase()}')) THEN EXECUTE STATEMENT 'DROP TABLE ${TABLE}'; END`,
  },
};

export function kvDialect(dbms: DbmsName): KvDialect {
  return DIALECTS[dbms];
}
