import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { Target } from '../config/target.js';
import type { OptionValues } from '../config/options.js';
import type { DbError } from '../drivers/errors.js';
import { LocalJob, type JobConfig, type JobHandle } from './job.js';
import { round } from '../common/round.js';
import { intervalPoint, mergeTotals, type MergedTotals, type SeriesPoint } from './measurements.js';
import type { TerminalPlan } from './terminal.js';
import type { IntervalSnapshot } from '../metrics/recorder.js';
import { createHistogram } from '../metrics/histogram.js';
import type { Protocol } from '../workloads/workload.js';
import type { TransactionLogConfig } from './transaction-log.js';
import { clientScheduling, type ClientScheduling } from './scheduling.js';

export interface EngineConfig {
  target: Target;
  workload: string;
  options: OptionValues;
  scale: number;
  clients: number;
  jobs: number;
  /** -T: measured seconds; undefined when bounded by -t. */
  durationSeconds: number | undefined;
  /** -t: transactions per client; undefined when bounded by time. */
  transactionsPerClient: number | undefined;
  /** -R: transactions per second across all clients; undefined for a closed loop. */
  rate: number | undefined;
  warmupSeconds: number;
  maxTries: number;
  /** --abort-on-error: see TerminalPlan. */
  abortOnError?: boolean;
  /** -C/--connect: see TerminalPlan. */
  connectEach?: boolean;
  /** --verbose-errors: see TerminalPlan. */
  verboseErrors?: boolean;
  seed: number;
  /** --journal: see journal.ts; the engine only hands it to the jobs. */
  journal: JobConfig['journal'];
  /** --force: see JobConfig. */
  acceptRefusals: boolean;
  /** --protocol: see workload.ts. */
  protocol: Protocol;
  /** -r: per-command figures of scripts. */
  perCommand: boolean;
  /** --set session settings: see JobConfig. */
  sessionStatements?: readonly string[];
  /** --latency-limit in milliseconds: see JobConfig. */
  latencyLimitMs?: number | undefined;
  /** -l / --log: see transaction-log.ts. */
  transactionLog?: TransactionLogConfig | undefined;
  /** --route / --balance: see JobConfig. */
  routing: JobConfig['routing'];
  /** What the workload's runStart read before the run (see workload.ts); handed to every terminal. */
  runStart?: Readonly<Record<string, number>> | undefined;
  /** An agent's share of a distributed run (src/agents/): its terminals' ids start here, out of this many in all. */
  terminalIds?: { first: number; of: number };
  /** An agent's start barrier: awaited once every connection is open, before the terminals start. */
  beforeStart?: () => Promise<void>;
  /** An agent streams each interval's raw snapshots (exact histograms) with the point made of them. */
  onSnapshots?: (snapshots: readonly IntervalSnapshot[], point: SeriesPoint) => void;
  /** A second Ctrl-C: the stop's grace for transactions in flight ends at once. */
  hurry?: AbortSignal;
}

export interface EngineOutcome {
  status: 'completed' | 'interrupted' | 'failed';
  /** The bad request that ended terminals early, when one did. */
  failure: DbError | undefined;
  /** The error that ended a job mid-run (its worker thread died, or its loops failed); the run then stopped. */
  jobFailure: Error | undefined;
  /** Jobs whose totals died with their thread: the totals leave out their terminals (the series has them up to then). */
  lostJobs: number;
  /** When the engine began opening the terminals' connections (the study's Total time starts here). */
  openingAt?: Date;
  startedAt: Date;
  measureStartedAt: Date | undefined;
  measuredSeconds: number;
  series: SeriesPoint[];
  totals: MergedTotals;
  /** scheduling: how the kernel scheduled the client (chrt, nice); undefined where /proc does not say. */
  clientCpu: { userUs: number; systemUs: number; scheduling?: ClientScheduling };
  /** The client process's peak resident memory since it started, all threads (jobs) included, in kilobytes. */
  clientPeakRssKb: number;
  eventLoopDelayMs: { p99: number; max: number };
}

const TICK_MS = 1000;

/**
 * Runs the terminals in jobs, ticks once a second to collect the series, switches from warm-up to
 * measuring, and stops on time, count, abort or failure. It knows no workload by name and writes
 * no output: progress leaves through onInterval, everything else through the outcome.
 */
