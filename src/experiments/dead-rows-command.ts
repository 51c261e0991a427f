import { randomInt } from 'node:crypto';
import type { OptionSpec } from '../config/options.js';
import { UserError } from '../errors.js';
import { parseArgs } from '../config/args.js';
import { ACCEPT_DATA_LOSS_OPTION, DB_OPTION, HELP_OPTION, SET_OPTION, VERBOSE_OPTION } from '../session/options.js';
import { logLine } from '../session/session.js';
import { loadData, refuseIncompleteData } from '../session/load-data.js';
import { deadRowsText } from '../reports/dead-rows-text.js';
import { progressLine } from '../reports/text.js';
import { kv } from '../workloads/kv/index.js';
import { runDeadRows } from './dead-rows.js';
import type { DeadRowsRow } from '../result/experiment-rows.js';
import { checkClients } from '../session/budget.js';
import { runExperiment } from './runner.js';
import { AGENT_RUN_OPTIONS, agentRunOf } from '../session/agent-options.js';

export const DEAD_ROWS_OPTIONS: OptionSpec[] = [
  DB_OPTION,
  {
    long: 'scale',
    short: 's',
    type: 'string',
    value: 'ROWS',
    help: 'rows in the kv table: 1M, 10M, 1e9; loaded or extended first (default: what is there, else 1M)',
  },
  { long: 'clients', short: 'c', type: 'integer', min: 1, value: 'N', help: 'terminals of every run', default: 8 },
  { long: 'jobs', short: 'j', type: 'integer', min: 1, value: 'N', help: 'threads the terminals are spread over', default: 1 },
  { long: 'time', short: 'T', type: 'integer', min: 1, value: 'SECONDS', help: 'measured duration of every run', default: 10 },
  {
    long: 'max-tries',
    type: 'integer',
    min: 1,
    value: 'N',
    help: 'tries per transaction on serialization failures and deadlocks (Firebird update conflicts)',
    default: 1,
  },
  { long: 'seed', type: 'integer', min: 0, value: 'N', help: 'random seed of the first run; run i uses seed + i (default: a new one, stored in each run)' },
  { long: 'force', type: 'boolean', help: 'drop data of a larger scale to load a smaller one (refused without it)' },
  SET_OPTION,
  ACCEPT_DATA_LOSS_OPTION,
  { long: 'progress', short: 'P', type: 'integer', min: 0, value: 'SECONDS', help: 'print progress every SECONDS (0: never)', default: 0 },
  { long: 'out', short: 'o', type: 'string', value: 'FILE', help: 'experiment file (default headroom-results/dead-rows-DBMS-TIME.json)' },
  ...AGENT_RUN_OPTIONS,
  VERBOSE_OPTION,
  HELP_OPTION,
];

/** `headroom experiment dead-rows`: kv read, update, read, the DBMS's maintenance, read; one table, one file. */
export async function deadRowsExperiment(argv: readonly string[]): Promise<number> {
  const { values, positionals, given } = parseArgs(argv, DEAD_ROWS_OPTIONS, 'experiment dead-rows');
  if (positionals.length > 0)
    throw new UserError(`"headroom experiment dead-rows" takes no arguments, got: ${positionals.join(' ')}`, 'see: headroom experiment dead-rows --help');
  const clients = values['clients'] as number;
  const jobs = values['jobs'] as number;
  if (jobs > clients) throw new UserError(`-j ${jobs} is more than -c ${clients}`, 'each job needs at least one client: use -j up to -c');
  const asked = given.has('scale') ? kv.parseScale(values['scale'] as string) : undefined;
  const every = values['progress'] as number;
  let since = 0;
  const fleet = values['agents'] as number | undefined;
  if (fleet !== undefined && clients < fleet)
    throw new UserError(`-c ${clients} is fewer than --agents ${fleet}`, 'each agent needs at least one terminal: use -c of at least --agents');
  const agents = await agentRunOf(values, given);

  return runExperiment<DeadRowsRow>(
    'dead-rows',
    argv,
    values,
    kv,
    async (ctx) => {
      const { session } = ctx;
      await checkClients(session, clients, `-c ${clients}`);
      const options = { test: 'read' };
      const present = await kv.detectScale({ conn: session.conn, driver: session.driver, dbms: session.target.dbms, options, log: logLine });
      const rows = asked ?? present ?? kv.defaultScale;
      let phases: Awaited<ReturnType<typeof kv.load>> = [];
      if (present !== rows) {
        logLine(`loading kv to ${rows.toLocaleString('en-US')} rows into ${session.url}`);
        const force = values['force'] === true;
        phases = await loadData({ session, workload: kv, options, scale: rows, present, verb: 'experiment dead-rows', force, signal: ctx.signal });
      } else await refuseIncompleteData(session, kv, options, rows);
      await runDeadRows(ctx, {
        rows,
        clients,
        jobs,
        durationSeconds: values['time'] as number,
        maxTries: values['max-tries'] as number,
        seed: (values['seed'] as number | undefined) ?? randomInt(0, 2 ** 31),
        argv,
        data: { loadedBy: phases.length > 0 ? 'this-run' : 'earlier', phases },
        onInterval: (point) => {
          if (every > 0 && ++since >= every) {
            since = 0;
            logLine(progressLine(point));
          }
        },
      });
    },
    deadRowsText,
    agents,
  );
}
