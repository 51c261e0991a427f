import type { OptionValues, OptionValuesOf } from '../config/options.js';
import { dbmsOnThisMachine, describeTarget, resolveTarget, type Target } from '../config/target.js';
import type { Connection, Driver } from '../drivers/driver.js';
import { loadDriver } from '../drivers/registry.js';
import { UserError } from '../errors.js';
import type { DataContext, Workload } from '../workloads/workload.js';
import { LoadProgressView } from '../reports/load-progress.js';
import { ACCEPT_DATA_LOSS, type SettingsContext } from './server-settings.js';
import { settlePendingChanges } from './pending-settings.js';
import { logLine } from './log-line.js';

// Also imported from here by the rest of the run pipeline.
export { logLine, redirectLogLines } from './log-line.js';
import type { DB_OPTION, SERVER_SETTINGS_OPTIONS } from './options.js';

/** An open admin connection to the target, and the context workloads need for their data. */
export interface Session {
  target: Target;
  url: string;
  driver: Driver;
  conn: Connection;
  /**
   * Why the server is no longer asked anything over `conn` (session/post-run.ts): a wait on it was
   * given up, so the connection is stuck behind that request. Undefined while it answers.
   */
  unanswered?: string;
  close(): Promise<void>;
}

/** `workloadOptions` are the workload's own, which it checks against the DBMS before anything is opened. */
export async function openSession(values: OptionValuesOf<[typeof DB_OPTION]>, workload?: Workload, workloadOptions: OptionValues = {}): Promise<Session> {
  const target = resolveTarget(values.db);
  if (workload?.runsOn && !workload.runsOn.includes(target.dbms)) {
    throw new UserError(`workload ${workload.name} does not run on ${target.dbms} yet`, `it runs on ${workload.runsOn.join(', ')}`);
  }
  workload?.checkOptions?.(target.dbms, workloadOptions);
  const driver = await loadDriver(target);
  const conn = await driver.connect();
  try {
    // Once per command, whatever the verb: changes a killed command left on this server go back first.
    await settlePendingChanges(driver, conn, target, logLine);
  } catch (error) {
    // The verb's own work does not depend on it; restore-settings reports the same error as its failure.
    logLine(`could not look for server-wide changes a killed headroom command left (${(error as Error).message}); try: headroom restore-settings --db URL`);
  }
  return {
    target,
    url: describeTarget(target),
    driver,
    conn,
    async close() {
      await conn.close();
      await driver.close();
    },
  };
}

/**
 * The context a workload loads (or checks) its data through. Its progress is drawn on stderr (a
 * bar on a terminal, a line every few seconds elsewhere); done() clears the bar when it is over.
 */
export function dataContext(session: Session, options: OptionValues, scale: number, log: (message: string) => void): DataContext & { done(): void } {
  const view = new LoadProgressView(process.stderr, process.stderr.isTTY === true && process.env['TERM'] !== 'dumb');
  return {
    conn: session.conn,
    driver: session.driver,
    dbms: session.target.dbms,
    scale,
    options,
    log: (message) => {
      view.clear();
      log(message);
    },
    progress: (update) => view.update(update),
    done: () => view.clear(),
  };
}

/** What --set needs to know beside the settings: the server's place, whether data loss was accepted, the verb (`run`, `experiment peak`). */
export function settingsContext(values: OptionValuesOf<typeof SERVER_SETTINGS_OPTIONS>, target: Target, command: string): SettingsContext {
  return { target, serverOnThisMachine: dbmsOnThisMachine(target), acceptDataLoss: values[ACCEPT_DATA_LOSS] === true, command };
}
