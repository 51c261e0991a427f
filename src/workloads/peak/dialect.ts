import type { DbmsName } from '../../drivers/driver.js';
import { CREATE_REFERENCE_TABLE, PEAK_TABLES, REFERENCE_TABLE } from './schema.js';

export type JoinKind = 'full' | 'left' | 'cross';

/**
 * Everything the peak workload says differently per DBMS, in one place: the rest of the workload
 * asks peakDialect(dbms) and names no DBMS.
 */
export interface PeakDialect {
  /** Query 1: SELECT 1+1. */
  selectConstant: string;
  /**
   * Queries 3 and 4: create a temporary table holding SELECT 1+1 (with an index for query 4) and
   * drop it again, as the study's platform does with each query's temporary tables.
   */
  temporaryTable(indexed: boolean): string[];
  /** The load's tables (the reference table, and temporary ones a DBMS must define ahead). */
  createTables: string[];
  dropTables: string[];
  /** The per-connection temporary table of queries 5-7. */
  joinTable: string[];
  /**
   * Queries 5-7 over the 625-row temporary table joined with itself, returning the first `rows` of
   * the 390,625 (the study does not say how many its queries fetched; its rates rule out all).
   */
  joinQuery(kind: JoinKind, rows: number): string;
}

const CREATE_JOIN_TABLE = 'CREATE TEMPORARY TABLE peak_join (n INTEGER NOT NULL, code VARCHAR(9) NOT NULL)';

function createTemporary(indexed: boolean, drop: string): string[] {
  return ['CREATE TEMPORARY TABLE peak_tmp AS SELECT 1+1 AS x', ...(indexed ? ['CREATE INDEX peak_tmp_x ON peak_tmp (x)'] : []), drop];
}

function joinSelect(kind: JoinKind): string {
  const join = kind === 'cross' ? 'CROSS JOIN peak_join b' : `${kind === 'full' ? 'FULL' : 'LEFT'} JOIN peak_join b ON 1 = 1`;
  return `SELECT a.n, b.n FROM peak_join a ${join}`;
}

const fetchFirst = (kind: JoinKind, rows: number): string => `${joinSelect(kind)} FETCH FIRST ${rows} ROWS ONLY`;

/**
 * Firebird 3 has no per-session CREATE TEMPORARY TABLE: its documented equivalent is a global
 * temporary table, defined once, whose rows each attachment sees alone and loses on commit
 * (DELETE ROWS) or disconnect (PRESERVE ROWS). So on Firebird queries 3 and 4 insert into one
 * that already exists, and the DDL the other DBMSs run per query is done by the load, once.
 */
const FIREBIRD_TEMPORARY = [
  'CREATE GLOBAL TEMPORARY TABLE peak_tmp (x INTEGER) ON COMMIT DELETE ROWS',
  'CREATE GLOBAL TEMPORARY TABLE peak_tmp_indexed (x INTEGER) ON COMMIT DELETE ROWS',
  'CREATE INDEX peak_tmp_indexed_x ON peak_tmp_indexed (x)',
  'CREATE GLOBAL TEMPORARY TABLE peak_join (n INTEGER NOT NULL, code VARCHAR(9) NOT NULL) ON COMMIT PRESERVE ROWS',
];

const DIALECTS: Record<DbmsName, PeakDialect> = {
  postgres: {
    selectConstant: 'SELECT 1+1',
    temporaryTable: (indexed) => createTemporary(indexed, 'DROP TABLE peak_tmp'),
    createTables: [CREATE_REFERENCE_TABLE],
    dropTables: [`DROP TABLE IF EXISTS ${REFERENCE_TABLE}`],
    joinTable: [CREATE_JOIN_TABLE],
    joinQuery: fetchFirst,
  },
  mariadb: {
    selectConstant: 'SELECT 1+1',
    temporaryTable: (indexed) => createTemporary(indexed, 'DROP TEMPORARY TABLE peak_tmp'),
    createTables: [CREATE_REFERENCE_TABLE],
    dropTables: [`DROP TABLE IF EXISTS ${REFERENCE_TABLE}`],
    joinTable: [CREATE_JOIN_TABLE],
    // MariaDB has no FULL JOIN: it gets the usual rewrite, a LEFT JOIN plus the right side's rows
    // without a partner, which is also how the study's platform sent a full join to PostgreSQL.
    // Each branch limited too: MariaDB would otherwise materialise the whole union before the LIMIT.
    joinQuery: (kind, rows) =>
      kind === 'full'
        ? `(SELECT a.n, b.n FROM peak_join a LEFT JOIN peak_join b ON 1 = 1 LIMIT ${rows}) UNION ALL (SELECT NULL, b.n FROM peak_join b WHERE NOT EXISTS (SELECT 1 FROM peak_join a) LIMIT ${rows}) LIMIT ${rows}`
        : `${joinSelect(kind)} LIMIT ${rows}`,
  },
  sqlite: {
    selectConstant: 'SELECT 1+1',
    temporaryTable: (indexed) => createTemporary(indexed, 'DROP TABLE peak_tmp'),
    createTables: [CREATE_REFERENCE_TABLE],
    dropTables: [`DROP TABLE IF EXISTS ${REFERENCE_TABLE}`],
    joinTable: [CREATE_JOIN_TABLE],
    joinQuery: (kind, rows) => `${joinSelect(kind)} LIMIT ${rows}`,
  },
  firebird: {
    // Firebird selects a constant from its one-row system table; the others need no FROM.
    selectConstant: 'SELECT 1+1 FROM RDB$DATABASE',
    // The global temporary table's rows go at commit.
    temporaryTable: (indexed) => [`INSERT INTO ${indexed ? 'peak_tmp_indexed' : 'peak_tmp'} (x) SELECT 1+1 FROM RDB$DATABASE`],
    createTables: [CREATE_REFERENCE_TABLE, ...FIREBIRD_TEMPORARY],
    // Firebird 3 has no DROP TABLE IF EXISTS; unquoted names are stored upper case in rdb$relations.
    dropTables: [...PEAK_TABLES]
      .reverse()
      .map(
        (table) =>
          `EXECUTE BLOCK AS BEGIN IF (EXISTS (SELECT 1 FROM rdb$relations WHERE rdb$relation_name = '${table.toUpperCase()}')) THEN EXECUTE STATEMENT 'DROP TABLE ${table}'; END`,
      ),
    // Defined by the load: each connection has its own rows already.
    joinTable: [],
    joinQuery: fetchFirst,
  },
};

export function peakDialect(dbms: DbmsName): PeakDialect {
  return DIALECTS[dbms];
}
