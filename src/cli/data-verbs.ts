import type { OptionSpec } from '../config/options.js';
import { UserError } from '../errors.js';
import { DB_OPTION, HELP_OPTION, SCALE_OPTION, VERBOSE_OPTION, askedScale, dataContext, logLine, openSession, parseVerbArgs } from './common.js';

export const INIT_OPTIONS: OptionSpec[] = [DB_OPTION, SCALE_OPTION, VERBOSE_OPTION, HELP_OPTION];
export const CHECK_OPTIONS: OptionSpec[] = [DB_OPTION, VERBOSE_OPTION, HELP_OPTION];
export const DROP_OPTIONS: OptionSpec[] = [DB_OPTION, VERBOSE_OPTION, HELP_OPTION];

/** `headroom init`: drop what is there, create the schema and load it at the scale given. */
export async function initCommand(argv: readonly string[]): Promise<number> {
  const { workload, values, workloadOptions } = parseVerbArgs(argv, 'init', INIT_OPTIONS);
  const scale = askedScale(workload, values) ?? workload.defaultScale;
  const session = await openSession(values);
  try {
    logLine(`loading ${workload.name} at scale ${scale} into ${session.url}`);
    const started = performance.now();
    await workload.load(dataContext(session, workloadOptions, scale, (m) => logLine(`  ${m}`)));
    process.stdout.write(`loaded ${workload.name} at scale ${scale} in ${((performance.now() - started) / 1000).toFixed(2)} s\n`);
    return 0;
  } finally {
    await session.close();
  }
}

/** `headroom check`: verify the workload's data invariants; exit 1 when one fails. */
export async function checkCommand(argv: readonly string[]): Promise<number> {
  const { workload, values, workloadOptions } = parseVerbArgs(argv, 'check', CHECK_OPTIONS);
  const session = await openSession(values);
  try {
    const base = { conn: session.conn, driver: session.driver, dbms: session.target.dbms, options: workloadOptions, log: logLine };
    const scale = await workload.detectScale(base);
    if (scale === undefined) throw new UserError(`no ${workload.name} data in ${session.url}`, `load it first: headroom init ${workload.name}`);
    const outcomes = await workload.check(dataContext(session, workloadOptions, scale, logLine));
    for (const o of outcomes) process.stdout.write(`${o.ok ? 'ok  ' : 'FAIL'}  ${o.name}: ${o.detail}\n`);
    const failed = outcomes.filter((o) => !o.ok).length;
    process.stdout.write(failed === 0 ? `all ${outcomes.length} checks passed\n` : `${failed} of ${outcomes.length} checks failed\n`);
    return failed === 0 ? 0 : 1;
  } finally {
    await session.close();
  }
}

/** `headroom drop`: remove the workload's tables. */
export async function dropCommand(argv: readonly string[]): Promise<number> {
  const { workload, values, workloadOptions } = parseVerbArgs(argv, 'drop', DROP_OPTIONS);
  const session = await openSession(values);
  try {
    await workload.drop({ conn: session.conn, driver: session.driver, dbms: session.target.dbms, options: workloadOptions, log: logLine });
    process.stdout.write(`dropped ${workload.name} from ${session.url}\n`);
    return 0;
  } finally {
    await session.close();
  }
}
