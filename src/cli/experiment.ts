import { randomInt } from 'node:crypto';
import type { OptionSpec } from '../config/options.js';
import { UserError } from '../errors.js';
import { runDeadRows } from '../experiments/dead-rows.js';
import { experimentText } from '../reports/experiment-text.js';
import { progressLine } from '../reports/text.js';
import { defaultExperimentPath, writeResult } from '../result/write.js';
import { kv } from '../workloads/kv/index.js';
import { parseArgs } from './args.js';
import { DB_OPTION, HELP_OPTION, VERBOSE_OPTION, dataContext, logLine, openSession } from './common.js';

const EXPERIMENTS = ['dead-rows'] as const;

export const EXPERIMENT_OPTIONS: OptionSpec[] = [
  DB_OPTION,
  { long: 'scale', short: 's', type: 'string', value: 'ROWS', help: 'rows in the kv table: 1M, 10M, 1e9; loaded or extended first (default: what is there, else 1M)' },
  { long: 'clients', short: 'c', type: 'integer', min: 1, value: 'N', help: 'terminals of every run', default: 8 },
  { long: 'jobs', short: 'j', type: 'integer', min: 1, value: 'N', help: 'threads the terminals are spread over', default: 1 },
  { long: 'time', short: 'T', type: 'integer', min: 1, value: 'SECONDS', help: 'measured duration of every run', default: 10 },
  { long: 'max-tries', type: 'integer', min: 1, value: 'N', help: 'tries per transaction on serialization failures and deadlocks (Firebird update conflicts)', default: 1 },
  { long: 'seed', type: 'integer', min: 0, value: 'N', help: 'random seed of the first run; run i uses seed + i (default: a new one, stored in the file)' },
  { long: 'progress', short: 'P', type: 'integer', min: 0, value: 'SECONDS', help: 'print progress every SECONDS (0: never)', default: 0 },
  { long: 'out', short: 'o', type: 'string', value: 'FILE', help: 'experiment file (default headroom-results/EXPERIMENT-DBMS-TIME.json)' },
  VERBOSE_OPTION,
  HELP_OPTION,
];

/** `headroom experiment NAME`: a published study's protocol, several runs and the steps between them, one file and one table. */
export async function experimentCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals, given } = parseArgs(argv, EXPERIMENT_OPTIONS, 'experiment');
  const name = positionals[0];
  if (name === undefined || positionals.length > 1 || !(EXPERIMENTS as readonly string[]).includes(name)) {
    throw new UserError(name === undefined ? 'name the experiment to run' : `unknown experiment "${positionals.join(' ')}"`, `experiments: ${EXPERIMENTS.join(', ')} (e.g. headroom experiment dead-rows -s 1M)`);
  }
  const clients = values['clients'] as number;
  const jobs = values['jobs'] as number;
  if (jobs > clients) throw new UserError(`-j ${jobs} is more than -c ${clients}`, 'each job needs at least one client: use -j up to -c');
  const asked = given.has('scale') ? kv.parseScale(values['scale'] as string) : undefined;

  const session = await openSession(values, kv);
  try {
    const info = await session.driver.serverInfo(session.conn);
    const budget = await session.driver.connectionBudget(session.conn);
    if (budget && clients > budget.max - budget.inUse) {
      throw new UserError(`the server accepts ${budget.max - budget.inUse} more connections (max_connections ${budget.max}, ${budget.inUse} in use), but -c ${clients} needs ${clients}`, `use -c ${Math.max(1, budget.max - budget.inUse)} or less`);
    }
    const base = { conn: session.conn, driver: session.driver, dbms: session.target.dbms, options: { test: 'read' }, log: logLine };
    const present = await kv.detectScale(base);
    const rows = asked ?? present ?? kv.defaultScale;
    if (present !== rows) {
      logLine(`loading kv to ${rows.toLocaleString('en-US')} rows into ${session.url}`);
      await kv.load(dataContext(session, base.options, rows, (m) => logLine(`  ${m}`)));
    }

    const abort = new AbortController();
    const onSignal = (): void => {
      if (abort.signal.aborted) process.exit(130);
      logLine('interrupted: stopping and writing what was measured (Ctrl-C again to quit at once)');
      abort.abort();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    const every = values['progress'] as number;
    let since = 0;
    const seed = (values['seed'] as number | undefined) ?? randomInt(0, 2 ** 31);
    const durationSeconds = values['time'] as number;
    const result = await runDeadRows(
      { target: session.target, url: session.url, driver: session.driver, conn: session.conn, info },
      { rows, clients, jobs, durationSeconds, maxTries: values['max-tries'] as number, seed, argv: ['experiment', ...argv] },
      {
        signal: abort.signal,
        log: logLine,
        onInterval: (point) => {
          if (every > 0 && ++since >= every) {
            since = 0;
            logLine(progressLine(point));
          }
        },
      },
    ).finally(() => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    });
    const file = (values['out'] as string | undefined) ?? defaultExperimentPath(result);
    await writeResult(result, file);
    process.stdout.write(`${experimentText(result, file)}\n`);
    return result.status === 'interrupted' ? 130 : result.status === 'failed' ? 1 : 0;
  } finally {
    await session.close();
  }
}
