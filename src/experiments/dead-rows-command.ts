import { INT4_BOUND, SECONDS_BOUND } from '../config/limits.js';
import { randomInt } from 'node:crypto';
import { defineOptions } from '../config/options.js';
import { UserError } from '../errors.js';
import { parseArgs } from '../config/args.js';
import { CLOSING_OPTIONS, DB_OPTION, JOBS_OPTION, LOAD_FORCE_OPTION, SERVER_SETTINGS_OPTIONS } from '../session/options.js';
import { experimentOutOption } from './options.js';
import { logLine } from '../session/session.js';
import { loadData, refuseIncompleteData } from '../session/load-data.js';
import { deadRowsText } from '../reports/dead-rows-text.js';
import { progressLine } from '../reports/text.js';
import { kv } from '../workloads/kv/index.js';
import { runDeadRows } from './dead-rows.js';
import type { DeadRowsRow } from '../result/experiment-rows.js';
import { checkClients, checkOpenFiles } from '../session/budget.js';
import { runExperiment } from './runner.js';
import { AGENT_RUN_OPTIONS, agentRunOf } from '../session/agent-options.js';

export const DEAD_ROWS_OPTIONS = defineOptions([
  DB_OPTION,
  {
    long: 'scale',
    short: 's',
    type: 'string',
    value: 'ROWS',
    help: 'rows in the kv table: 1M, 10M, 1e9; loaded or extended first (default: what is there, else 1M)',
  },
  { long: 'clients', short: 'c', type: 'integer', min: 1, value: 'N', help: 'terminals of every run', default: 8 },
  JOBS_OPTION,
  { long: 'time', short: 'T', type: 'integer', min: 1, ...SECONDS_BOUND, value: 'SECONDS', help: 'measured duration of every run', default: 10 },
  {
    long: 'max-tries',
    type: 'integer',
    min: 1,
    ...INT4_BOUND,
    value: 'N',
    help: 'tries per transaction on serialization failures and deadlocks (Firebird update conflicts)',
    default: 1,
  },
  { long: 'seed', type: 'integer', min: 0, value: 'N', help: 'random seed of the first run; run i uses seed + i (default: a new one, stored in each run)' },
  LOAD_FORCE_OPTION,
  ...SERVER_SETTINGS_OPTIONS,
  { long: 'progress', short: 'P', type: 'integer', min: 0, ...SECONDS_BOUND, value: 'SECONDS', help: 'print progress every SECONDS (0: never)', default: 0 },
  experimentOutOption('dead-rows'),
  ...AGENT_RUN_OPTIONS,
  ...CLOSING_OPTIONS,
]);

/** `headroom experiment dead-rows`: kv read, update, read, the DBMS's maintenance, read; one table, one file. */
export async function deadRowsExperiment(argv: readonly string[]): Promise<number> {
  const { values, positionals, given } = parseArgs(argv, DEAD_ROWS_OPTIONS, 'experiment dead-rows');
  if (positionals.length > 0)
    throw new UserError(`"headroom experiment dead-rows" takes no arguments, got: ${positionals.join(' ')}`, 'see: headroom experiment dead-rows --help');
  const clients = values.clients;
  if (values.agents === undefined) checkOpenFiles(clients);
  const jobs = values.jobs;
  if (jobs > clients) throw new UserError(`-j ${jobs} is more than -c ${clients}`, 'each job needs at least one client: use -j up to -c');
  const asked = values.scale === undefined ? undefined : kv.parseScale(values.scale);
  const every = values.progress;
  let since = 0;
  const fleet = values.agents;
  if (fleet !== undefined && clients < fleet)
    throw new UserError(`-c ${clients} is fewer than --agents ${fleet}`, 'each agent needs at least one terminal: use -c of at least --agents');
  const agents = await agentRunOf(values, given);

  return runExperiment<DeadRowsRow>(
    'dead-rows',
    argv,
    values,
    kv,
    { test: 'read' },
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
        durationSeconds: values.time,
        maxTries: values['max-tries'],
        seed: values.seed ?? randomInt(0, 2 ** 31),
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
