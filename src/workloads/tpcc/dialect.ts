import type { DbmsName } from '../../drivers/driver.js';
import { INT, TIME } from './column-types.js';
import { MARIADB_PROCEDURES } from './procedures/mariadb.js';
import { POSTGRES_PROCEDURES } from './procedures/postgres.js';
import type { TpccProcedures } from './procedures/procedures.js';

/**
 * Everything the tpcc workload says differently per DBMS, in one place: the rest of the workload
 * asks tpccDialect(dbms) and names no DBMS.
 */
export interface TpccDialect {
  /** A column of the spec's type (clause 1.3: int, timestamp, numeric(p,s), char, varchar) as this DBMS declares it. */
  columnType(type: string): string;
  /** Appended to CREATE TABLE. */
  tableOptions: string;
  /**
   * Keys declared with the table where rows arrive in key order and the engine clusters by key
   * (InnoDB, SQLite); added after the load where building them by one sort is faster (PostgreSQL,
   * Firebird, as pgbench -i does).
   */
  keysUpFront: boolean;
  /** Fresh statistics once the data is in, as this DBMS gathers them. */
  analyze(tables: readonly string[]): string[];
  dropTableIfExists(table: string): string;
  /**
   * No exact decimal type (SQLite's NUMERIC affinity stores REAL): money columns are INTEGER in
   * units of their scale, and travel as such (decimal.ts). Elsewhere NUMERIC, sent as decimal strings.
   */
  decimalsAsUnits: boolean;
  /** One writer at a time: the load goes through one connection, warehouse after warehouse. */
  oneWriter: boolean;
  /**
   * Delivery's read of a district's oldest new-order, so that a concurrent Delivery cannot take it
   * between this read and the DELETE (delivery.ts).
   */
  oldestNewOrder: string;
  /** Appended to a query to return its first `rows` rows. */
  firstRows(rows: number): string;
  /**
   * The DBMS evaluates a joined, grouped derived table again for every outer row: a consistency
   * condition built on one would read the whole inner table once per row (check-all.ts).
   */
  derivedTablePerRow: boolean;
  /** --procedures: the five transactions as server-side procedures; absent where headroom has none. */
  procedures?: TpccProcedures;
}

const plainDrop = (table: string): string => `DROP TABLE IF EXISTS ${table}`;
const limit = (rows: number): string => ` LIMIT ${rows}`;

/**
 * PostgreSQL and MariaDB lock the oldest new-order (FOR UPDATE waits for a Delivery that holds
 * it, then returns the next oldest: a read of the latest committed rows, also under MariaDB's
 * REPEATABLE READ). Not SKIP LOCKED: a district whose new-orders are all locked would be skipped
 * while it still has some, which 2.7.4.2 does not allow.
 */
const OLDEST_LOCKED = 'SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id LIMIT 1 FOR UPDATE';
/**
 * SQLite runs one writer at a time; Firebird's read committed reads the latest commits, and a
 * conflict on the DELETE retries the district (delivery.ts, takeOldest).
 */
const OLDEST_READ = 'SELECT MIN(no_o_id) FROM new_order WHERE no_w_id = ? AND no_d_id = ?';

const DIALECTS: Record<DbmsName, TpccDialect> = {
  postgres: {
    columnType: (type) => type,
    tableOptions: '',
    keysUpFront: false,
    analyze: (tables) => tables.map((table) => `VACUUM ANALYZE ${table}`),
    dropTableIfExists: plainDrop,
    decimalsAsUnits: false,
    oneWriter: false,
    oldestNewOrder: OLDEST_LOCKED,
    firstRows: limit,
    derivedTablePerRow: false,
    procedures: POSTGRES_PROCEDURES,
  },
  mariadb: {
    columnType: (type) => (type === TIME ? 'datetime(6)' : type),
    tableOptions: ' ENGINE = InnoDB',
    keysUpFront: true,
    analyze: (tables) => [`ANALYZE TABLE ${tables.join(', ')}`],
    dropTableIfExists: plainDrop,
    decimalsAsUnits: false,
    oneWriter: false,
    oldestNewOrder: OLDEST_LOCKED,
    firstRows: limit,
    derivedTablePerRow: false,
    procedures: MARIADB_PROCEDURES,
  },
  sqlite: {
    columnType: (type) => (type === INT || type.startsWith('numeric') ? 'INTEGER' : 'TEXT'),
    tableOptions: '',
    keysUpFront: true,
    analyze: () => ['ANALYZE'],
    dropTableIfExists: plainDrop,
    decimalsAsUnits: true,
    oneWriter: true,
    oldestNewOrder: OLDEST_READ,
    firstRows: limit,
    derivedTablePerRow: false,
  },
  firebird: {
    columnType: (type) => (type === INT ? 'INTEGER' : type),
    tableOptions: '',
    keysUpFront: false,
    // A new Firebird index has fresh selectivity statistics already.
    analyze: () => [],
    // Firebird 3 has no DROP TABLE IF EXISTS; names are stored upper case in RDB$RELATIONS.
    dropTableIfExists: (table) =>
      `EXECUTE BLOCK AS BEGIN IF (EXISTS (SELECT 1 FROM rdb$relations WHERE rdb$relation_name = '${table.toUpperCase()}')) THEN EXECUTE STATEMENT 'DROP TABLE ${table}'; END`,
    decimalsAsUnits: false,
    oneWriter: false,
    oldestNewOrder: OLDEST_READ,
    firstRows: (rows) => ` ROWS ${rows}`,
    // Firebird 3 evaluates a joined, grouped derived table again for every outer row.
    derivedTablePerRow: true,
  },
};

export function tpccDialect(dbms: DbmsName): TpccDialect {
  return DIALECTS[dbms];
}
