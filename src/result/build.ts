import type { EngineOutcome } from '../engine/engine.js';
import { round } from '../common/round.js';
import { encodeHistogram, summarize } from '../metrics/histogram.js';
import type { ServerInfo } from '../drivers/driver.js';
import type { ServerObservation } from '../observe/run-observer.js';
import { describeHost } from './host.js';
import { TOOL_VERSION } from './version.js';
import { RESULT_SCHEMA, type PgbenchSummary, type RunResult, type Stall, type TargetRecord } from './result.js';
import type { MergedTotals, SeriesPoint } from '../engine/measurements.js';
import { noPgbenchCounts, type PgbenchCounts } from '../metrics/recorder.js';
import type { Workload } from '../workloads/workload.js';

// Also imported from here by the code that builds results; version.ts alone is what --version loads.
export { TOOL_VERSION };

export interface ResultInputs {
  outcome: EngineOutcome;
  config: RunResult['config'];
  server: ServerInfo;
  observed: ServerObservation | null;
  url: string;
  data: RunResult['data'];
  /** For the workload's own headline figures (tpcc: NOPM, TPM). */
  workload?: Workload;
}

/** Turns the engine's outcome into the documented result file's shape. */
export function buildResult({ outcome, config, server, observed, url, data, workload }: ResultInputs): RunResult {
  const { totals, measuredSeconds } = outcome;
  // Counted, not read off the histogram: it also holds the unfinished transactions' waits.
  const transactions = totals.types.reduce((n, t) => n + t.count, 0);
  const unfinished = totals.types.reduce((n, t) => n + t.unfinished, 0);
  const failed = totals.types.reduce((n, t) => n + t.failed, 0);
  const cpuUs = outcome.clientCpu.userUs + outcome.clientCpu.systemUs;
  const perSecond = (n: number): number => (measuredSeconds > 0 ? round(n / measuredSeconds, 3) : 0);
  const result: RunResult = {
    schema: RESULT_SCHEMA,
    tool: { name: 'headroom', version: TOOL_VERSION },
    // How the engine ended; the run's own status is derived from it, the checks and the work (status.ts).
    status: outcome.status,
    startedAt: outcome.startedAt.toISOString(),
    measureStartedAt: outcome.measureStartedAt?.toISOString() ?? null,
    endedAt: new Date().toISOString(),
    config,
    target: targetRecord(server, url),
    host: describeHost(),
    data,
    summary: {
      measuredSeconds: round(measuredSeconds, 3),
      transactions,
      failed,
      retried: totals.types.reduce((n, t) => n + t.retried, 0),
      tps: perSecond(transactions),
      latencyMs: summarize(totals.all),
      failures: totals.failures,
      scheduleLagMs: config.rate === null ? null : scheduleLag(totals, transactions),
      clientCpu: {
        userUs: outcome.clientCpu.userUs,
        systemUs: outcome.clientCpu.systemUs,
        usPerTransaction: transactions + failed > 0 ? round(cpuUs / (transactions + failed), 2) : null,
        percentOfOneCore: measuredSeconds > 0 ? round((cpuUs / 1e6 / measuredSeconds) * 100, 1) : 0,
        // The admin connection's own transport, where the driver's client rides one (ServerInfo.transport).
        ...(server.transport ? { transport: server.transport } : {}),
        ...(outcome.clientCpu.scheduling ? { scheduling: outcome.clientCpu.scheduling } : {}),
        ...(totals.waits ? { waits: totals.waits } : {}),
        ...(totals.runQueue ? { runQueue: { waitedMs: round(totals.runQueue.waitedMs, 1), threads: totals.runQueue.threads } } : {}),
      },
      clientMemory: { peakRssMB: round(outcome.clientPeakRssKb / 1024, 1) },
      eventLoopDelayMs: outcome.eventLoopDelayMs,
      connections: {
        reconnects: totals.outages.reduce((n, o) => n + o.terminals, 0),
        outages: totals.outages,
        accepted: config.clients - totals.refusedConnections,
        refused: totals.refusedConnections,
      },
      pgbench: {
        ...pgbenchSummary(addCounts(totals.types), transactions, totals.connectMs),
        // pgbench divides by every transaction that ended, failed ones too.
        ...(config.connect === true ? { averageConnectionMs: round(totals.reconnectMs / Math.max(1, transactions + failed), 3) } : {}),
      },
    },
    transactions: totals.types.map((t) => ({
      name: t.name,
      count: t.count,
      failed: t.failed,
      retried: t.retried,
      rolledBack: t.rolledBack,
      ...(t.unfinished > 0 ? { unfinished: t.unfinished } : {}),
      failures: t.failures,
      tps: perSecond(t.count),
      latencyMs: summarize(t.histogram),
      histogram: encodeHistogram(t.histogram),
      pgbench: pgbenchSummary(t, t.count, totals.connectMs),
      ...(Object.keys(t.counters).length > 0 ? { counters: t.counters } : {}),
      ...(t.firstError ? { firstError: t.firstError } : {}),
    })),
    terminals: totals.terminals.map((t) => ({
      terminal: t.terminal,
      transactions: t.transactions,
      failed: t.failed,
      // From the start of the measured period to the terminal's last transaction in it.
      seconds: outcome.measureStartedAt && t.lastEndMs > 0 ? round((t.lastEndMs - outcome.measureStartedAt.getTime()) / 1000, 3) : 0,
      maxMs: round(t.latencyMaxUs / 1000, 3),
      avgMs: t.transactions > 0 ? round(t.latencySumUs / t.transactions / 1000, 3) : 0,
      ...(t.aborted === undefined ? {} : { aborted: t.aborted }),
    })),
    errors: totals.errors,
    ...(config.perCommand
      ? {
          perCommand: totals.commands.map((s) => ({
            script: s.script,
            commands: s.commands.map((command, i) => ({
              command,
              count: s.count[i]!,
              avgMs: s.count[i]! > 0 ? round(s.sumUs[i]! / s.count[i]! / 1000, 3) : 0,
              failed: s.failed[i]!,
              retries: s.retries[i]!,
            })),
          })),
        }
      : {}),
    server: observed,
    series: outcome.series,
  };
  if (unfinished > 0) result.summary.unfinished = unfinished;
  const stalls = stallsOf(outcome.series);
  if (stalls.length > 0) result.summary.stalls = stalls;
  if (totals.stuck.length > 0) result.stuck = totals.stuck;
  const totalTime = studyTotalTime(outcome, transactions);
  if (totalTime) result.summary.totalTime = totalTime;
  // From the rounded seconds the file holds, so that a reader recomputes the same figures.
  const metrics = workload?.metrics?.(totals.types, result.summary.measuredSeconds);
  if (metrics) result.summary.workloadMetrics = metrics;
  return result;
}

