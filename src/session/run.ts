import { randomInt } from 'node:crypto';
import type { OptionValues, OptionValuesOf } from '../config/options.js';
import type { DB_OPTION, SERVER_SETTINGS_OPTIONS } from './options.js';
import type { SeriesPoint } from '../engine/measurements.js';
import type { SettingAsked } from '../result/server-settings-record.js';
import { ServerSettings } from './server-settings.js';
import type { RunResult } from '../result/result.js';
import type { SweepResult } from '../result/sweep.js';
import { defaultResultPath, type ResultOutput } from '../result/write.js';
import { evaluateThresholds, type Threshold } from '../thresholds/threshold.js';
import type { LoadPhase, Workload } from '../workloads/workload.js';
import type { ConnectionBudget } from '../drivers/driver.js';
import type { AgentRun } from '../agents/coordinator.js';
import { checkClients, settledBudget } from './budget.js';
import { onInterrupt, watchBeforeWork } from './interrupt.js';
import { BEFORE_THE_RUN } from './unanswered-notice.js';
import { measuredData } from './data-options.js';
import { loadData, refuseIncompleteData, refuseUnfinishedLoad } from './load-data.js';
import { measureOnce, type RunPlan } from './measure.js';
import { dataContext, logLine, openSession, settingsContext, type Session } from './session.js';
import { restoreUnlessUnanswered } from './post-run.js';
import { UserError } from '../errors.js';

/**
 * How a run meets its user where the pipeline leaves it a choice: `headroom run` loads missing
 * data; `headroom pgbench` refuses missing data, prepares as pgbench does and prints pgbench's lines.
 */
export interface RunHooks {
  /** Called where the data would be loaded when missing; throws to refuse instead. */
  missingData?(session: Session): never;
  /** After the data is found, before the terminals start (pgbench's vacuum). */
  beforeRun?(session: Session, scale: number): Promise<void>;
  /** Each -P line; headroom's own line with its additions by default. */
  progress?(point: SeriesPoint): void;
  /** The result file to write, undefined for none; default: -o, else the results folder. */
  resultFile?(result: RunResult): string | undefined;
  /**
   * False: no check of the server's connection budget before the run (headroom pgbench: pgbench
   * has none, and a connection the server refuses is told in libpq's words, as pgbench tells it).
   */
  checksBudget?: boolean;
  /**
   * False: the data is neither looked for nor loaded, and the scale is -s, else the workload's
   * default (headroom pgbench with its own scripts only: pgbench reads pgbench_branches for its
   * built-in scripts alone, and gives custom scripts :scale 1 unless -s says otherwise).
   */
  readsData?: boolean;
}

/** A `headroom run` as its command line asked for it, parsed and checked. */
export interface RunRequest {
  /** `run` or `pgbench`, as other commands are told it. */
  verb: string;
  workload: Workload;
  workloadOptions: OptionValues;
  /** --db, --set and --i-accept-data-loss, as the command line gave them. */
  values: OptionValuesOf<[typeof DB_OPTION, ...typeof SERVER_SETTINGS_OPTIONS]>;
  /** The options given on the command line: the data's recorded options fill in the others. */
  given: ReadonlySet<string>;
  /** -c: one run, or a sweep's steps. */
  steps: readonly number[];
  /** -s, undefined when not given. */
  askedScale: number | undefined;
  /** --set. */
  settings: SettingAsked[];
  thresholds: Threshold[];
  /** -o, undefined for the default path. */
  out: string | undefined;
  /** --seed, undefined for a new one. */
  seed: number | undefined;
  /** --agents: the bus is open; the pipeline closes it. */
  agents: AgentRun | undefined;
  /** What every measured period shares that the command line decides. */
  measure: Omit<RunPlan, 'session' | 'server' | 'workload' | 'workloadOptions' | 'scale' | 'data' | 'seed' | 'signal' | 'settings' | 'agents' | 'progress'>;
}

/**
 * What a run left to print and write: one result and the file it goes to (undefined: none), which
 * the caller writes after printing the summary, so that a file that cannot be written never costs
 * the figures; or a sweep, whose output the steps were written to and which the caller writes last.
 */
export type RunOutcome = { kind: 'run'; result: RunResult; file: string | undefined } | { kind: 'sweep'; sweep: SweepResult; output: ResultOutput };

/**
 * The run pipeline below the command line: opens the session, applies --set (and puts it back
 * however the run ends), refuses more clients than the server accepts, finds or loads the data,
 * creates the journal table, measures (one run or a sweep) with one Ctrl-C handler that lets the
 * run write what it measured; the caller writes the result (RunOutcome).
 */
