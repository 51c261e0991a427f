import { randomInt } from 'node:crypto';
import type { OptionValues } from '../config/options.js';
import type { ServerInfo } from '../drivers/driver.js';
import type { SeriesPoint } from '../engine/measurements.js';
import type { ServerSettings } from '../session/server-settings.js';
import type { RunResult } from '../result/result.js';
import { DEFAULT_MAX_FAILED_PERCENT } from '../result/status.js';
import { NO_PGBENCH_SETTINGS, measureOnce } from '../session/measure.js';
import type { Session } from '../session/session.js';
import type { Workload } from '../workloads/workload.js';
import type { AgentRun } from '../agents/coordinator.js';

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
  /** The command argv follows ("experiment NAME"; the runner's context gives it). */
  verb: string;
  /** The run's random seed (default: a new one; it is stored in the run's result either way). */
  seed?: number;
  /** Tries per transaction on serialization failures and deadlocks (default 1). */
  maxTries?: number;
  /** --max-failed in percent (default: headroom run's, result/status.ts). */
  maxFailedPercent?: number;
  /** Called with every 1-second point, for progress lines. */
  onInterval?: (point: SeriesPoint) => void;
  /** --agents: the step's terminals run on the agents, sharded as in headroom run; its result gets their record. */
  agents?: AgentRun;
}

/**
 * Runs one step through the run pipeline (session/measure.ts) with headroom run's defaults, and
 * returns it as a run result of its own (each experiment file holds them all).
 */
export async function measureStep(step: Step, signal: AbortSignal, hurry?: AbortSignal): Promise<RunResult> {
  return measureOnce(
    {
      session: step.session,
      server: step.server,
      settings: step.settings,
      workload: step.workload,
      workloadOptions: step.workloadOptions,
      argv: step.argv,
      verb: step.verb,
      scale: step.scale,
      data: step.data,
      jobs: step.jobs,
      durationSeconds: step.durationSeconds,
      transactionsPerClient: step.transactionsPerClient,
      seed: step.seed ?? randomInt(0, 2 ** 31),
      maxTries: step.maxTries ?? 1,
      // A step whose work fails fails the experiment, as a run's does (headroom run's default).
      maxFailedPercent: step.maxFailedPercent ?? DEFAULT_MAX_FAILED_PERCENT,
      observe: step.observe,
      signal,
      ...(hurry ? { hurry } : {}),
      // headroom run's defaults: prepared statements, no per-command figures, closed loop, no warm-up.
      protocol: 'prepared',
      perCommand: false,
      rate: undefined,
      warmupSeconds: 0,
      force: false,
      journalFile: undefined,
      pgbench: NO_PGBENCH_SETTINGS,
      // The experiments run on one server; routing to replicas is headroom run's.
      routing: undefined,
      // The experiments say what each step is before it starts, and print their own progress.
      announce: false,
      live: false,
      progressEvery: step.onInterval ? 1 : 0,
      ...(step.onInterval ? { progress: step.onInterval } : {}),
      ...(step.agents ? { agents: step.agents } : {}),
    },
    step.clients,
  );
}

/** Peak and mean queries/s over the measured 1-second windows (the study's metric is the peak). */
export function perSecond(result: RunResult): { peak: number; mean: number } {
  const windows = result.series.filter((p) => p.phase === 'measure' && p.seconds >= 0.5);
  return { peak: Math.max(0, ...windows.map((p) => p.tps)), mean: result.summary.tps };
}
