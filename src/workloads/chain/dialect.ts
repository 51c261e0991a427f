import type { DbmsName } from '../../drivers/driver.js';

/**
 * Everything the chain workload says differently per DBMS, in one place: the rest of the workload
 * asks chainDialect(dbms) and names no DBMS. Firebird 3 has no DROP TABLE IF EXISTS and no ANALYZE,
 * restarts an identity column by DDL, and stores unquoted names upper case in its system tables.
 */
export interface ChainDialect {
  /** The id column: an auto-assigned primary key that a load may also give explicitly. */
  idColumn: string;
  /** op_time's type. */
  opTimeType: string;
  /** Appended to CREATE TABLE. */
  tableOptions: string;
  /** The DBMS cannot add a foreign key to a table that exists: keys are declared at creation. */
  foreignKeysAtCreation: boolean;
  /** The DBMS indexes a foreign-key column itself when the key is added. */
  indexesForeignKeys: boolean;
  /** chain_meta's value column, as SQL names it. */
  metaValueColumn: string;
  dropTableIfExists(table: string): string;
  /** Moves the table's id generator past explicitly loaded ids. */
  syncIdGenerator(table: string): string[];
  /** Planner statistics for these tables after a load. */
  analyze(tables: readonly string[]): string[];
  /** Wraps the bulk load's keys and indexes (e.g. without re-validating rows valid by construction). */
  bulkKeys(statements: string[]): string[];
  /** Step 3's row limit. */
  latestHundred: string;
  /** How the study's JDBC driver sent the unit on this DBMS (statements.ts). */
  study: StudySending;
  /** The study's distributed terminals on this DBMS; absent where the study did not run it. */
  studyClients?: number;
  /** How planning is measured apart from execution after a run (planning.ts); none where the DBMS does not say. */
  planning?: PlanningMethod;
  /**
   * A query listing those of `tables` that hold rows but were never analyzed (rows: name, rows,
   * whether the server's automatic statistics are on), whose plans then rest on default estimates;
   * absent where the DBMS keeps statistics by itself.
   */
  neverAnalyzed?: (tables: readonly string[]) => string;
}

export interface StudySending {
  /** The study's JDBC driver on this DBMS, whose way of sending this is; absent where the study did not run. */
  driver?: string;
  /** Sent once per terminal before its first unit. */
  sessionSetup: string[];
  /**
   * How the two literal joins go: text, the DBMS's text protocol (simple Query, COM_QUERY);
   * unnamed, PostgreSQL's unnamed statement and portal, Parse, Bind, Describe, Execute and Sync in
   * one write (pgJDBC's plain Statement). Either way the server parses and plans them at every call.
   */
  joins: 'text' | 'unnamed';
  /**
   * with-first-query: BEGIN written together with the unit's first statement, one round trip
   * (pgJDBC with autocommit off: inside the first join's write, with joins unnamed); implicit: no
   * BEGIN, the session runs with autocommit=0 (Connector/J 2.x); own-round-trip: BEGIN, then the first statement.
   */
  begin: 'with-first-query' | 'implicit' | 'own-round-trip';
  /**
   * prepared: update and insert as server-side prepared statements, made before the first unit;
   * at-threshold: through the unnamed statement (parsed and planned at each execution) until
   * `prepareThreshold` executions, then prepared under a name (pgJDBC's prepareThreshold); text:
   * values filled in by the client.
   */
  writes: 'prepared' | 'at-threshold' | 'text';
  /** at-threshold: the execution that names the statement (pgJDBC's default prepareThreshold is 5). */
  prepareThreshold?: number;
  /** text: the driver's own COMMIT; named: a named statement parsed with its first execution (pgJDBC's). */
  commit: 'text' | 'named';
}

/**
 * explain-summary: EXPLAIN (ANALYZE, SUMMARY, FORMAT JSON), PREPARE/EXECUTE, custom plans first;
 * analyze-json: ANALYZE FORMAT=JSON with query_optimization time.
 */
export type PlanningMethod = 'explain-summary' | 'analyze-json';

const plainDrop = (table: string): string => `DROP TABLE IF EXISTS ${table}`;
const asIs = (statements: string[]): string[] => statements;

