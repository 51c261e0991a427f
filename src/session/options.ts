import { defineOption, defineOptions, type OptionSpec, type OptionValuesOf } from '../config/options.js';
import { DRIVERS } from '../drivers/registry.js';
import { ACCEPT_DATA_LOSS } from './server-settings.js';
import { BUILT_IN_OPTIONS } from '../workloads/registry.js';
import { loadedModules } from '../module/module-workload.js';
import type { Workload } from '../workloads/workload.js';

/** The options every verb that opens a session shares: run, init, the experiments. */
export const DB_OPTION = defineOption({
  long: 'db',
  type: 'string',
  value: 'URL',
  // Every driver the registry has, so that none is left out of the help.
  help: `database: ${DRIVERS.map((d) => d.url).join(', ')}, or libpq's key=value connection string (PostgreSQL: 'host=h port=5432 dbname=d user=u'); else DATABASE_URL`,
  default: undefined,
});
export const VERBOSE_OPTION = defineOption({ long: 'verbose', type: 'boolean', help: 'show stack traces and driver details on errors' });
export const HELP_OPTION = defineOption({ long: 'help', short: 'h', type: 'boolean', help: 'show this help' });
/** The options every verb's list ends with. */
export const CLOSING_OPTIONS = defineOptions([VERBOSE_OPTION, HELP_OPTION]);
export const SCALE_OPTION = defineOption({
  long: 'scale',
  short: 's',
  type: 'string',
  value: 'N',
  help: "scale (the workload's own unit: tpcb a whole number, chain full, 1/1000 or 0.001, tpcc warehouses; see headroom list)",
});

export const SET_OPTION = defineOption({
  long: 'set',
  type: 'strings',
  value: 'NAME=VALUE',
  help: 'server setting for the run, repeatable (e.g. synchronous_commit=off): per session where the DBMS allows, else server-wide and put back afterwards; one needing a restart is refused',
});

export const ACCEPT_DATA_LOSS_OPTION = defineOption({
  long: ACCEPT_DATA_LOSS,
  type: 'boolean',
  help: 'let --set turn off durability server-wide (fsync, full_page_writes, innodb_flush_log_at_trx_commit, innodb_doublewrite, sync_binlog) on a server not on this machine',
});

/** Server settings for the command's length: --set and the consent it may need. */
export const SERVER_SETTINGS_OPTIONS = defineOptions([SET_OPTION, ACCEPT_DATA_LOSS_OPTION]);

/** -j of run and of the experiments whose load runs on terminals. */
export const JOBS_OPTION = defineOption({
  long: 'jobs',
  short: 'j',
  type: 'integer',
  min: 1,
  value: 'N',
  help: 'threads the terminals are spread over',
  default: 1,
});

/** --force of the verbs that load data: a smaller scale may replace a larger one. */
export const LOAD_FORCE_OPTION = defineOption({
  long: 'force',
  type: 'boolean',
  help: 'drop data of a larger scale to load a smaller one (refused without it)',
});

/** -s as the workload reads it, or undefined when not given. */
export function askedScale(workload: Workload, values: OptionValuesOf<[typeof SCALE_OPTION]>): number | undefined {
  const text = values.scale;
  return text === undefined ? undefined : workload.parseScale(text);
}

/** Every workload's own options, so one parse knows which options take a value. */
export function workloadOptionSpecs(): OptionSpec[] {
  const seen = new Map<string, OptionSpec>();
  // Loaded modules first: where a module's option shares a built-in's name, the module's spec is the one parsed.
  for (const spec of [...loadedModules().flatMap((m) => m.options), ...BUILT_IN_OPTIONS]) if (!seen.has(spec.long)) seen.set(spec.long, spec);
  return [...seen.values()];
}
