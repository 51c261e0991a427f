import type { SeriesPoint } from '../engine/measurements.js';
import type { RunResult } from '../result/result.js';
import { statementLatencyLines } from './per-command.js';
import type { TimerKind } from '../common/wake-timer.js';

/** What woke the terminals at their scheduled times under -R, as headroom's summaries name it. */
export function scheduleTimerText(timer: TimerKind): string {
  return timer === 'reactor'
    ? "the native reactor's timer (timerfd, to the microsecond)"
    : "Node's timers (whole milliseconds: starts run up to about 1 ms late; the native reactor's timer is not in use: HEADROOM_TRANSPORT=node, or the reactor is not built, npm run build:native)";
}

/** pgbench's names for its built-in scripts, as its "transaction type" line prints them. */
const BUILTIN_TITLES: Record<string, string> = {
  'tpcb-like': '<builtin: TPC-B (sort of)>',
  'simple-update': '<builtin: simple update>',
  'select-only': '<builtin: select only>',
};

export interface ProgressContext {
  /** --max-tries: above 1, pgbench adds "N retried, M retries". */
  maxTries: number;
  /** --latency-limit was given: under --rate pgbench adds "N skipped". */
  latencyLimited: boolean;
}

/**
 * pgbench's -P line, field for field (`progress: 5.0 s, 1234.5 tps, lat 6.432 ms stddev 1.234,
 * 0 failed[, lag X ms[, N skipped]][, N retried, M retries]`), then, after " | ", what headroom
 * adds: p99, the client's CPU and the warm-up mark. Everything before " | " parses as pgbench's.
 */
export function pgbenchProgressLine(point: SeriesPoint, context: ProgressContext): string {
  const lat = point.latencyMs;
  let line = `progress: ${point.t.toFixed(1)} s, ${point.tps.toFixed(1)} tps, lat ${lat.avg.toFixed(3)} ms stddev ${lat.stddev.toFixed(3)}, ${point.failed} failed`;
  if (point.lagMs) {
    line += `, lag ${point.lagMs.avg.toFixed(3)} ms`;
    if (context.latencyLimited) line += `, ${point.skipped ?? 0} skipped`;
  }
  if (context.maxTries !== 1) line += `, ${point.transactionsRetried ?? 0} retried, ${point.retried} retries`;
  line += ` | p99 ${lat.p99.toFixed(3)} ms, client cpu ${point.clientCpuPercent.toFixed(0)}%`;
  if (point.phase === 'warmup') line += ', warm-up';
  return line;
}

/**
 * -P N with N > 1: the N one-second points as one, as pgbench reports the whole interval: counts
 * add up, the average and stddev are pooled exactly; p99 cannot be pooled, so the worst second's
 * is kept.
 */
export function mergePoints(points: readonly SeriesPoint[]): SeriesPoint {
  const last = points[points.length - 1]!;
  if (points.length === 1) return last;
  const add = (f: (p: SeriesPoint) => number): number => points.reduce((n, p) => n + f(p), 0);
  const transactions = add((p) => p.transactions);
  const seconds = add((p) => p.seconds);
  const mean = transactions === 0 ? 0 : add((p) => p.transactions * p.latencyMs.avg) / transactions;
  const squares = add((p) => p.transactions * (p.latencyMs.stddev ** 2 + p.latencyMs.avg ** 2));
  const stddev = transactions === 0 ? 0 : Math.sqrt(Math.max(0, squares / transactions - mean * mean));
  const merged: SeriesPoint = {
    ...last,
    seconds,
    transactions,
    tps: seconds > 0 ? transactions / seconds : 0,
    failed: add((p) => p.failed),
    retried: add((p) => p.retried),
    transactionsRetried: add((p) => p.transactionsRetried ?? 0),
    skipped: add((p) => p.skipped ?? 0),
    latencyMs: {
      avg: mean,
      stddev,
      p50: last.latencyMs.p50,
      p99: Math.max(...points.map((p) => p.latencyMs.p99)),
      max: Math.max(...points.map((p) => p.latencyMs.max)),
    },
    clientCpuPercent: seconds > 0 ? add((p) => p.clientCpuPercent * p.seconds) / seconds : 0,
  };
  if (last.lagMs)
    merged.lagMs = {
      avg: transactions === 0 ? 0 : add((p) => p.transactions * (p.lagMs?.avg ?? 0)) / transactions,
      max: Math.max(...points.map((p) => p.lagMs?.max ?? 0)),
    };
  return merged;
}

