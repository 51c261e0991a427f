import { UserError } from '../../errors.js';
import type { Connection, SettingPlan } from '../driver.js';

/** A value as a PostgreSQL string literal: SET and ALTER SYSTEM accept one for every type. */
export function pgLiteral(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/**
 * --set on PostgreSQL, by the parameter's context in pg_settings (PostgreSQL docs, "Setting
 * Parameters"): user and superuser parameters are SET on each session; sighup parameters change
 * through ALTER SYSTEM and pg_reload_conf() and are put back afterwards; postmaster, backend and
 * internal ones need a restart or cannot change at all, and headroom does not restart servers.
 */
export async function planPostgresSetting(conn: Connection, name: string, value: string): Promise<SettingPlan> {
  const rows = await conn.query('SELECT context, setting, source, sourcefile FROM pg_settings WHERE name = lower(?)', [name]);
  const row = rows[0];
  if (!row) throw new UserError(`--set ${name}: PostgreSQL has no parameter "${name}"`, 'see SELECT name FROM pg_settings for the names');
  const [context, , source, sourcefile] = row.map((v) => (v === null ? null : String(v)));
  switch (context) {
    case 'user':
    case 'superuser':
      return { scope: 'session', statement: `SET ${name} = ${pgLiteral(value)}` };
    case 'sighup': {
      const [[previous]] = (await conn.query(`SELECT current_setting(?)`, [name])) as [[string]];
      // A value ALTER SYSTEM had already set goes back into postgresql.auto.conf; otherwise the
      // entry is removed and postgresql.conf (or the default) rules again.
      const fromAutoConf = source === 'configuration file' && (sourcefile ?? '').endsWith('postgresql.auto.conf');
      return {
        scope: 'global',
        previous,
        apply: [`ALTER SYSTEM SET ${name} = ${pgLiteral(value)}`, 'SELECT pg_reload_conf()'],
        restore: [fromAutoConf ? `ALTER SYSTEM SET ${name} = ${pgLiteral(previous)}` : `ALTER SYSTEM RESET ${name}`, 'SELECT pg_reload_conf()'],
        current: `SELECT current_setting('${name}')`,
        // ALTER SYSTEM writes the value as given into postgresql.auto.conf, where a later command compares it.
        change: { kind: 'global', name: name.toLowerCase(), set: value, restoreTo: fromAutoConf ? previous : null, previous },
      };
    }
    case 'postmaster':
      throw new UserError(
        `--set ${name}: PostgreSQL applies ${name} only at server start, so a restart is needed and headroom does not restart servers`,
        `set it in postgresql.conf (or ALTER SYSTEM), restart the server yourself, then run without --set ${name}`,
      );
    case 'backend':
    case 'superuser-backend':
      throw new UserError(
        `--set ${name}: PostgreSQL takes ${name} only when a connection starts, which headroom does not do`,
        'set it for the role or database (ALTER ROLE/DATABASE ... SET) before the run',
      );
    default:
      throw new UserError(
        `--set ${name}: ${name} is a ${context} parameter of PostgreSQL and cannot be changed on a running server`,
        'it is fixed when the cluster is built or compiled',
      );
  }
}