export async function runEngine(config: EngineConfig, signal: AbortSignal, onInterval: (point: SeriesPoint) => void): Promise<EngineOutcome> {
  const openingAt = new Date();
  const jobs = await openJobs(config, signal);
  if (config.beforeStart) {
    try {
      await config.beforeStart();
    } catch (error) {
      await Promise.all(jobs.map((j) => j.stop().catch(() => undefined)));
      throw error;
    }
  }
  if (jobs[0] instanceof LocalJob) warmIntervalCode(config.rate !== undefined);
  const loopDelay = monitorEventLoopDelay({ resolution: LOOP_DELAY_SAMPLE_MS });
  loopDelay.enable();
  // A second sampler, reset every tick, for the series: a run-long histogram cannot be read per
  // interval, and Node cannot add one of these samplers into another. Enabled in the same turn of
  // the loop, its timer is due with the first one's, so the two wake the loop together.
  const loopDelayTick = monitorEventLoopDelay({ resolution: LOOP_DELAY_SAMPLE_MS });
  loopDelayTick.enable();
  const startedAt = new Date();
  const start = performance.now();
  let measuring = config.warmupSeconds === 0;
  let measureStart = start;
  let measureTick = 0;
  let measureStartedAt: Date | undefined;
  let cpuAtMeasure = process.cpuUsage();
  if (measuring) {
    measureStartedAt = startedAt;
    await Promise.all(jobs.map((j) => j.setMeasuring(true)));
  }

  let jobFailure: Error | undefined;
  // A job that fails ends the run: the others stop, and what they measured is kept.
  const finished = Promise.all(jobs.map((j) => j.run())).then(
    () => 'finished' as const,
    (error: unknown) => {
      jobFailure = error instanceof Error ? error : new Error(String(error));
      return 'finished' as const;
    },
  );
  // The signal outlives the run (an experiment's or a sweep's steps share one): the listener is
  // removed when the run ends, or each run would leave one behind on it.
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<'aborted'>((resolve) => {
    if (signal.aborted) resolve('aborted');
    onAbort = () => resolve('aborted');
    signal.addEventListener('abort', onAbort, { once: true });
  });
  const series: SeriesPoint[] = [];
  let lastTick = start;
  let cpuAtTick = process.cpuUsage();
  let reason: 'tick' | 'finished' | 'aborted' = 'tick';
  for (let tick = 1; reason === 'tick'; tick++) {
    let timer: NodeJS.Timeout | undefined;
    const due = new Promise<'tick'>((resolve) => (timer = setTimeout(() => resolve('tick'), start + tick * TICK_MS - performance.now())));
    reason = await Promise.race([due, finished, aborted]);
    clearTimeout(timer);
    // A dead job has no snapshot to give; the others' still make the interval.
    const snapshots = (await Promise.all(jobs.map((j) => j.tick().catch(() => undefined)))).filter((s) => s !== undefined);
    const now = performance.now();
    const cpu = process.cpuUsage(cpuAtTick);
    cpuAtTick = process.cpuUsage();
    const seconds = (now - lastTick) / 1000;
    if (seconds > 0.001) {
      const cpuPercent = ((cpu.user + cpu.system) / 1000 / (now - lastTick)) * 100;
      const point = intervalPoint(snapshots, (now - start) / 1000, seconds, measuring ? 'measure' : 'warmup', cpuPercent, config.rate !== undefined);
      point.eventLoopDelayMs = delayMs(loopDelayTick);
      series.push(point);
      config.onSnapshots?.(snapshots, point);
      onInterval(point);
    }
    loopDelayTick.reset();
    lastTick = now;
    if (reason !== 'tick') break;
    // Phases change on tick boundaries (whole seconds), counted in ticks so that a slow tick
    // cannot add a second to the run; the measured time itself is taken from the clock.
    if (!measuring && tick >= config.warmupSeconds) {
      measuring = true;
      measureTick = tick;
      measureStart = now;
      measureStartedAt = new Date();
      cpuAtMeasure = process.cpuUsage();
      await Promise.all(jobs.map((j) => j.setMeasuring(true)));
    } else if (measuring && config.durationSeconds !== undefined && tick - measureTick >= config.durationSeconds) {
      break;
    }
  }
  signal.removeEventListener('abort', onAbort!);
  const measuredSeconds = measuring ? (performance.now() - measureStart) / 1000 : 0;
  const cpu = measuring ? process.cpuUsage(cpuAtMeasure) : { user: 0, system: 0 };
  const hurry = (): void => jobs.forEach((j) => j.hurry());
  if (config.hurry?.aborted) hurry();
  else config.hurry?.addEventListener('abort', hurry, { once: true });
  const stopped = (await Promise.all(jobs.map((j) => j.stop().catch(() => undefined)))).filter((s) => s !== undefined);
  config.hurry?.removeEventListener('abort', hurry);
  loopDelay.disable();
  loopDelayTick.disable();
  const failure = stopped.find((s) => s.aborted)?.aborted;
  jobFailure ??= stopped.find((s) => s.failure)?.failure;
  return {
    status: reason === 'aborted' ? 'interrupted' : failure || jobFailure ? 'failed' : 'completed',
    failure,
    jobFailure,
    lostJobs: jobs.length - stopped.length,
    openingAt,
    startedAt,
    measureStartedAt,
    measuredSeconds,
    series,
    totals: mergeTotals(stopped.map((s) => s.totals)),
    clientCpu: { userUs: cpu.user, systemUs: cpu.system, scheduling: clientScheduling() },
    // Taken once the jobs have stopped, so the peak covers every terminal of the run.
    clientPeakRssKb: process.resourceUsage().maxRSS,
    eventLoopDelayMs: delayMs(loopDelay),
  };
}