/**
 * The run's stalls from its per-second series: each stretch of points at which no transaction had
 * ended for a second or more while terminals waited (SeriesPoint.stalled), from the last end before
 * it, as long as the longest silence seen in it.
 */
export function stallsOf(series: readonly SeriesPoint[]): Stall[] {
  const stalls: Stall[] = [];
  let open: Stall | undefined;
  for (const point of series) {
    const stalled = point.stalled;
    if (!stalled) {
      open = undefined;
      continue;
    }
    const seconds = stalled.silentMs / 1000;
    if (!open) {
      open = { startS: round(Math.max(0, point.t - seconds), 1), seconds: 0, terminals: 0 };
      stalls.push(open);
    }
    open.seconds = round(Math.max(open.seconds, seconds), 1);
    open.terminals = Math.max(open.terminals, stalled.terminals);
  }
  if (open) open.toEnd = true;
  return stalls;
}

/** Under --rate: the lag's average and exact maximum from the sums, its percentiles from the merged histograms (absent when an older agent sent none), and the timer. */
function scheduleLag(totals: MergedTotals, transactions: number): NonNullable<RunResult['summary']['scheduleLagMs']> {
  const lag: NonNullable<RunResult['summary']['scheduleLagMs']> = {
    avg: transactions > 0 ? round(totals.lagSumUs / transactions / 1000, 3) : 0,
    max: round(totals.lagMaxUs / 1000, 3),
  };
  if (totals.lag.totalCount > 0) {
    // A histogram's percentile is its bucket's highest value, which may lie above the exact
    // maximum; no recorded lag does, so neither may a percentile of them.
    const [p50, p99] = totals.lag.valuesAtPercentiles([50, 99]).map((us) => Math.min(us, totals.lagMaxUs)) as [number, number];
    lag.p50 = round(p50 / 1000, 3);
    lag.p99 = round(p99 / 1000, 3);
  }
  if (totals.timer) lag.timer = totals.timer;
  return lag;
}

function addCounts(types: readonly PgbenchCounts[]): PgbenchCounts {
  const total = noPgbenchCounts();
  for (const type of types) for (const key of Object.keys(total) as (keyof PgbenchCounts)[]) total[key] += type[key];
  return total;
}

/** pgbench's moments: average and population stddev from the sums (pgbench's printSimpleStats does the same). */
function pgbenchSummary(counts: PgbenchCounts, committed: number, connectMs: number): PgbenchSummary {
  const mean = committed > 0 ? counts.latencySumUs / committed : 0;
  const variance = committed > 0 ? Math.max(0, counts.latencySumSquaresUs / committed - mean * mean) : 0;
  return {
    latencyAverageMs: round(mean / 1000, 3),
    latencyStddevMs: round(Math.sqrt(variance) / 1000, 3),
    initialConnectionMs: round(connectMs, 3),
    transactionsRetried: counts.transactionsRetried,
    late: counts.late,
    skipped: counts.skipped,
    serializationFailures: counts.serializationFailures,
    deadlockFailures: counts.deadlockFailures,
  };
}

/** The study's Total time: only where measuring began with the run, as the study's did (no warm-up). */
function studyTotalTime(outcome: EngineOutcome, transactions: number): NonNullable<RunResult['summary']['totalTime']> | undefined {
  const { openingAt, measureStartedAt, startedAt, totals } = outcome;
  if (openingAt === undefined || measureStartedAt !== startedAt) return undefined;
  const lastEndMs = Math.max(0, ...totals.terminals.map((t) => t.lastEndMs));
  if (lastEndMs === 0) return undefined;
  const ms = lastEndMs - openingAt.getTime();
  return {
    ms: round(ms, 1),
    connectMs: round(startedAt.getTime() - openingAt.getTime(), 1),
    msPerTransaction: transactions > 0 ? round(ms / transactions, 3) : null,
    trPerSec: ms > 0 ? round((transactions * 1000) / ms, 1) : null,
  };
}

/** The target section of run and experiment results: what the server said of itself, without the password. */
export function targetRecord(server: ServerInfo, url: string): TargetRecord {
  return {
    dbms: server.dbms,
    url,
    version: server.version,
    settings: server.settings,
    durable: server.durabilityRisks.length === 0,
    durabilityRisks: server.durabilityRisks,
    ...(server.tls ? { tls: server.tls } : {}),
    ...(server.embedded === undefined ? {} : { embedded: server.embedded }),
    ...(server.connectionDurability === undefined ? {} : { connectionDurability: server.connectionDurability }),
  };
}
