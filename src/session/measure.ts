import { randomBytes } from 'node:crypto';
import type { OptionValues } from '../config/options.js';
import type { TransactionLogConfig } from '../engine/transaction-log.js';
import { describeTarget, nodeTargets, runsOnThisMachine, serverTargetOf } from '../config/target.js';
import { redactArgv } from '../config/redact.js';
import type { Routing } from '../engine/routing/routed-connector.js';
import { replicationResult } from '../result/replication.js';
import type { ServerInfo } from '../drivers/driver.js';
import { runEngine, type EngineConfig, type EngineOutcome } from '../engine/engine.js';
import { STOP_GRACE_MS } from '../engine/job.js';
import { PostRun } from './post-run.js';
import { BEFORE_THE_RUN, noticeUnanswered } from './unanswered-notice.js';
import type { RunObserver } from '../observe/run-observer.js';
import { buildResult } from '../result/build.js';
import { planningResult } from '../result/planning.js';
import { engineWorkload, moduleRecord } from '../module/module-workload.js';
import type { RunResult } from '../result/result.js';
import type { Protocol, Workload } from '../workloads/workload.js';
import type { ServerSettings } from './server-settings.js';
import type { SeriesPoint } from '../engine/measurements.js';
import { mergePoints } from '../reports/pgbench-text.js';
import { dataContext, logLine, type Session } from './session.js';
import { runStatus, type RunStatus } from '../result/status.js';
import type { AgentRun } from '../agents/coordinator.js';
import type { AgentsRecord } from '../agents/record.js';

/** -L, --failures-detailed, -l and their kin (headroom run and headroom pgbench read them from the command line). */
export interface PgbenchRunSettings {
  latencyLimitMs: number | undefined;
  failuresDetailed: boolean;
  abortOnError: boolean;
  connectEach: boolean;
  verboseErrors: boolean;
  transactionLog: TransactionLogConfig | undefined;
  /** The result's config fields for these options. */
  config: Pick<RunResult['config'], 'latencyLimitMs' | 'failuresDetailed' | 'abortOnError' | 'connect' | 'log'>;
}

/** None of pgbench's run options: what a run records without them. */
export const NO_PGBENCH_SETTINGS: PgbenchRunSettings = {
  latencyLimitMs: undefined,
  failuresDetailed: false,
  abortOnError: false,
  connectEach: false,
  verboseErrors: false,
  transactionLog: undefined,
  config: { latencyLimitMs: null, failuresDetailed: false, log: null },
};

/**
 * What every measured period of one command shares: the steps of a `headroom run` sweep, and
 * each step of an experiment.
 */
export interface RunPlan {
  session: Session;
  server: ServerInfo;
  workload: Workload;
  workloadOptions: OptionValues;
  argv: readonly string[];
  /** The command argv follows when it is not run (an experiment's step: "experiment NAME"); recorded as config.verb. */
  verb?: string;
  scale: number;
  data: RunResult['data'];
  jobs: number;
  durationSeconds: number | undefined;
  transactionsPerClient: number | undefined;
  seed: number;
  /** --force: run with the connections the server accepts when it refuses some. */
  force: boolean;
  /** -R: transactions per second in all (open loop); undefined: closed loop. */
  rate: number | undefined;
  warmupSeconds: number;
  /** Tries per transaction on serialization failures and deadlocks (1: no retry). */
  maxTries: number;
  /** --max-failed in percent (result/status.ts); null: the failure rule does not apply (headroom pgbench). */
  maxFailedPercent: number | null;
  protocol: Protocol;
  /** -r: per-command latency and failures. */
  perCommand: boolean;
  /** --journal FILE, undefined without. */
  journalFile: string | undefined;
  /** Sample the server beside the run, and planning after it where the workload has a sample. */
  observe: boolean;
  /** -P: seconds between progress lines (0: none). */
  progressEvery: number;
  /** Redraw a live view in place of the progress lines where stderr is a terminal. */
  live: boolean;
  /** False where the caller announces each run itself (the experiments). */
  announce: boolean;
  pgbench: PgbenchRunSettings;
  /** --route / --balance over ?replicas=; undefined without replicas. */
  routing: Routing | undefined;
  /** Ends the run early (Ctrl-C): the engine stops and the result is marked interrupted. */
  signal: AbortSignal;
  /** A second Ctrl-C: nothing more is waited for (transactions in flight, the server's answers after the run). */
  hurry?: AbortSignal;
  /** --set: session statements for every terminal connection, and what to record. */
  settings: ServerSettings;
  /** --agents: the terminals run on agents over NATS (src/agents/) instead of in this process. */
  agents?: AgentRun;
  /** Each -P line, where the caller prints its own (headroom pgbench: pgbench's alone). */
  progress?: (point: SeriesPoint) => void;
}

