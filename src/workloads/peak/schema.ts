import type { DbmsName } from '../../drivers/driver.js';

/** Rows of the temporary table queries 5-7 join with itself (the study's 625). */
export const JOIN_ROWS = 625;

/** The small reference table of query 2: a catalog's id, code and name, as a business application keeps them. */
export const REFERENCE_TABLE = 'peak_reference';

/**
 * Firebird 3 has no per-session CREATE TEMPORARY TABLE: its documented equivalent is a global
 * temporary table, defined once, whose rows each attachment sees alone and loses on commit
 * (DELETE ROWS) or disconnect (PRESERVE ROWS). So on Firebird queries 3 and 4 insert into one
 * that already exists, and the DDL the other DBMSs run per query is done here, once.
 */
const FIREBIRD_TEMPORARY = [
  'CREATE GLOBAL TEMPORARY TABLE peak_tmp (x INTEGER) ON COMMIT DELETE ROWS',
  'CREATE GLOBAL TEMPORARY TABLE peak_tmp_indexed (x INTEGER) ON COMMIT DELETE ROWS',
  'CREATE INDEX peak_tmp_indexed_x ON peak_tmp_indexed (x)',
  'CREATE GLOBAL TEMPORARY TABLE peak_join (n INTEGER NOT NULL, code VARCHAR(9) NOT NULL) ON COMMIT PRESERVE ROWS',
];

const FIREBIRD_TABLES = ['peak_reference', 'peak_tmp', 'peak_tmp_indexed', 'peak_join'];
/** Every table the peak queries make (temporary ones elsewhere than on Firebird). */
export const PEAK_TABLES: readonly string[] = FIREBIRD_TABLES;

export function createStatements(dbms: DbmsName): string[] {
  const reference = `CREATE TABLE ${REFERENCE_TABLE} (id INTEGER NOT NULL PRIMARY KEY, code VARCHAR(9) NOT NULL, description VARCHAR(50) NOT NULL)`;
  return dbms === 'firebird' ? [reference, ...FIREBIRD_TEMPORARY] : [reference];
}

export function dropStatements(dbms: DbmsName): string[] {
  if (dbms === 'firebird') {
    return [...FIREBIRD_TABLES]
      .reverse()
      .map(
        (table) =>
          `EXECUTE BLOCK AS BEGIN IF (EXISTS (SELECT 1 FROM rdb$relations WHERE rdb$relation_name = '${table.toUpperCase()}')) THEN EXECUTE STATEMENT 'DROP TABLE ${table}'; END`,
      );
  }
  return [`DROP TABLE IF EXISTS ${REFERENCE_TABLE}`];
}

/** The per-connection temporary table of queries 5-7 (Firebird's exists already, see above). */
export function joinTableStatements(dbms: DbmsName): string[] {
  switch (dbms) {
    case 'postgres':
    case 'sqlite':
      return ['CREATE TEMPORARY TABLE peak_join (n INTEGER NOT NULL, code VARCHAR(9) NOT NULL)'];
    case 'mariadb':
      return ['CREATE TEMPORARY TABLE peak_join (n INTEGER NOT NULL, code VARCHAR(9) NOT NULL)'];
    case 'firebird':
      return [];
  }
}
