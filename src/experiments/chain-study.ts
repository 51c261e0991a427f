import { INT4_BOUND } from '../config/limits.js';
import { defineOptions, type OptionValues, type OptionValuesOf } from '../config/options.js';
import { DbError } from '../drivers/errors.js';
import { UserError } from '../errors.js';
import { parseArgs } from '../config/args.js';
import { CLOSING_OPTIONS, DB_OPTION, LOAD_FORCE_OPTION, SERVER_SETTINGS_OPTIONS } from '../session/options.js';
import { experimentOutOption } from './options.js';
import { logLine } from '../session/session.js';
import { loadData, refuseIncompleteData } from '../session/load-data.js';
import type { RunResult } from '../result/result.js';
import { chainStudyText } from '../reports/chain-study-text.js';
import type { ChainStudyRow } from '../result/experiment-rows.js';
import { chainDialect } from '../workloads/chain/dialect.js';
import { chain } from '../workloads/chain/index.js';
import { chainSizes } from '../workloads/chain/sizes.js';
import { STATEMENT_STYLES } from '../workloads/chain/statements.js';
import { checkClients, checkOpenFiles } from '../session/budget.js';
import { measureStep } from './measure.js';
import { runExperiment, type ExperimentContext } from './runner.js';

/** The study's localized runs split one client batch / 33 among the terminals. */
const LOCALIZED_DIVISOR = 33;

export type { ChainStudyRow };

export const CHAIN_STUDY_OPTIONS = defineOptions([
  DB_OPTION,
  {
    long: 'scale',
    short: 's',
    type: 'string',
    value: 'SCALE',
    help: 'chain data to run on (loaded when the database holds none or another scale)',
    default: '1/100',
  },
  {
    long: 'clients',
    short: 'c',
    type: 'integer',
    min: 1,
    value: 'N',
    help: "terminals of the distributed runs (default the study's: 33 on PostgreSQL, 150 on MariaDB, 33 elsewhere)",
  },
  { long: 'runs', type: 'integer', min: 1, value: 'N', help: 'distributed runs in a row, each one client batch split among the terminals', default: 3 },
  { long: 'localized-step', type: 'integer', min: 1, value: 'N', help: 'the localized sweep runs N, 2N, 3N ... terminals', default: 10 },
  {
    long: 'localized-max',
    type: 'integer',
    min: 0,
    value: 'N',
    help: 'last terminal count of the sweep (0: until the server refuses, as the study went)',
    default: 0,
  },
  {
    long: 'statements',
    type: 'string',
    value: 'STYLE',
    choices: [...STATEMENT_STYLES, 'both'],
    help: "study (what the study's program sends), prepared, or both (the whole sequence once per style)",
    default: 'study',
  },
  { long: 'load', type: 'string', value: 'MODE', choices: ['faithful', 'bulk'], help: 'how to load when data must be loaded', default: 'bulk' },
  {
    long: 'max-tries',
    type: 'integer',
    min: 1,
    ...INT4_BOUND,
    value: 'N',
    help: 'tries per unit on deadlocks and serialization failures (1: the study retried none)',
    default: 1,
  },
  LOAD_FORCE_OPTION,
  ...SERVER_SETTINGS_OPTIONS,
  { long: 'observe', type: 'boolean', help: 'sample the server beside each run and planning after it (--observe=false: do not)', default: true },
  experimentOutOption('chain-study'),
  ...CLOSING_OPTIONS,
]);

/**
 * `headroom experiment chain-study`: the study's sequence (chain-model.md, "Runs") on the chain
 * data: the operation table emptied, so that the first run starts at startR; three distributed
 * runs in a row, each terminal doing one batch / terminals units from the generator offsets the
 * study derives from the operations already there; then localized runs at 10, 20, ... terminals
 * until the server refuses. One table with the study's Total time beside headroom's tps.
 */
