import type { CleanupHold, Connection } from '../driver.js';

/**
 * PostgreSQL's autovacuum, held off per table by its storage option autovacuum_enabled (reset
 * afterwards, which the pending store's table change puts back too); a table whose owner set the
 * option is left as it is.
 */
export const postgresCleanupHold: CleanupHold = {
  async planHold(conn: Connection, table: string) {
    const sql = `SELECT COALESCE(array_to_string(reloptions, ','), '') FROM pg_class WHERE oid = '${table}'::regclass`;
    const [[options]] = (await conn.query(sql)) as [[string]];
    if (/autovacuum_enabled=/.test(options)) return { note: `autovacuum left as the table sets it (${options})` };
    return {
      note: `autovacuum held off for ${table} during the experiment (ALTER TABLE ... SET (autovacuum_enabled = false), reset at the end)`,
      change: { name: 'autovacuum_enabled', set: 'false', restoreTo: null, previous: 'unset' },
      apply: `ALTER TABLE ${table} SET (autovacuum_enabled = false)`,
      undo: `ALTER TABLE ${table} RESET (autovacuum_enabled)`,
    };
  },
};