/**
 * The block pgbench prints at the end of a run, from the result file alone; with `statements`,
 * -r's per-command lines where pgbench puts them: after the block, or in each script's section.
 */
export function pgbenchBlock(result: RunResult, statements = false): string[] {
  const { config, summary, transactions } = result;
  const pg = summary.pgbench;
  if (!pg) return [];
  // Absent where the workload does not take --protocol (chain, tpcc, kv, peak): no query mode to tell.
  const protocol = (config as { protocol?: string }).protocol;
  const limit = config.latencyLimitMs ?? null;
  const rated = config.rate !== null;
  // The clients that ran: under --force the server may have refused some of those asked (summary.connections).
  const clients = config.clients - (summary.connections?.refused ?? 0);
  const lines = [
    `transaction type: ${transactions.length === 1 ? title(transactions[0]!.name) : 'multiple scripts'}`,
    `scaling factor: ${config.scale}`,
    ...(protocol === undefined ? [] : [`query mode: ${protocol}`]),
    `number of clients: ${clients}`,
    `number of threads: ${config.jobs}`,
    // pgbench prints no limit when there is none (--max-tries 0).
    ...(config.maxTries === 0 ? [] : [`maximum number of tries: ${config.maxTries}`]),
    config.transactionsPerClient !== null ? `number of transactions per client: ${config.transactionsPerClient}` : `duration: ${config.durationSeconds} s`,
    `number of transactions actually processed: ${summary.transactions}${config.transactionsPerClient !== null ? `/${config.transactionsPerClient * clients}` : ''}`,
    `number of failed transactions: ${summary.failed} (${percent(summary.failed, summary.transactions + summary.failed)})`,
  ];
  if (config.failuresDetailed) {
    lines.push(`number of serialization failures: ${pg.serializationFailures} (${percent(pg.serializationFailures, summary.transactions + summary.failed)})`);
    lines.push(`number of deadlock failures: ${pg.deadlockFailures} (${percent(pg.deadlockFailures, summary.transactions + summary.failed)})`);
  }
  if (config.maxTries !== 1) {
    lines.push(`number of transactions retried: ${pg.transactionsRetried} (${percent(pg.transactionsRetried, summary.transactions + summary.failed)})`);
    lines.push(`total number of retries: ${summary.retried}`);
  }
  if (rated && limit !== null) lines.push(`number of transactions skipped: ${pg.skipped} (${percent(pg.skipped, summary.transactions + pg.skipped)})`);
  if (limit !== null)
    lines.push(
      `number of transactions above the ${limit.toFixed(1)} ms latency limit: ${pg.late}/${summary.transactions} (${percent(pg.late, summary.transactions)})`,
    );
  lines.push(`latency average = ${pg.latencyAverageMs.toFixed(3)} ms`, `latency stddev = ${pg.latencyStddevMs.toFixed(3)} ms`);
  if (summary.scheduleLagMs)
    lines.push(`rate limit schedule lag: avg ${summary.scheduleLagMs.avg.toFixed(3)} (max ${summary.scheduleLagMs.max.toFixed(3)}) ms`);
  // summary.tps itself (3 decimals), so the block and the result file agree to the digit. Under -C the
  // connections are part of every transaction, and of the run's time.
  if (config.connect === true) {
    lines.push(`average connection time = ${(pg.averageConnectionMs ?? 0).toFixed(3)} ms`, `tps = ${summary.tps.toFixed(6)} (including reconnection times)`);
  } else {
    lines.push(`initial connection time = ${pg.initialConnectionMs.toFixed(3)} ms`, `tps = ${summary.tps.toFixed(6)} (without initial connection time)`);
  }
  const perCommand = statements ? result.perCommand : undefined;
  if (transactions.length > 1) lines.push(...scriptLines(result, perCommand));
  else if (perCommand?.[0]) lines.push(...statementLatencyLines(perCommand[0], config.maxTries, false));
  return lines;
}