export async function chainStudyExperiment(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs(argv, CHAIN_STUDY_OPTIONS, 'experiment chain-study');
  if (positionals.length > 0)
    throw new UserError(`"headroom experiment chain-study" takes no arguments, got: ${positionals.join(' ')}`, 'see: headroom experiment chain-study --help');
  const scale = chain.parseScale(values.scale);
  const most = Math.max(values.clients ?? 0, values['localized-max']);
  checkOpenFiles(most, most === values.clients ? `-c ${most}` : `--localized-max ${most}`);
  const asked = values.statements;
  const styles = asked === 'both' ? [...STATEMENT_STYLES] : [asked];
  return runExperiment<ChainStudyRow>(
    'chain-study',
    argv,
    values,
    chain,
    { load: values.load },
    async (ctx) => {
      const { session } = ctx;
      const dbms = session.target.dbms;
      const clients = values.clients ?? chainDialect(dbms).studyClients ?? 33;
      await checkClients(session, clients, `-c ${clients}`);
      const base = { conn: session.conn, driver: session.driver, dbms, options: { load: values.load }, log: logLine };
      const present = await chain.detectScale(base);
      let phases: RunResult['data']['phases'] = [];
      if (present !== scale) {
        logLine(`loading chain at scale ${scale}`);
        phases = await loadData({
          session,
          workload: chain,
          options: base.options,
          scale,
          present,
          verb: 'experiment chain-study',
          force: values['force'] === true,
          signal: ctx.signal,
        });
      } else await refuseIncompleteData(session, chain, base.options, scale);
      const batch = chainSizes(scale).clientsPerBatch;
      for (const statements of styles) {
        // The first run starts its generators at startR only on an empty operation table.
        await session.conn.query('DELETE FROM operation');
        ctx.note(`${statements}: the operation table was emptied before the distributed runs`);
        const step = (mode: string, terminals: number, units: number, run: string): Promise<RunResult> =>
          measureOne(ctx, values, argv, { load: values.load, mode, statements }, scale, terminals, units, run, phases);
        for (let n = 1; n <= values.runs && !ctx.signal.aborted; n++) {
          const result = await step('distributed', clients, Math.max(1, Math.floor(batch / clients)), `distributed ${n}`);
          if (result.status !== 'completed') return;
        }
        const stride = values['localized-step'];
        const last = values['localized-max'];
        for (let terminals = stride; (last === 0 || terminals <= last) && !ctx.signal.aborted; terminals += stride) {
          const budget = await session.driver.connectionBudget(session.conn);
          if (budget && terminals > budget.max - budget.inUse) {
            ctx.note(
              `${statements}: the localized sweep ended before ${terminals} terminals: the server accepts ${budget.max - budget.inUse} more connections`,
            );
            break;
          }
          const units = Math.max(1, Math.floor(batch / LOCALIZED_DIVISOR / terminals));
          const result = await step('localized', terminals, units, `localized ${terminals}`).catch((error: unknown) => {
            // The study's own finding on PostgreSQL: the server refused terminals at some count.
            if (error instanceof DbError && (error.errorClass === 'capacity' || error.errorClass === 'connection_lost')) {
              ctx.note(`${statements}: the server refused ${terminals} localized terminals: ${error.message}`);
              return undefined;
            }
            throw error;
          });
          if (result === undefined || result.status !== 'completed') break;
          // A sweep without a limit on a server without one (SQLite) would not end.
          if (last === 0 && budget === undefined && terminals >= 15 * stride) break;
        }
      }
    },
    chainStudyText,
  );
}

async function measureOne(
  ctx: ExperimentContext<ChainStudyRow>,
  values: OptionValuesOf<typeof CHAIN_STUDY_OPTIONS>,
  argv: readonly string[],
  workloadOptions: OptionValues,
  scale: number,
  terminals: number,
  units: number,
  label: string,
  phases: RunResult['data']['phases'],
): Promise<RunResult> {
  logLine(`${workloadOptions['statements']}, ${label}: ${terminals} terminal(s) x ${units} units`);
  const observe = values['observe'] === true;
  const run = await measureStep(
    {
      ...ctx,
      workload: chain,
      workloadOptions,
      scale,
      clients: terminals,
      jobs: 1,
      durationSeconds: undefined,
      transactionsPerClient: units,
      maxTries: values['max-tries'],
      observe,
      data: { loadedBy: phases.length > 0 ? 'this-run' : 'earlier', phases },
      argv,
    },
    ctx.signal,
    ctx.hurry,
  );
  // The run pipeline sampled the planning after the run (run.planning), as headroom run does.
  const maxWaitMs = Math.max(0, ...run.terminals.map((t) => t.maxMs));
  const total = run.summary.totalTime;
  // Before every terminal works: their connecting, then the study style's stagger (the last one starts (terminals - 1) x stagger late).
  const stagger = (chain.terminalStaggerMs?.(workloadOptions) ?? 0) * (terminals - 1);
  const startMs = total === undefined ? null : Math.round(((total.connectMs ?? 0) + stagger) * 10) / 10;
  ctx.record(
    {
      statements: String(workloadOptions['statements']),
      run: label,
      terminals,
      unitsPerTerminal: units,
      transactions: run.summary.transactions,
      failed: run.summary.failed,
      totalMs: total?.ms ?? null,
      msPerTransaction: total?.msPerTransaction ?? null,
      trPerSec: total?.trPerSec ?? null,
      tps: run.summary.tps,
      maxWaitMs,
      avgWaitMs: run.summary.latencyMs.avg,
      planningMsPerUnit: run.planning?.planningMsPerUnit ?? null,
      planningShareOfServerCpu: run.planning?.shareOfServerCpu ?? null,
      startMs,
    },
    run,
  );
  return run;
}
