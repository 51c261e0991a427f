/**
 * What chain needs on Firebird that the other DBMSs say in one line: Firebird 3 has no DROP TABLE
 * IF EXISTS, no ANALYZE, and an identity column is restarted by DDL rather than by a function.
 * Unquoted names are stored upper case in the system tables.
 */

/** Drops a table when it is there (EXECUTE STATEMENT: DDL cannot be written directly in PSQL). */
export function firebirdDropIfExists(table: string): string {
  return `EXECUTE BLOCK AS BEGIN IF (EXISTS (SELECT 1 FROM rdb$relations WHERE rdb$relation_name = '${table.toUpperCase()}')) THEN EXECUTE STATEMENT 'DROP TABLE ${table}'; END`;
}

/**
 * Moves an identity column past explicitly loaded ids. RESTART WITH n makes the next value n + 1 on
 * Firebird 3 and n on Firebird 4 and later; restarting with MAX(id) + 1 is safe on both (Firebird 3
 * leaves one id unused).
 */
export function firebirdRestartIdentity(table: string): string {
  return `EXECUTE BLOCK AS DECLARE n INTEGER; BEGIN SELECT COALESCE(MAX(id), 0) + 1 FROM ${table} INTO :n; EXECUTE STATEMENT 'ALTER TABLE ${table} ALTER id RESTART WITH ' || n; END`;
}

/**
 * Recomputes the selectivity of every index on the given tables (Firebird's counterpart of ANALYZE).
 * An index built over loaded rows has fresh statistics; one declared before the rows (the faithful
 * load's foreign keys) still says its table was empty.
 */
export function firebirdIndexStatistics(tables: readonly string[]): string {
  const names = tables.map((t) => `'${t.toUpperCase()}'`).join(', ');
  return `EXECUTE BLOCK AS DECLARE name VARCHAR(63); BEGIN
  FOR SELECT TRIM(rdb$index_name) FROM rdb$indices WHERE rdb$relation_name IN (${names}) INTO :name DO
    EXECUTE STATEMENT 'SET STATISTICS INDEX ' || name;
END`;
}