/**
 * One measured run with `clients` terminals: progress while it goes, then its result (not yet
 * written). `label` heads the live view, e.g. a sweep's "step 2 of 5".
 */
export async function measureOnce(plan: RunPlan, clients: number, label = ''): Promise<RunResult> {
  const { session, workload, progressEvery, warmupSeconds } = plan;
  const jobs = Math.min(plan.jobs, clients);
  // Progress lines stay as they are wherever stderr is not a terminal: logs and scripts read them.
  // What only some runs use (the live view, the server's sampling, agents) is loaded here, before
  // the measured period, and only for those runs: each module loaded is start-up CPU.
  const live =
    progressEvery > 0 && plan.live && process.stderr.isTTY && process.env['TERM'] !== 'dumb'
      ? new (await import('../reports/live.js')).LiveView(
          process.stderr,
          `headroom ${workload.name} on ${session.url}, ${clients} client(s)${label}`,
          plan.durationSeconds,
          warmupSeconds,
        )
      : undefined;
  const onAbort = (): void => live?.finish();
  plan.signal.addEventListener('abort', onAbort, { once: true });
  const sinceProgress: SeriesPoint[] = [];
  const { rate, maxTries, protocol, perCommand, journalFile } = plan;
  // A fresh id per run: journal ids are runId.terminal.sequence, and every run restarts the sequences.
  const journal = journalFile === undefined ? undefined : { file: journalFile, runId: randomBytes(6).toString('hex') };
  const { durationSeconds, transactionsPerClient, scale, seed, pgbench, routing } = plan;
  if (plan.announce)
    logLine(
      `running ${workload.name} on ${session.url}: ${clients} client(s), ${jobs} job(s), ${durationSeconds !== undefined ? `${durationSeconds} s` : `${transactionsPerClient} transactions per client`}${label}`,
    );
  // headroom's own progress lines (headroom pgbench prints pgbench's, the live view its own).
  const progressLine = progressEvery > 0 && !live && !plan.progress ? (await import('../reports/text.js')).progressLine : undefined;
  // The figures at the start (the tables' sizes need a lock another session may hold): a statement left unanswered is told.
  const stopNotices = noticeUnanswered(session, BEFORE_THE_RUN);
  let runStart: Awaited<ReturnType<typeof readRunStart>>;
  let observer: RunObserver | undefined;
  try {
    runStart = await readRunStart(plan);
    // A workload that names no tables of its own (replay) runs on the database's: all of them are observed.
    const tables = workload.tables.length > 0 ? workload.tables : undefined;
    observer = plan.observe
      ? await (await import('../observe/run-observer.js')).RunObserver.start(session.driver.observe(session.conn), runsOnThisMachine(session.target), tables)
      : undefined;
  } finally {
    stopNotices();
  }
  const server = serverTargetOf(session.target);
  const lagSampler =
    routing && plan.observe && server?.replicas ? await (await import('../observe/replica-lag.js')).ReplicaLagSampler.start(server) : undefined;
  const agents = plan.agents;
  const runAgents = agents && (await import('../agents/coordinator.js')).runAgents;
  const engine = (c: EngineConfig, s: AbortSignal, i: (point: SeriesPoint) => void): Promise<EngineOutcome & { agents?: AgentsRecord }> =>
    agents && runAgents ? runAgents(agents, c, s, i) : runEngine(c, s, i);
  const outcome = await engine(
    {
      target: session.target,
      workload: engineWorkload(workload),
      options: plan.workloadOptions,
      scale,
      clients,
      jobs,
      durationSeconds,
      transactionsPerClient,
      rate,
      warmupSeconds,
      maxTries,
      abortOnError: pgbench.abortOnError,
      connectEach: pgbench.connectEach,
      verboseErrors: pgbench.verboseErrors,
      seed,
      journal,
      acceptRefusals: plan.force,
      latencyLimitMs: pgbench.latencyLimitMs,
      transactionLog: pgbench.transactionLog,
      routing,
      protocol,
      perCommand,
      sessionStatements: plan.settings.sessionStatements,
      runStart,
      ...(plan.hurry ? { hurry: plan.hurry } : {}),
    },
    plan.signal,
    (point) => {
      if (live) live.update(point);
      // -P N reports the whole N-second interval, as pgbench does.
      else if (progressEvery > 0 && sinceProgress.push(point) >= progressEvery) {
        const merged = mergePoints(sinceProgress.splice(0));
        if (plan.progress) plan.progress(merged);
        else if (progressLine) logLine(progressLine(merged, { maxTries, latencyLimited: pgbench.latencyLimitMs !== undefined }));
      }
    },
  )
    .catch(async (error: unknown) => {
      // The terminals never started (e.g. the server refused them): stop sampling, then report.
      await observer?.stop().catch(() => undefined);
      await lagSampler?.stop().catch(() => undefined);
      throw error;
    })
    .finally(() => {
      live?.finish();
      plan.signal.removeEventListener('abort', onAbort);
    });
  // After a run whose end the server did not answer, it is asked nothing more (post-run.ts).
  const afterRun = new PostRun(session, outcome.totals.stuck.length > 0, plan.signal, plan.hurry);
  const observed = observer ? await afterRun.endFigures("the server's figures at the end (sizes, statements, counters)", (cut) => observer.stop(cut)) : null;
  const lag = lagSampler ? await afterRun.endFigures("the replicas' last lag sample", (cut) => lagSampler.stop(cut)) : null;
  // Workloads with consistency conditions (tpcc, clause 3.3.2) check them after every run: a run
  // that broke them measured something other than the workload, and fails. After a routed run the
  // invariants are checked too, where the writes went: on the primary.
  // Scripts on their own tables (data.loadedBy none) leave the workload's invariants nothing to check.
  const routed = routing !== undefined && routing.route !== 'none' && plan.data.loadedBy !== 'none';
  const checks =
    workload.checkAfterRun || routed
      ? await afterRun.ask('the checks after the run', () => workload.check(dataContext(session, plan.workloadOptions, scale, logLine)), undefined)
      : undefined;

  const result = buildResult({
    outcome,
    server: plan.server,
    observed,
    url: session.url,
    data: plan.data,
    config: {
      workload: workload.name,
      ...moduleRecord(workload),
      workloadOptions: plan.workloadOptions,
      scale,
      clients,
      // With --agents, -j is per agent: the result counts every thread that ran terminals.
      jobs: plan.agents ? jobs * plan.agents.agents : jobs,
      durationSeconds: durationSeconds ?? null,
      transactionsPerClient: transactionsPerClient ?? null,
      rate: rate ?? null,
      warmupSeconds,
      maxTries,
      maxFailedPercent: plan.maxFailedPercent,
      seed,
      // Recorded only where it applied: a workload that sends its own way refuses --protocol.
      ...(workload.honoursProtocol === true ? { protocol } : {}),
      ...(workload.statements ? { statements: workload.statements(plan.workloadOptions, session.driver.dbms) } : {}),
      perCommand,
      journal: journal ? { file: journal.file, runId: journal.runId } : null,
      // What the user typed, less its secrets: a result file is shared, a password must not be in it.
      argv: redactArgv(plan.argv),
      ...(plan.verb === undefined ? {} : { verb: plan.verb }),
      ...pgbench.config,
      // The record's objects are the ones restore() updates: a file written after it says whether it worked.
      ...(plan.settings.record().asked.length > 0 ? { serverSettings: plan.settings.record() } : {}),
    },
    workload,
  });
  if (routing && outcome.totals.nodes) {
    const urls = server ? nodeTargets(server).map((t) => describeTarget(t)) : [session.url];
    result.replication = replicationResult(routing.route, routing.balance, urls, outcome.totals.nodes, lag, routed ? (checks ?? null) : null);
  }
  if (checks) result.checks = checks;
  if (outcome.agents) result.agents = outcome.agents;
  settleStatus(
    result,
    runStatus({
      outcome,
      clients,
      terminals: result.terminals,
      errors: result.errors,
      transactions: result.transactions,
      checks,
      maxFailedPercent: plan.maxFailedPercent,
      maxTries,
      stuck: result.stuck,
      graceSeconds: STOP_GRACE_MS / 1000,
    }),
  );
  // After the run, so that the sampling's own statements do not count in it.
  const { samplePlanning } = workload;
  if (samplePlanning && plan.observe && outcome.status !== 'interrupted') {
    const ctx = dataContext(session, plan.workloadOptions, scale, logLine);
    const sample = await afterRun.ask(
      'the planning sample',
      () =>
        samplePlanning(ctx).catch((error: unknown) => {
          logLine(`planning not sampled: ${(error as Error).message}`);
          return undefined;
        }),
      undefined,
    );
    if (sample) result.planning = planningResult(sample, result);
  }
  afterRun.dispose();
  return result;
}

/** The status runStatus() derived, put on the result (in place of the engine's, which knew only how it ended). */
function settleStatus(result: RunResult, status: RunStatus): void {
  result.status = status.status;
  if (status.statusReason === undefined) delete result.statusReason;
  else result.statusReason = status.statusReason;
  if (status.failedWork) result.failedWork = status.failedWork;
}

/**
 * The workload's runStart (workload.ts), read once for this run before the server is observed and
 * the terminals open; undefined where it has none or the run has none of its data (scripts on
 * their own tables).
 */
async function readRunStart(plan: RunPlan): Promise<Record<string, number> | undefined> {
  if (!plan.workload.runStart || plan.data.loadedBy === 'none') return undefined;
  const ctx = dataContext(plan.session, plan.workloadOptions, plan.scale, logLine);
  return plan.workload.runStart(ctx).finally(() => ctx.done());
}
