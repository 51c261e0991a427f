import { UserError } from '../../errors.js';
import type { Connection, SettingPlan } from '../driver.js';

/**
 * --set on SQLite is a PRAGMA on each connection: there is no server, and most pragmas last as
 * long as the connection. SQLite ignores a pragma it does not know, so the name is checked first.
 * (journal_mode=DELETE stays in the file after the run; headroom opens files in WAL mode again.)
 */
export async function planSqliteSetting(conn: Connection, name: string, value: string): Promise<SettingPlan> {
  const known = await conn.query('SELECT 1 FROM pragma_pragma_list WHERE name = lower(?)', [name]);
  if (known.length === 0) throw new UserError(`--set ${name}: SQLite has no PRAGMA ${name}`, 'see https://sqlite.org/pragma.html for the names');
  if (!/^[A-Za-z0-9_.-]+$/.test(value)) throw new UserError(`--set ${name}=${value}: a PRAGMA value is a number or a word`, `e.g. --set synchronous=OFF`);
  return { scope: 'session', statement: `PRAGMA ${name} = ${value}` };
}