/** pgbench's per-script section of a run with several scripts. */
function scriptLines(result: RunResult, perCommand: RunResult['perCommand']): string[] {
  const { summary, transactions } = result;
  const weights = scriptWeights(result);
  const totalWeight = weights.reduce((a, b) => a + b, 0);
  const lines: string[] = [];
  transactions.forEach((t, i) => {
    lines.push(`SQL script ${i + 1}: ${title(t.name)}`);
    if (weights.length === transactions.length && totalWeight > 0)
      lines.push(` - weight: ${weights[i]} (targets ${((weights[i]! / totalWeight) * 100).toFixed(1)}% of total)`);
    lines.push(
      ` - ${t.count} transactions (${summary.transactions === 0 ? '0.0' : ((t.count / summary.transactions) * 100).toFixed(1)}% of total, tps = ${t.tps.toFixed(6)})`,
    );
    // A script the mix never drew: pgbench divides 0 by 0 (NaN%) and prints no latency (none was timed).
    const ended = t.count + t.failed;
    lines.push(` - number of failed transactions: ${t.failed} (${ended === 0 ? 'NaN%' : percent(t.failed, ended)})`);
    if (result.config.maxTries !== 1 && t.pgbench) {
      lines.push(` - number of transactions retried: ${t.pgbench.transactionsRetried} (${percent(t.pgbench.transactionsRetried, t.count + t.failed)})`);
      lines.push(` - total number of retries: ${t.retried}`);
    }
    if (result.config.rate !== null && result.config.latencyLimitMs != null && t.pgbench)
      lines.push(` - number of transactions skipped: ${t.pgbench.skipped} (${percent(t.pgbench.skipped, t.count + t.pgbench.skipped)})`);
    if (t.pgbench && t.count > 0)
      lines.push(` - latency average = ${t.pgbench.latencyAverageMs.toFixed(3)} ms`, ` - latency stddev = ${t.pgbench.latencyStddevMs.toFixed(3)} ms`);
    const commands = perCommand?.find((c) => c.script === t.name);
    if (commands) lines.push(...statementLatencyLines(commands, result.config.maxTries, true));
  });
  return lines;
}

/** The weights as -b NAME@W and -f FILE@W gave them (1 when not given), in the mix's order. */
function scriptWeights(result: RunResult): number[] {
  const options = result.config.workloadOptions;
  const [builtins, files] = [options['builtin'], options['file']].map((list) => (Array.isArray(list) ? [...(list as unknown[])] : []));
  // --script-order: b takes the next built-in, f the next file (the mix's order); else built-ins first.
  const order = typeof options['script-order'] === 'string' ? options['script-order'] : 'b'.repeat(builtins!.length) + 'f'.repeat(files!.length);
  const scripts = [...order].map((letter) => (letter === 'b' ? builtins!.shift() : files!.shift()));
  if (scripts.length === 0) return [];
  return scripts.map((text) => {
    const weight = /@(\d+)$/.exec(String(text))?.[1];
    return weight === undefined ? 1 : Number(weight);
  });
}

function title(name: string): string {
  return BUILTIN_TITLES[name] ?? name;
}

function percent(part: number, whole: number): string {
  return `${whole === 0 ? '0.000' : ((part / whole) * 100).toFixed(3)}%`;
}
