import { defineOptions, type OptionValuesOf } from '../config/options.js';
import { INT4_BOUND } from '../config/limits.js';
import { UserError } from '../errors.js';
import type { LoadPhase } from '../workloads/workload.js';
import type { PgbenchInitOptions } from '../workloads/tpcb/pgbench-init.js';

/** pgbench -i's options, for `headroom init tpcb --pgbench`; they mean what they mean in pgbench. */
export const PGBENCH_INIT_OPTIONS = defineOptions([
  { long: 'pgbench', type: 'boolean', help: 'tpcb: initialise exactly as pgbench -i does, step by step (-I), with the options below' },
  {
    long: 'init-steps',
    short: 'I',
    type: 'string',
    value: 'STEPS',
    help: 'with --pgbench: d drop, t create, g client-side or G server-side data, v vacuum, p primary keys, f foreign keys',
    default: 'dtgvp',
  },
  {
    long: 'partitions',
    type: 'integer',
    min: 0,
    ...INT4_BOUND,
    value: 'N',
    help: 'with --pgbench: partition pgbench_accounts in N parts (PostgreSQL)',
    default: 0,
  },
  { long: 'partition-method', type: 'string', value: 'METHOD', choices: ['range', 'hash'], help: 'with --partitions', default: 'range' },
  {
    long: 'fillfactor',
    short: 'F',
    type: 'integer',
    min: 10,
    max: 100,
    maxWhy: 'a percentage',
    value: 'N',
    help: 'with --pgbench: fillfactor of accounts, tellers and branches (PostgreSQL)',
    default: 100,
  },
  { long: 'unlogged-tables', type: 'boolean', help: 'with --pgbench: create the tables UNLOGGED (PostgreSQL)' },
  { long: 'tablespace', type: 'string', value: 'NAME', help: 'with --pgbench: create the tables in this tablespace (PostgreSQL)' },
  { long: 'index-tablespace', type: 'string', value: 'NAME', help: "with --pgbench: create the primary keys' indexes in this tablespace (PostgreSQL)" },
  { long: 'foreign-keys', type: 'boolean', help: 'with --pgbench: add the foreign keys (the f step)' },
  { long: 'no-vacuum', short: 'n', type: 'boolean', help: 'with --pgbench: leave out the v step' },
]);

/** The --pgbench options, or undefined without --pgbench (then none of them may be given). */
export function pgbenchInitOptions(
  values: OptionValuesOf<typeof PGBENCH_INIT_OPTIONS>,
  given: ReadonlySet<string>,
  workload: string,
): PgbenchInitOptions | undefined {
  if (values['pgbench'] !== true) {
    const stray = PGBENCH_INIT_OPTIONS.find((o) => given.has(o.long));
    if (stray) throw new UserError(`--${stray.long} applies with --pgbench only`, `add --pgbench: headroom init tpcb --pgbench --${stray.long} ...`);
    return undefined;
  }
  if (workload !== 'tpcb') throw new UserError(`--pgbench initialises pgbench's tables: workload tpcb, not ${workload}`, 'use: headroom init tpcb --pgbench');
  if (given.has('partition-method') && !given.has('partitions')) throw new UserError('--partition-method needs --partitions N', 'see: headroom init --help');
  let steps = values['init-steps'];
  if (values['foreign-keys'] === true && !steps.includes('f')) steps += 'f';
  if (values['no-vacuum'] === true) steps = steps.replace(/v/g, '');
  return {
    steps,
    partitions: values.partitions,
    partitionMethod: values['partition-method'],
    fillfactor: values.fillfactor,
    unlogged: values['unlogged-tables'] === true,
    tablespace: values.tablespace,
    indexTablespace: values['index-tablespace'],
  };
}

/** pgbench -i's closing line: "done in T s (drop tables 0.00 s, ...)." */
export function pgbenchDoneLine(phases: readonly LoadPhase[]): string {
  const total = phases.reduce((n, p) => n + p.seconds, 0);
  return `done in ${total.toFixed(2)} s (${phases.map((p) => `${p.name} ${p.seconds.toFixed(2)} s`).join(', ')}).`;
}
