import type { OptionValues } from '../config/options.js';
import { UserError } from '../errors.js';
import { isModuleWorkload, type ModuleWorkload } from '../module/module-workload.js';
import type { RunResult } from '../result/result.js';
import type { LoadPhase, Workload } from '../workloads/workload.js';
import { logLine, type Session } from './session.js';

function flags(entries: readonly [string, unknown][]): string {
  return entries.map(([name, value]) => (value === true ? `--${name}` : `--${name} ${String(value)}`)).join(' ');
}

/**
 * The options the data in the database was loaded with, where the workload's load recorded them
 * (workload modules: those its load() read). The run takes them for the options not given, so
 * that its transactions and its result agree with the data it measures; a given option that
 * differs from the data's is refused, for the run would measure other data than it says.
 */
export async function adoptDataOptions(
  session: Session,
  workload: Workload,
  options: OptionValues,
  given: ReadonlySet<string>,
  scale: number,
): Promise<Record<string, unknown> | undefined> {
  if (!workload.dataOptions) return undefined;
  const recorded = await workload.dataOptions({ conn: session.conn, driver: session.driver, dbms: session.target.dbms, options, log: logLine });
  if (!recorded) return undefined;
  const differing = Object.entries(recorded).filter(([name, value]) => given.has(name) && options[name] !== value);
  if (differing.length > 0) {
    const named = isModuleWorkload(workload) ? workload.module.path : workload.name;
    throw new UserError(
      `the ${workload.name} data in ${session.url} was loaded with ${flags(differing)}, not ${flags(differing.map(([name]) => [name, options[name]]))}`,
      `omit ${differing.map(([name]) => `--${name}`).join(' ')} to use it, or load it again with them: headroom init ${named} -s ${scale} ${flags(differing.map(([name]) => [name, options[name]]))}`,
    );
  }
  for (const [name, value] of Object.entries(recorded)) if (name in options) options[name] = value as OptionValues[string];
  return recorded;
}

/**
 * What a measurement's result says of its data (its `data`), read where every measurement of
 * loaded data reads it (a run, each sweep step, each step of experiment growth): the options the
 * data was loaded with, adopted as adoptDataOptions does, and how it was loaded (chain: faithful
 * or bulk). `loadedBy` 'none': the run's scripts bring their own tables, there are no options to adopt.
 */
export async function measuredData(
  session: Session,
  workload: Workload,
  options: OptionValues,
  given: ReadonlySet<string>,
  scale: number,
  loadedBy: RunResult['data']['loadedBy'],
  phases: LoadPhase[],
): Promise<RunResult['data']> {
  const dataOptions = loadedBy === 'none' ? undefined : await adoptDataOptions(session, workload, options, given, scale);
  const ctx = { conn: session.conn, driver: session.driver, dbms: session.target.dbms, options, log: logLine };
  const loadMode = await workload.loadMode?.(ctx);
  const loadSha256 = loadedBy === 'none' ? undefined : await workload.dataLoadCode?.(ctx);
  if (loadSha256 !== undefined && isModuleWorkload(workload) && loadSha256 !== workload.module.loadSha256)
    logLine(changedLoadNote(workload, session.url, scale, dataOptions ?? {}, loadSha256));
  return {
    loadedBy,
    phases,
    ...(loadMode === undefined ? {} : { loadMode }),
    ...(dataOptions ? { options: dataOptions } : {}),
    ...(loadSha256 === undefined ? {} : { loadSha256 }),
  };
}

/**
 * The module's load() has changed since it loaded the data about to be measured: said before the
 * run, with the command that loads it again (the run goes on: the edit may not change the rows).
 */
function changedLoadNote(workload: ModuleWorkload, url: string, scale: number, options: Readonly<Record<string, unknown>>, then: string): string {
  const again = ['headroom init', workload.module.path, '-s', String(scale), flags(Object.entries(options))].filter((part) => part !== '').join(' ');
  return (
    `note: the load() of ${workload.module.path} has changed since it loaded the ${workload.name} data in ${url}` +
    ` (load sha256 ${then.slice(0, 12)} then, ${workload.module.loadSha256.slice(0, 12)} now): the data may not be what it loads now; load it again: ${again}`
  );
}