/**
 * The event-loop delay samplers' period. Each wakes an otherwise idle loop once a period: at 10 ms
 * (Node's default) the wake-ups alone took about 0.8% of a core of an idle -R run here (at -R 400
 * the difference was within the runs' noise); a timer's lateness is measured as well at 20 ms, by
 * half as many samples.
 */
const LOOP_DELAY_SAMPLE_MS = 20;

/**
 * The per-second figures are first taken at the first tick, on the terminals' thread between their
 * transactions, where compiling that code to bytecode held the event loop for one to three
 * milliseconds (the start of any transaction due then with it): it runs once on a made-up interval
 * before the terminals start.
 */
function warmIntervalCode(rated: boolean): void {
  const histogram = createHistogram();
  histogram.recordValue(100);
  histogram.recordValue(3000);
  const snapshot: IntervalSnapshot = { count: 2, failed: 0, retried: 0, histogram, lagSumUs: 10, lagMaxUs: 10, transactionsRetried: 0, skipped: 0 };
  intervalPoint([snapshot], 1, 1, 'warmup', 0, rated);
}

/**
 * Node's sampler records the time between two of its timer's calls, its period included (an idle
 * loop reads 10.6 ms at a 10 ms period, 1001 ms at 1000 ms): the delay is what lies beyond the period.
 */
function delayMs(histogram: IntervalHistogram): { p99: number; max: number } {
  if (histogram.count === 0) return { p99: 0, max: 0 };
  const beyond = (ns: number): number => round(Math.max(0, ns / 1e6 - LOOP_DELAY_SAMPLE_MS), 3);
  return { p99: beyond(histogram.percentile(99)), max: beyond(histogram.max) };
}

/** Deals the terminals round-robin into jobs; one job runs in this thread, more in worker threads. Ctrl-C (`signal`) ends the opening. */
async function openJobs(config: EngineConfig, signal: AbortSignal): Promise<JobHandle[]> {
  const jobCount = Math.min(config.jobs, config.clients);
  const plans: TerminalPlan[][] = Array.from({ length: jobCount }, () => []);
  const first = config.terminalIds?.first ?? 0;
  for (let index = 0; index < config.clients; index++) {
    const id = first + index;
    plans[index % jobCount]!.push({
      id,
      terminals: config.terminalIds?.of ?? config.clients,
      seed: (config.seed + Math.imul(id + 1, 0x9e3779b1)) >>> 0,
      transactions: config.transactionsPerClient,
      rate: config.rate === undefined ? undefined : config.rate / config.clients,
      maxTries: config.maxTries,
      abortOnError: config.abortOnError === true,
      ...(config.connectEach === true ? { connectEach: true } : {}),
      ...(config.verboseErrors === true ? { verboseErrors: true } : {}),
    });
  }
  const jobConfigs: JobConfig[] = plans.map((terminals, index) => ({
    target: config.target,
    workload: config.workload,
    options: config.options,
    scale: config.scale,
    terminals,
    journal: config.journal,
    acceptRefusals: config.acceptRefusals,
    index,
    latencyLimitMs: config.latencyLimitMs,
    transactionLog: config.transactionLog,
    protocol: config.protocol,
    seed: config.seed,
    perCommand: config.perCommand,
    routing: config.routing,
    sessionStatements: [...(config.sessionStatements ?? [])],
    ...(config.runStart ? { runStart: { ...config.runStart } } : {}),
  }));
  if (jobCount === 1) return [await LocalJob.open(jobConfigs[0]!, signal)];
  const { WorkerJob } = await import('./worker-job.js');
  const opened = await Promise.allSettled(jobConfigs.map((c) => WorkerJob.open(c, signal)));
  const failure = opened.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (failure) {
    await Promise.all(opened.map((o) => (o.status === 'fulfilled' ? o.value.stop() : undefined)));
    throw failure.reason;
  }
  return opened.map((o) => (o as PromiseFulfilledResult<JobHandle>).value);
}