const DIALECTS: Record<DbmsName, ChainDialect> = {
  postgres: {
    idColumn: 'id serial PRIMARY KEY',
    opTimeType: 'timestamp',
    tableOptions: '',
    foreignKeysAtCreation: false,
    indexesForeignKeys: false,
    metaValueColumn: 'value',
    dropTableIfExists: plainDrop,
    syncIdGenerator: (table) => [`SELECT setval(pg_get_serial_sequence('${table}', 'id'), (SELECT COALESCE(MAX(id), 0) + 1 FROM ${table}), false)`],
    analyze: (tables) => [`ANALYZE ${tables.join(', ')}`],
    neverAnalyzed: (tables) =>
      `SELECT c.relname, s.n_live_tup, current_setting('autovacuum') FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid` +
      ` WHERE s.relid IN (${tables.map((t) => `'${t}'::regclass`).join(', ')}) AND s.last_analyze IS NULL AND s.last_autoanalyze IS NULL` +
      ` AND s.n_live_tup > 0 ORDER BY c.relname`,
    bulkKeys: asIs,
    latestHundred: 'limit 100',
    study: {
      driver: 'pgJDBC',
      sessionSetup: [],
      joins: 'unnamed',
      begin: 'with-first-query',
      writes: 'at-threshold',
      prepareThreshold: 5,
      commit: 'named',
    },
    studyClients: 33,
    planning: 'explain-summary',
  },
  mariadb: {
    idColumn: 'id int AUTO_INCREMENT PRIMARY KEY',
    // A timestamp column gets ON UPDATE CURRENT_TIMESTAMP unless told otherwise, which would let
    // step 4's update move op_time; datetime holds the same value without that.
    opTimeType: 'datetime',
    tableOptions: ' ENGINE = InnoDB',
    foreignKeysAtCreation: false,
    indexesForeignKeys: true,
    metaValueColumn: 'value',
    dropTableIfExists: plainDrop,
    syncIdGenerator: () => [],
    analyze: (tables) => [`ANALYZE TABLE ${tables.join(', ')}`],
    // The rows are valid by construction: without the check InnoDB adds each key in place instead
    // of copying the table to validate it.
    bulkKeys: (statements) => ['SET foreign_key_checks = 0', ...statements, 'SET foreign_key_checks = 1'],
    latestHundred: 'limit 100',
    study: { driver: 'MariaDB Connector/J 2.x', sessionSetup: ['SET autocommit=0'], joins: 'text', begin: 'implicit', writes: 'text', commit: 'text' },
    // Its default max_connections allows 150.
    studyClients: 150,
    planning: 'analyze-json',
  },
  sqlite: {
    // INTEGER PRIMARY KEY is the rowid: auto-assigned, no second b-tree.
    idColumn: 'id INTEGER PRIMARY KEY',
    opTimeType: 'timestamp',
    tableOptions: '',
    // SQLite enforces keys only under PRAGMA foreign_keys, which headroom leaves off, so declaring
    // them at creation costs a load nothing.
    foreignKeysAtCreation: true,
    indexesForeignKeys: false,
    metaValueColumn: 'value',
    dropTableIfExists: plainDrop,
    syncIdGenerator: () => [],
    analyze: (tables) => tables.map((table) => `ANALYZE ${table}`),
    bulkKeys: asIs,
    latestHundred: 'limit 100',
    // Not in the study: BEGIN, then the same literal joins and prepared writes.
    study: { sessionSetup: [], joins: 'text', begin: 'own-round-trip', writes: 'prepared', commit: 'text' },
  },
  firebird: {
    // Firebird 3's identity column: a generator of its own, BY DEFAULT so loads may give ids.
    idColumn: 'id INTEGER GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY',
    opTimeType: 'timestamp',
    tableOptions: '',
    foreignKeysAtCreation: false,
    indexesForeignKeys: true,
    // VALUE is a reserved word in Firebird: quoted (and upper case).
    metaValueColumn: '"VALUE"',
    // EXECUTE STATEMENT: DDL cannot be written directly in PSQL.
    dropTableIfExists: (table) =>
      `EXECUTE BLOCK AS BEGIN IF (EXISTS (SELECT 1 FROM rdb$relations WHERE rdb$relation_name = '${table.toUpperCase()}'))` +
      ` THEN EXECUTE STATEMENT 'DROP TABLE ${table}'; END`,
    // RESTART WITH n makes the next value n + 1 on Firebird 3 and n on Firebird 4 and later;
    // restarting with MAX(id) + 1 is safe on both (Firebird 3 leaves one id unused).
    syncIdGenerator: (table) => [
      `EXECUTE BLOCK AS DECLARE n INTEGER; BEGIN SELECT COALESCE(MAX(id), 0) + 1 FROM ${table} INTO :n;` +
        ` EXECUTE STATEMENT 'ALTER TABLE ${table} ALTER id RESTART WITH ' || n; END`,
    ],
    // Firebird's counterpart of ANALYZE: recompute every index's selectivity. An index built over
    // loaded rows has fresh statistics; one declared before the rows (the faithful load's foreign
    // keys) still says its table was empty.
    analyze: (tables) => [
      `EXECUTE BLOCK AS DECLARE name VARCHAR(63); BEGIN
  FOR SELECT TRIM(rdb$index_name) FROM rdb$indices WHERE rdb$relation_name IN (${tables.map((t) => `'${t.toUpperCase()}'`).join(', ')}) INTO :name DO
    EXECUTE STATEMENT 'SET STATISTICS INDEX ' || name;
END`,
    ],
    bulkKeys: asIs,
    // FETCH FIRST works in Firebird 3 too, but ROWS is what its users write.
    latestHundred: 'rows 100',
    study: { sessionSetup: [], joins: 'text', begin: 'own-round-trip', writes: 'prepared', commit: 'text' },
  },
};

/** The DBMSs chain runs on: those it has a dialect for. */
export const CHAIN_DBMSS = Object.keys(DIALECTS) as DbmsName[];

export function chainDialect(dbms: DbmsName): ChainDialect {
  return DIALECTS[dbms];
}
