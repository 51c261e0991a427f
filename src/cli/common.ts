import type { OptionSpec, OptionValues, WorkloadVerb } from '../config/options.js';
import { dbmsOnThisMachine, describeTarget, resolveTarget, type Target } from '../config/target.js';
import type { Connection, Driver } from '../drivers/driver.js';
import { DRIVERS, createDriver } from '../drivers/registry.js';
import { UserError } from '../errors.js';
import { DEFAULT_WORKLOAD, WORKLOADS, findWorkload } from '../workloads/registry.js';
import { loadedModules } from '../module/load-module.js';
import type { DataContext, Workload } from '../workloads/workload.js';
import { LoadProgressView } from '../reports/load-progress.js';
import { parseArgs } from './args.js';
import { ACCEPT_DATA_LOSS, type SettingsContext } from '../engine/server-settings.js';
import { settlePendingChanges } from '../engine/pending-settings.js';

export const DB_OPTION: OptionSpec = {
  long: 'db',
  type: 'string',
  value: 'URL',
  // Every driver the registry has, so that none is left out of the help.
  help: `database: ${DRIVERS.map((d) => d.url).join(', ')}; else DATABASE_URL`,
  default: undefined,
};
export const VERBOSE_OPTION: OptionSpec = { long: 'verbose', type: 'boolean', help: 'show stack traces and driver details on errors' };
export const HELP_OPTION: OptionSpec = { long: 'help', short: 'h', type: 'boolean', help: 'show this help' };
export const SCALE_OPTION: OptionSpec = {
  long: 'scale',
  short: 's',
  type: 'string',
  value: 'N',
  help: "scale (the workload's own unit: tpcb a whole number, chain full, 1/1000 or 0.001, tpcc warehouses; see headroom list)",
};

export const SET_OPTION: OptionSpec = {
  long: 'set',
  type: 'strings',
  value: 'NAME=VALUE',
  help: 'server setting for the run, repeatable (e.g. synchronous_commit=off): per session where the DBMS allows, else server-wide and put back afterwards; one needing a restart is refused',
};

export const ACCEPT_DATA_LOSS_OPTION: OptionSpec = {
  long: ACCEPT_DATA_LOSS,
  type: 'boolean',
  help: 'let --set turn off durability server-wide (fsync, full_page_writes, innodb_flush_log_at_trx_commit, innodb_doublewrite, sync_binlog) on a server not on this machine',
};

/** -s as the workload reads it, or undefined when not given. */
export function askedScale(workload: Workload, values: OptionValues): number | undefined {
  const text = values['scale'] as string | undefined;
  return text === undefined ? undefined : workload.parseScale(text);
}

/** Every workload's own options, so one parse knows which options take a value. */
export function workloadOptionSpecs(): OptionSpec[] {
  const seen = new Map<string, OptionSpec>();
  // Loaded modules first: where a module's option shares a built-in's name, the module's spec is the one parsed.
  for (const workload of [...loadedModules(), ...WORKLOADS]) for (const spec of workload.options) if (!seen.has(spec.long)) seen.set(spec.long, spec);
  return [...seen.values()];
}

export interface VerbArgs {
  workload: Workload;
  values: OptionValues;
  given: Set<string>;
  /** Only this workload's options, with their defaults. */
  workloadOptions: OptionValues;
}

/** Parses a verb's arguments: `headroom VERB [WORKLOAD] [options]`. */
export function parseVerbArgs(argv: readonly string[], verb: WorkloadVerb, specs: readonly OptionSpec[]): VerbArgs {
  const { values, positionals, given } = parseArgs(argv, [...specs, ...workloadOptionSpecs()], verb);
  if (positionals.length > 1) throw new UserError(`"headroom ${verb}" takes one workload, got: ${positionals.join(' ')}`, `see: headroom ${verb} --help`);
  const workload = findWorkload(positionals[0] ?? DEFAULT_WORKLOAD);
  const own = new Set(workload.options.map((o) => o.long));
  const foreign = [...given].find((name) => !specs.some((s) => s.long === name) && !own.has(name));
  if (foreign) throw new UserError(`--${foreign} is not an option of workload ${workload.name}`, `see: headroom list`);
  const unused = workload.options.find((spec) => given.has(spec.long) && spec.verbs !== undefined && !spec.verbs.includes(verb));
  if (unused) throw new UserError(`--${unused.long} does nothing in headroom ${verb} ${workload.name}`, `it applies to headroom ${unused.verbs!.join(', ')}`);
  const workloadOptions: OptionValues = {};
  for (const spec of workload.options) workloadOptions[spec.long] = values[spec.long];
  return { workload, values, given, workloadOptions };
}

/** An open admin connection to the target, and the context workloads need for their data. */
export interface Session {
  target: Target;
  url: string;
  driver: Driver;
  conn: Connection;
  close(): Promise<void>;
}

export async function openSession(values: OptionValues, workload?: Workload): Promise<Session> {
  const target = resolveTarget(values['db'] as string | undefined);
  if (workload?.runsOn && !workload.runsOn.includes(target.dbms)) {
    throw new UserError(`workload ${workload.name} does not run on ${target.dbms} yet`, `it runs on ${workload.runsOn.join(', ')}`);
  }
  workload?.checkOptions?.(target.dbms, values);
  const driver = createDriver(target);
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

let writeLogLine = (message: string): void => void process.stderr.write(`${message}\n`);

/** headroom's own notes on stderr (loading, running, ...). */
export function logLine(message: string): void {
  writeLogLine(message);
}

/** headroom pgbench keeps stderr to pgbench's lines: headroom's notes go where it says. */
export function redirectLogLines(write: (message: string) => void): void {
  writeLogLine = write;
}

/** What --set needs to know beside the settings: the server's place and whether data loss was accepted. */
export function settingsContext(values: OptionValues, target: Target): SettingsContext {
  return { target, serverOnThisMachine: dbmsOnThisMachine(target), acceptDataLoss: values[ACCEPT_DATA_LOSS] === true };
}
