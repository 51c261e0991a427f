import { UserError } from '../../errors.js';
import type { Connection, SettingPlan } from '../driver.js';

/** Numbers go bare (integer variables refuse quoted ones); anything else as a string literal. */
export function mariadbLiteral(value: string): string {
  return /^-?\d+(\.\d+)?$/.test(value) ? value : `'${value.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/**
 * --set on MariaDB, by the variable's scope in information_schema.SYSTEM_VARIABLES: a variable
 * with a session value is SET on each connection; a global-only dynamic one is SET GLOBAL and
 * put back afterwards; a read-only one needs a restart, which headroom does not do.
 */
export async function planMariadbSetting(conn: Connection, name: string, value: string): Promise<SettingPlan> {
  const rows = await conn.query('SELECT VARIABLE_SCOPE, READ_ONLY, GLOBAL_VALUE FROM information_schema.SYSTEM_VARIABLES WHERE VARIABLE_NAME = UPPER(?)', [
    name,
  ]);
  const row = rows[0];
  if (!row) throw new UserError(`--set ${name}: MariaDB has no system variable "${name}"`, 'see SHOW VARIABLES for the names');
  const [scope, readOnly, globalValue] = row.map((v) => (v === null ? '' : String(v)));
  if (readOnly === 'YES') {
    throw new UserError(
      `--set ${name}: MariaDB reads ${name} only at server start, so a restart is needed and headroom does not restart servers`,
      "set it in my.cnf (or on mariadbd's command line), restart the server yourself, then run without --set",
    );
  }
  if (scope === 'SESSION' || scope === 'SESSION ONLY') return { scope: 'session', statement: `SET SESSION ${name} = ${mariadbLiteral(value)}` };
  return {
    scope: 'global',
    previous: globalValue!,
    apply: [`SET GLOBAL ${name} = ${mariadbLiteral(value)}`],
    restore: [`SET GLOBAL ${name} = ${mariadbLiteral(globalValue!)}`],
    change: { kind: 'global', name: name.toLowerCase(), set: value, restoreTo: globalValue!, previous: globalValue! },
  };
}
