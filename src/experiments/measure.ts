import { randomInt } from 'node:crypto';
import { runsOnThisMachine } from '../config/target.js';
import type { OptionValues } from '../config/options.js';
import type { ServerInfo } from '../drivers/driver.js';
import { runEngine } from '../engine/engine.js';
import type { SeriesPoint } from '../engine/measurements.js';
import type { ServerSettings } from '../engine/server-settings.js';
import { UserError } from '../errors.js';
import { RunObserver } from '../observe/run-observer.js';
import { buildResult } from '../result/build.js';
import { jobFailureReason } from '../result/job-failure.js';
import { engineWorkload, moduleRecord } from '../module/adapt.js';
import type { RunResult } from '../result/result.js';
import type { Session } from '../cli/common.js';
import type { Workload } from '../workloads/workload.js';

/** One measured step of an experiment: a closed-loop run of a workload on data already loaded. */
export interface Step {
  session: Session;
  server: ServerInfo;
  settings: ServerSettings;
  workload: Workload;
  workloadOptions: OptionValues;
  scale: number;
  clients: number;
  jobs: number;
  /** Measured seconds; undefined when the step is bounded by transactionsPerClient instead. */
  durationSeconds: number | undefined;
  /** -t: transactions per terminal (the chain study's units per terminal); absent under durationSeconds. */
  transactionsPerClient?: number;
  observe: boolean;
  data: RunResult['data'];
  argv: readonly string[];
  /** The run's random seed (default: a new one; it is stored in the run's result either way). */
  seed?: number;
  /** Tries per transaction on serialization failures and deadlocks (default 1). */
  maxTries?: number;
  /** Called with every 1-second point, for progress lines. */
  onInterval?: (point: SeriesPoint) => void;
}

/** Refuses more clients than the server accepts before anything runs, as `headroom run` does. */
export async function checkClients(session: Session, clients: number, what: string): Promise<void> {
  const budget = await session.driver.connectionBudget(session.conn);
  if (budget && clients > budget.max - budget.inUse) {
    throw new UserError(
      `the server accepts ${budget.max - budget.inUse} more connections (max_connections ${budget.max}, ${budget.inUse} in use), but ${what} needs ${clients}`,
      `use -c ${Math.max(1, budget.max - budget.inUse)} or less, or raise max_connections`,
    );
  }
}

/** Runs one step and returns it as a run result of its own (each experiment file holds them all). */
export async function measureStep(step: Step, signal: AbortSignal): Promise<RunResult> {
  const { session, workload, clients, jobs, durationSeconds, scale } = step;
  const seed = step.seed ?? randomInt(0, 2 ** 31);
  const maxTries = step.maxTries ?? 1;
  const observer = step.observe ? await RunObserver.start(session.driver.observe(session.conn), runsOnThisMachine(session.target), workload.tables) : undefined;
  const outcome = await runEngine(
    {
      target: session.target,
      workload: engineWorkload(workload),
      options: step.workloadOptions,
      scale,
      clients,
      jobs,
      durationSeconds,
      transactionsPerClient: step.transactionsPerClient,
      rate: undefined,
      warmupSeconds: 0,
      maxTries,
      seed,
      journal: undefined,
      acceptRefusals: false,
      // The experiments run on one server; routing to replicas is headroom run's.
      routing: undefined,
      // headroom run's defaults: prepared statements, no per-command figures.
      protocol: 'prepared',
      perCommand: false,
      sessionStatements: step.settings.sessionStatements,
    },
    signal,
    step.onInterval ?? (() => {}),
  ).catch(async (error: unknown) => {
    await observer?.stop().catch(() => undefined);
    throw error;
  });
  const observed = (await observer?.stop()) ?? null;
  return buildResult({
    outcome,
    server: step.server,
    observed,
    url: session.url,
    data: step.data,
    config: {
      workload: workload.name,
      ...moduleRecord(workload),
      workloadOptions: step.workloadOptions,
      scale,
      clients,
      jobs,
      durationSeconds: durationSeconds ?? null,
      transactionsPerClient: step.transactionsPerClient ?? null,
      rate: null,
      warmupSeconds: 0,
      maxTries,
      seed,
      journal: null,
      argv: [...step.argv],
      ...(workload.statements ? { statements: workload.statements(step.workloadOptions, session.driver.dbms) } : {}),
      ...(step.settings.record().asked.length > 0 ? { serverSettings: step.settings.record() } : {}),
    },
    ...(outcome.status === 'interrupted'
      ? { statusReason: 'interrupted by a signal' }
      : outcome.jobFailure
        ? { statusReason: jobFailureReason(outcome) }
        : outcome.failure
          ? { statusReason: `terminals stopped on a bad request: ${outcome.failure.message}` }
          : {}),
  });
}

/** Peak and mean queries/s over the measured 1-second windows (the study's metric is the peak). */
export function perSecond(result: RunResult): { peak: number; mean: number } {
  const windows = result.series.filter((p) => p.phase === 'measure' && p.seconds >= 0.5);
  return { peak: Math.max(0, ...windows.map((p) => p.tps)), mean: result.summary.tps };
}
