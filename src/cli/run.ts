import { randomBytes, randomInt } from 'node:crypto';
import { JOURNAL_TABLE_DDL } from '../engine/journal.js';
import type { OptionSpec } from '../config/options.js';
import { UserError } from '../errors.js';
import { checkWeights } from '../engine/deck.js';
import { RunObserver } from '../observe/run-observer.js';
import { runsOnThisMachine } from '../config/target.js';
import { runEngine } from '../engine/engine.js';
import { buildResult } from '../result/build.js';
import { defaultResultPath, writeResult } from '../result/write.js';
import type { RunResult } from '../result/result.js';
import { progressLine, summaryText } from '../reports/text.js';
import { LiveView } from '../reports/live.js';
import type { LoadPhase } from '../workloads/workload.js';
import { parseSettings, ServerSettings } from '../engine/server-settings.js';
import { DB_OPTION, HELP_OPTION, SCALE_OPTION, SET_OPTION, VERBOSE_OPTION, askedScale, dataContext, logLine, openSession, parseVerbArgs } from './common.js';

export const DEFAULT_DURATION_SECONDS = 10;

export const RUN_OPTIONS: OptionSpec[] = [
  DB_OPTION,
  { long: 'clients', short: 'c', type: 'integer', min: 1, value: 'N', help: 'terminals, each on its own connection', default: 1 },
  { long: 'jobs', short: 'j', type: 'integer', min: 1, value: 'N', help: 'threads the terminals are spread over', default: 1 },
  { long: 'time', short: 'T', type: 'integer', min: 1, value: 'SECONDS', help: `measured duration (default ${DEFAULT_DURATION_SECONDS} unless -t is given)` },
  { long: 'transactions', short: 't', type: 'integer', min: 1, value: 'N', help: 'transactions per client instead of a duration' },
  SCALE_OPTION,
  { long: 'progress', short: 'P', type: 'integer', min: 0, value: 'SECONDS', help: 'print progress every SECONDS (0: never)', default: 1 },
  { long: 'rate', short: 'R', type: 'number', min: 0.001, value: 'TPS', help: 'open loop: schedule TPS transactions per second in all, latency counted from the scheduled start' },
  { long: 'warmup', type: 'integer', min: 0, value: 'SECONDS', help: 'run this long before measuring; excluded from the results', default: 0 },
  { long: 'max-tries', type: 'integer', min: 1, value: 'N', help: 'tries per transaction on serialization failures and deadlocks (1: no retry)', default: 1 },
  { long: 'seed', type: 'integer', min: 0, value: 'N', help: 'random seed (default: a new one each run, stored in the result)' },
  { long: 'observe', type: 'boolean', help: "sample the server beside the run: its CPU and I/O, waits, sizes, top statements (--observe=false: don't)", default: true },
  { long: 'live', type: 'boolean', help: 'on a terminal, redraw a compact live view in place of the progress lines (--live=false: lines)', default: true },
  { long: 'out', short: 'o', type: 'string', value: 'FILE', help: 'result file (default headroom-results/WORKLOAD-DBMS-TIME.json)' },
  {
    long: 'journal',
    type: 'string',
    value: 'FILE',
    help: 'durability check: every commit also stores an id in headroom_journal and, once acknowledged, in FILE (fsynced); verify later with headroom check --journal FILE',
  },
  { long: 'force', type: 'boolean', help: 'run with the connections the server accepts when it refuses some, and report how many it refused' },
  SET_OPTION,
  VERBOSE_OPTION,
  HELP_OPTION,
];

