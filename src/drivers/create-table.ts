import type { DbmsName } from './driver.js';

/**
 * CREATE TABLE that leaves an existing table alone. Firebird 3 has no IF NOT EXISTS: there an
 * EXECUTE BLOCK creates the table when rdb$relations does not list it (unquoted names are stored
 * upper case).
 */
export function createTableIfMissing(dbms: DbmsName, table: string, columns: string): string {
  if (dbms === 'firebird') {
    const exists = `SELECT 1 FROM rdb$relations WHERE rdb$relation_name = '${table.toUpperCase()}'`;
    return `EXECUTE BLOCK AS BEGIN IF (NOT EXISTS (${exists})) THEN EXECUTE STATEMENT 'CREATE TABLE ${table} (${columns.replace(/'/g, "''")})'; END`;
  }
  return `CREATE TABLE IF NOT EXISTS ${table} (${columns})`;
}
