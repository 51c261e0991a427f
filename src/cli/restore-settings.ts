import { defineOptions } from '../config/options.js';
import { describeTarget, resolveTarget } from '../config/target.js';
import { loadDriver } from '../drivers/registry.js';
import { settlePendingChanges } from '../session/pending-settings.js';
import { UserError } from '../errors.js';
import { parseArgs } from '../config/args.js';
import { CLOSING_OPTIONS, DB_OPTION } from '../session/options.js';
import { logLine } from '../session/session.js';

export const RESTORE_SETTINGS_OPTIONS = defineOptions([DB_OPTION, ...CLOSING_OPTIONS]);

/**
 * `headroom restore-settings`: what every command does first when it connects (puts back the
 * changes a killed headroom command left on the server), on its own and saying so when there is
 * nothing to put back.
 */
export async function restoreSettingsCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs(argv, RESTORE_SETTINGS_OPTIONS, 'restore-settings');
  if (positionals.length > 0)
    throw new UserError(`"headroom restore-settings" takes no workload, got: ${positionals.join(' ')}`, 'use: headroom restore-settings --db URL');
  const target = resolveTarget(values.db);
  const driver = await loadDriver(target);
  const conn = await driver.connect();
  try {
    const found = await settlePendingChanges(driver, conn, target, logLine);
    if (found === 0) process.stdout.write(`no changes by headroom are left to put back on ${describeTarget(target)}\n`);
    return 0;
  } finally {
    await conn.close();
    await driver.close();
  }
}