/** `headroom run`: load the data if it is not there, measure, write the result, print the summary. */
export async function runCommand(argv: readonly string[]): Promise<number> {
  const { workload, values, given, workloadOptions } = parseVerbArgs(argv, 'run', RUN_OPTIONS);
  if (given.has('time') && given.has('transactions')) throw new UserError('give -T (duration) or -t (transactions per client), not both', 'see: headroom run --help');
  const transactionsPerClient = values['transactions'] as number | undefined;
  const durationSeconds = transactionsPerClient === undefined ? ((values['time'] as number | undefined) ?? DEFAULT_DURATION_SECONDS) : undefined;
  const clients = values['clients'] as number;
  const jobs = values['jobs'] as number;
  if (jobs > clients) throw new UserError(`-j ${jobs} is more than -c ${clients}`, 'each job needs at least one client: use -j up to -c');
  // A bad mix is refused before anything is loaded.
  checkWeights(workload.transactions(workloadOptions).map((t) => t.weight));
  const asked = askedScale(workload, values);
  const settingsAsked = parseSettings(values['set'] as string[] | undefined);

  const session = await openSession(values, workload);
  let settings: ServerSettings | undefined;
  try {
    settings = await ServerSettings.apply(session.driver, session.conn, settingsAsked, logLine);
    const server = await session.driver.serverInfo(session.conn);
    const budget = await session.driver.connectionBudget(session.conn);
    const force = values['force'] === true;
    if (budget && clients > budget.max - budget.inUse && !force) {
      throw new UserError(
        `the server accepts ${budget.max - budget.inUse} more connections (max_connections ${budget.max}, ${budget.inUse} in use), but -c ${clients} needs ${clients}`,
        `use -c ${Math.max(1, budget.max - budget.inUse)} or less, raise max_connections, or --force to run with what the server accepts`,
      );
    }
    const present = await workload.detectScale({ conn: session.conn, driver: session.driver, dbms: session.target.dbms, options: workloadOptions, log: logLine });
    if (present !== undefined && asked !== undefined && present !== asked) {
      throw new UserError(`the database holds ${workload.name} data at scale ${present}, not ${asked}`, `omit -s to use it, or reload: headroom init ${workload.name} -s ${asked}`);
    }
    const scale = present ?? asked ?? workload.defaultScale;
    let phases: LoadPhase[] = [];
    if (present === undefined) {
      logLine(`loading ${workload.name} at scale ${scale} into ${session.url}`);
      phases = await workload.load(dataContext(session, workloadOptions, scale, (m) => logLine(`  ${m}`)));
    }

    const loadMode = await workload.loadMode?.({ conn: session.conn, driver: session.driver, dbms: session.target.dbms, options: workloadOptions, log: logLine });

    const abort = new AbortController();
    const progressEvery = values['progress'] as number;
    // Progress lines stay as they are wherever stderr is not a terminal: logs and scripts read them.
    const live =
      progressEvery > 0 && values['live'] === true && process.stderr.isTTY && process.env['TERM'] !== 'dumb'
        ? new LiveView(process.stderr, `headroom ${workload.name} on ${session.url}, ${clients} client(s)`, durationSeconds, values['warmup'] as number)
        : undefined;
    const onSignal = (): void => {
      live?.finish();
      if (abort.signal.aborted) {
        const left = settings?.unrestored();
        if (left) logLine(left);
        process.exit(130);
      }
      logLine('interrupted: stopping the terminals and writing what was measured (Ctrl-C again to quit at once)');
      abort.abort();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    let sinceProgress = 0;
    const seed = (values['seed'] as number | undefined) ?? randomInt(0, 2 ** 31);
    const rate = values['rate'] as number | undefined;
    const warmupSeconds = values['warmup'] as number;
    const maxTries = values['max-tries'] as number;
    const journalFile = values['journal'] as string | undefined;
    const journal = journalFile === undefined ? undefined : { file: journalFile, runId: randomBytes(6).toString('hex') };
    if (journal) await session.conn.query(JOURNAL_TABLE_DDL);
    logLine(`running ${workload.name} on ${session.url}: ${clients} client(s), ${jobs} job(s), ${durationSeconds !== undefined ? `${durationSeconds} s` : `${transactionsPerClient} transactions per client`}`);
    const observer = values['observe'] === false ? undefined : await RunObserver.start(session.driver.observe(session.conn), runsOnThisMachine(session.target));
    const outcome = await runEngine(
      { target: session.target, workload: workload.name, options: workloadOptions, scale, clients, jobs, durationSeconds, transactionsPerClient, rate, warmupSeconds, maxTries, seed, journal, acceptRefusals: force, sessionStatements: settings.sessionStatements },
      abort.signal,
      (point) => {
        if (live) live.update(point);
        else if (progressEvery > 0 && ++sinceProgress >= progressEvery) {
          sinceProgress = 0;
          logLine(progressLine(point));
        }
      },
    )
      .catch(async (error: unknown) => {
        // The terminals never started (e.g. the server refused them): stop sampling, then report.
        await observer?.stop().catch(() => undefined);
        throw error;
      })
      .finally(() => {
        live?.finish();
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      });
    const observed = (await observer?.stop()) ?? null;
    await settings.restore();

    const result: RunResult = buildResult({
      outcome,
      server,
      observed,
      url: session.url,
      data: { loadedBy: present === undefined ? 'this-run' : 'earlier', phases, ...(loadMode === undefined ? {} : { loadMode }) },
      config: {
        workload: workload.name,
        workloadOptions,
        scale,
        clients,
        jobs,
        durationSeconds: durationSeconds ?? null,
        transactionsPerClient: transactionsPerClient ?? null,
        rate: rate ?? null,
        warmupSeconds,
        maxTries,
        seed,
        journal: journal ? { file: journal.file, runId: journal.runId } : null,
        argv: [...argv],
        ...(settingsAsked.length > 0 ? { serverSettings: settings.record() } : {}),
      },
      ...(outcome.status === 'interrupted'
        ? { statusReason: 'interrupted by a signal' }
        : outcome.failure
          ? { statusReason: `terminals stopped on a bad request: ${outcome.failure.message}` }
          : {}),
    });
    const file = (values['out'] as string | undefined) ?? defaultResultPath(result);
    await writeResult(result, file);
    process.stdout.write(`${summaryText(result, file)}\n`);
    return result.status === 'interrupted' ? 130 : result.status === 'failed' ? 1 : 0;
  } finally {
    await settings?.restore();
    await session.close();
  }
}