export async function runMeasured(request: RunRequest, hooks: RunHooks = {}): Promise<RunOutcome> {
  const { workload, values, workloadOptions, steps, agents } = request;
  const asked = request.askedScale;
  const session = await openSession(values, workload, workloadOptions).catch(async (error: unknown) => {
    await agents?.bus.nc.close();
    throw error;
  });
  let settings: ServerSettings | undefined;
  // Until the run starts, a statement the server leaves unanswered is told rather than waited on
  // in silence, and Ctrl-C says what it stopped. A load and the run have their own.
  const watchBeforeRun = (): (() => void) => watchBeforeWork(session, BEFORE_THE_RUN, () => settings?.unrestored());
  let stopWatching = watchBeforeRun();
  try {
    // Before serverInfo, so the durability label reads the settings the run will have.
    settings = await ServerSettings.apply(session.driver, session.conn, request.settings, logLine, settingsContext(values, session.target, request.verb));
    const server = await session.driver.serverInfo(session.conn);
    // A sweep asks before each step instead: the server refusing one is its finding. Either reads
    // the free places before the load, for the terminals to wait for a load's extra connections.
    let budget: ConnectionBudget | undefined;
    if (hooks.checksBudget !== false) {
      budget =
        !request.measure.force && steps.length === 1
          ? await checkClients(session, steps[0]!, `-c ${steps[0]}`, true)
          : await session.driver.connectionBudget(session.conn);
    }
    const freeBeforeLoad = budget === undefined ? undefined : budget.max - budget.inUse;
    const needsData = hooks.readsData !== false && (workload.needsData?.(workloadOptions) ?? true);
    const present = needsData
      ? await workload.detectScale({ conn: session.conn, driver: session.driver, dbms: session.target.dbms, options: workloadOptions, log: logLine })
      : undefined;
    // A half-loaded dataset is not to be measured at any scale, nor quietly loaded over; where the
    // workload sees data, refuseIncompleteData reads the load record itself.
    if (present !== undefined) await refuseIncompleteData(session, workload, workloadOptions, present);
    else if (needsData) await refuseUnfinishedLoad(session, workload);
    if (present !== undefined && asked !== undefined && present !== asked) {
      throw new UserError(
        `the database holds ${workload.name} data at scale ${present}, not ${asked}`,
        `omit -s to use it, or reload: headroom init ${workload.name} -s ${asked}`,
      );
    }
    const scale = present ?? asked ?? workload.defaultScale;
    let phases: LoadPhase[] = [];
    if (present === undefined && needsData) {
      hooks.missingData?.(session);
      logLine(`loading ${workload.name} at scale ${scale} into ${session.url}`);
      // A load tells its own progress, and gives up on its own when nothing moves.
      stopWatching();
      phases = await loadData({ session, workload, options: workloadOptions, scale, present, verb: 'run', force: false });
      stopWatching = watchBeforeRun();
    }
    const loadedBy = !needsData ? 'none' : present === undefined ? 'this-run' : 'earlier';
    const data = await measuredData(session, workload, workloadOptions, request.given, scale, loadedBy, phases);
    if (needsData && workload.readyForRun) {
      const ctx = dataContext(session, workloadOptions, scale, (m) => logLine(`  ${m}`));
      await workload.readyForRun(ctx).finally(() => ctx.done());
    }

    await hooks.beforeRun?.(session, scale);
    if (request.measure.journalFile !== undefined) await session.conn.query((await import('../engine/journal.js')).journalTableDdl(session.target.dbms));
    // measureOnce watches its own start.
    stopWatching();

    const applied = settings;
    const interrupt = onInterrupt('stopping the terminals and writing what was measured', () => applied.unrestored());
    const plan: RunPlan = {
      ...request.measure,
      session,
      server,
      workload,
      workloadOptions,
      scale,
      data,
      seed: request.seed ?? randomInt(0, 2 ** 31),
      signal: interrupt.signal,
      hurry: interrupt.hurry,
      settings,
      ...(agents ? { agents } : {}),
      ...(hooks.progress ? { progress: hooks.progress } : {}),
    };
    try {
      if (steps.length > 1) return { kind: 'sweep', ...(await (await import('./sweep.js')).runSweep(plan, steps, request.out, freeBeforeLoad)) };
      if (loadedBy === 'this-run') await settledBudget(session, plan.signal, freeBeforeLoad);
      const result = await measureOnce(plan, steps[0]!);
      if (request.thresholds.length > 0) result.thresholds = evaluateThresholds(request.thresholds, result);
      // Put back before the result is written, so it records whether that worked.
      await restoreUnlessUnanswered(session, settings);
      const file = hooks.resultFile ? hooks.resultFile(result) : (request.out ?? defaultResultPath(result));
      return { kind: 'run', result, file };
    } finally {
      interrupt.dispose();
    }
  } finally {
    stopWatching();
    if (settings) await restoreUnlessUnanswered(session, settings);
    await session.close();
    await agents?.bus.nc.drain().catch(() => undefined);
  }
}
