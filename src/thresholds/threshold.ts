import { UserError } from '../errors.js';
import type { LatencySummaryMs } from '../metrics/histogram.js';
import type { RunResult, ThresholdOutcome } from '../result/result.js';

export type { ThresholdOutcome };

/**
 * Pass/fail conditions on a run's figures for CI pipelines (k6's thresholds):
 * `[TYPE:]METRIC OP VALUE[UNIT]`, e.g. `p99<50ms`, `tps>1000`, `failed<0.1%`, `book:p95<=20ms`.
 * METRIC: avg, p50, p95, p99, p99.9, max (latency: ms or s, ms when no unit), lag-p50, lag-p99,
 * lag-max (under -R, the schedule lag of the whole run: ms or s), tps, failed (a count, or a share
 * of all tries with %), retried (the same). OP: <, <=, >, >=.
 */
export interface Threshold {
  /** As the user wrote it, for the summary and the result. */
  text: string;
  /** A transaction type's name; undefined: the whole run. */
  type: string | undefined;
  metric: Metric;
  op: '<' | '<=' | '>' | '>=';
  /** In the metric's unit: ms for latency, transactions/s, a count, or a percentage when percent. */
  limit: number;
  percent: boolean;
}

/** The exit code of a run whose every figure was measured but one or more thresholds failed. */
export const THRESHOLD_EXIT_CODE = 99;

const LATENCY = ['avg', 'p50', 'p95', 'p99', 'p99.9', 'max'] as const;
/** Under -R: whether the client kept the schedule (summary.scheduleLagMs), for the whole run only. */
const LAG = ['lag-p50', 'lag-p99', 'lag-max'] as const;
const METRICS = [...LATENCY, ...LAG, 'tps', 'failed', 'retried'] as const;
type Metric = (typeof METRICS)[number];
const TIMES: readonly string[] = [...LATENCY, ...LAG];

const SYNTAX = /^(?:(.+):)?(avg|p50|p95|p99|p99\.9|max|lag-p50|lag-p99|lag-max|tps|failed|retried)\s*(<=|>=|<|>)\s*(\d+(?:\.\d+)?|\.\d+)\s*(ms|s|%)?$/;
const HINT =
  "[TYPE:]METRIC OP VALUE, e.g. 'p99<50ms', 'tps>1000', 'failed<0.1%', 'book:p95<20ms', 'lag-p99<1ms' (METRIC: avg, p50, p95, p99, p99.9, max, lag-p50, lag-p99, lag-max, tps, failed, retried)";

/** Whether a metric is the schedule lag's, which only a paced run (-R) has, and for the whole run only. */
function isLagMetric(metric: string): boolean {
  return (LAG as readonly string[]).includes(metric);
}

/** Whether a threshold is on the schedule lag, which only a paced run (-R) has. */
export function isLagThreshold(t: Threshold): boolean {
  return isLagMetric(t.metric);
}

export function parseThreshold(text: string): Threshold {
  const match = SYNTAX.exec(text.trim());
  if (!match) throw new UserError(`--threshold '${text}' is not a threshold`, HINT);
  const [, type, metric, op, value, unit] = match as unknown as [string, string | undefined, Metric, Threshold['op'], string, string | undefined];
  const time = TIMES.includes(metric);
  if (time && unit === '%') throw new UserError(`--threshold '${text}': a latency takes ms or s, not %`, HINT);
  if (!time && (unit === 'ms' || unit === 's')) throw new UserError(`--threshold '${text}': ${metric} is not a time`, HINT);
  if (type !== undefined && isLagMetric(metric))
    throw new UserError(`--threshold '${text}': the schedule lag is measured for the whole run, not per transaction type`, `use ${metric} without ${type}:`);
  if (metric === 'tps' && unit === '%') throw new UserError(`--threshold '${text}': tps takes no unit`, HINT);
  return { text, type, metric, op, limit: Number(value) * (unit === 's' ? 1000 : 1), percent: unit === '%' };
}

/** Refuses a threshold on a transaction type the workload does not have, before anything runs. */
export function checkThresholdTypes(thresholds: readonly Threshold[], types: readonly string[]): void {
  for (const t of thresholds) {
    if (t.type !== undefined && !types.includes(t.type))
      throw new UserError(`--threshold '${t.text}': the workload has no transaction type "${t.type}"`, `its types: ${types.join(', ')}`);
  }
}

export function evaluateThresholds(thresholds: readonly Threshold[], result: RunResult): ThresholdOutcome[] {
  return thresholds.map((t) => {
    const scope = t.type === undefined ? { ...result.summary, count: result.summary.transactions } : result.transactions.find((x) => x.name === t.type);
    // A type that never ran has no figures: its threshold cannot pass.
    const unit = TIMES.includes(t.metric) ? 'ms' : t.percent ? '%' : '';
    if (!scope) return { threshold: t.text, ok: false, actual: NaN, unit };
    const actual = figure(t, scope, result.summary.scheduleLagMs);
    const ok = t.op === '<' ? actual < t.limit : t.op === '<=' ? actual <= t.limit : t.op === '>' ? actual > t.limit : actual >= t.limit;
    return { threshold: t.text, ok: ok && Number.isFinite(actual), actual, unit };
  });
}

/** The threshold's figure in `scope` (the run or one type); the lag is the whole run's (parseThreshold refuses a type for it). */
function figure(
  t: Threshold,
  scope: { count: number; failed: number; retried: number; tps: number; latencyMs: LatencySummaryMs },
  lag: RunResult['summary']['scheduleLagMs'],
): number {
  switch (t.metric) {
    case 'tps':
      return scope.tps;
    case 'failed':
    case 'retried': {
      const n = scope[t.metric];
      // A share of all tries that ended: committed (count) and failed.
      return t.percent ? (scope.count + scope.failed > 0 ? (100 * n) / (scope.count + scope.failed) : 0) : n;
    }
    case 'p99.9':
      return scope.latencyMs.p99_9;
    // A run that was not paced has no lag (nor an older file percentiles): such a threshold cannot pass.
    case 'lag-p50':
      return lag?.p50 ?? NaN;
    case 'lag-p99':
      return lag?.p99 ?? NaN;
    case 'lag-max':
      return lag?.max ?? NaN;
    default:
      return scope.latencyMs[t.metric];
  }
}

export function thresholdLines(outcomes: readonly ThresholdOutcome[]): string[] {
  const passed = outcomes.filter((o) => o.ok).length;
  return [
    `thresholds: ${passed} of ${outcomes.length} passed${passed < outcomes.length ? ` (exit code ${THRESHOLD_EXIT_CODE})` : ''}`,
    ...outcomes.map(
      (o) =>
        `  ${o.ok ? 'pass' : 'FAIL'} ${o.threshold} (measured ${Number.isFinite(o.actual) ? `${round(o.actual)}${o.unit === 'ms' ? ' ms' : o.unit}` : unmeasured(o)})`,
    ),
  ];
}

/** Why a threshold has no figure: a lag threshold (never given a type) had no paced transaction, any other a type that never ran. */
function unmeasured(o: ThresholdOutcome): string {
  // The outcome keeps the threshold's text only: its metric is read by the grammar it was parsed with.
  const metric = SYNTAX.exec(o.threshold.trim())?.[2] ?? '';
  return isLagMetric(metric) ? 'nothing: no transaction ran on a schedule' : 'nothing: the type did not run';
}

function round(value: number): string {
  return String(Math.round(value * 1000) / 1000);
}
