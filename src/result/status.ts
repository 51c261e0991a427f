import type { EngineOutcome } from '../engine/engine.js';
import type { ErrorDescription } from '../metrics/recorder.js';
import type { CheckOutcome } from '../workloads/workload.js';
import { jobFailureReason } from './job-failure.js';
import { oneLineSql, stuckPlace } from '../metrics/stuck.js';
import type { FailedWork, RunResult } from './result.js';

/**
 * --max-failed's default: a transaction type whose failed share of its tries is above this fails
 * the run. A few percent: a run whose work fails more often measured the failures (a rollback is
 * cheaper than a commit), not the load it was asked for.
 */
export const DEFAULT_MAX_FAILED_PERCENT = 5;

/** What a run's status is derived from: how the engine ended, the checks after it, and what its work did. */
export interface StatusInputs {
  outcome: Pick<EngineOutcome, 'status' | 'failure' | 'jobFailure' | 'lostJobs'> & { agents?: unknown };
  clients: number;
  terminals: RunResult['terminals'];
  errors: RunResult['errors'];
  transactions: RunResult['transactions'];
  /** The data checks after the run; undefined where none ran. */
  checks: readonly CheckOutcome[] | undefined;
  /** Terminals still in a transaction when the run ended without them (RunResult.stuck). */
  stuck?: RunResult['stuck'];
  /** The stop's grace, in seconds: how long after the run's end they were still waited for. */
  graceSeconds?: number;
  /** --max-failed in percent; null: the rule does not apply (headroom pgbench, which exits 0 with failed transactions as pgbench does). */
  maxFailedPercent: number | null;
  maxTries: number;
}

export interface RunStatus {
  status: RunResult['status'];
  statusReason?: string;
  /** The types that broke the failure rule, worst first; absent when none did. */
  failedWork?: FailedWork[];
}

/**
 * A run's status, in one place, from its outcome: interrupted by a signal; failed by a check after
 * it (the data is wrong), by a job that died, by clients that aborted on a bad request, or by its
 * work failing (failedWorkOf); else completed. Thresholds leave the status alone: a completed run
 * that fails one exits with their own code (99).
 */
export function runStatus(inputs: StatusInputs): RunStatus {
  const { outcome } = inputs;
  const failedWork = failedWorkOf(inputs.transactions, inputs.maxFailedPercent);
  const work = failedWork.length > 0 ? { failedWork } : {};
  const stuck = inputs.stuck ?? [];
  if (outcome.status === 'interrupted') {
    const also = stuck.length > 0 ? `; ${stuckReason(stuck, inputs.clients, inputs.graceSeconds)}` : '';
    return { status: 'interrupted', statusReason: `interrupted by a signal${also}`, ...work };
  }
  const broken = inputs.checks?.filter((c) => !c.ok) ?? [];
  if (broken.length > 0) return { status: 'failed', statusReason: `consistency check failed after the run: ${broken.map((c) => c.name).join(', ')}`, ...work };
  if (outcome.jobFailure) {
    const reason = outcome.agents ? `${outcome.jobFailure.message}; the totals leave out the terminals of lost agents` : jobFailureReason(outcome);
    return { status: 'failed', statusReason: reason, ...work };
  }
  if (stuck.length > 0) return { status: 'failed', statusReason: stuckReason(stuck, inputs.clients, inputs.graceSeconds), ...work };
  if (outcome.failure) {
    const aborted = inputs.terminals.filter((t) => t.aborted !== undefined).length;
    const { message } = outcome.failure;
    // Where the module's source map or the driver can tell, the line and the statement too.
    const sample = inputs.errors.find((e) => e.message === message && (e.at !== undefined || e.statement !== undefined));
    return { status: 'failed', statusReason: `${aborted} of ${inputs.clients} client(s) aborted: ${message}${sample ? ` ${whereOf(sample)}` : ''}`, ...work };
  }
  if (failedWork.length > 0) return { status: 'failed', statusReason: failedWorkReason(failedWork, inputs.maxFailedPercent!, inputs.maxTries), failedWork };
  return { status: 'completed' };
}

/**
 * One line for terminals the run ended without: who stopped answering (the server, when every one
 * waited on a statement), how many, for how long, and where the first of each kind was.
 */
export function stuckReason(stuck: NonNullable<RunResult['stuck']>, clients: number, graceSeconds = 3): string {
  const longest = Math.max(...stuck.map((s) => s.waitedMs));
  const who = stuck.every((s) => s.place !== 'workload') ? 'the server stopped answering: ' : '';
  const firstOfEachPlace = stuck.filter((s, i) => stuck.findIndex((o) => o.place === s.place) === i);
  const places = firstOfEachPlace.map((s) => `terminal ${s.terminal} in ${s.transaction} ${stuckPlace(s)}`);
  return `${who}${stuck.length} of ${clients} terminal(s) still in a transaction ${graceSeconds} s after the run ended (waiting up to ${(longest / 1000).toFixed(1)} s): ${places.join('; ')}`;
}

/**
 * The failure rule: a type that was tried and never succeeded, or whose failed share of its tries
 * is above maxFailedPercent, fails the run (worst first). A rollback the workload asks for
 * ('rolled-back', tpcc's New-Order 1%) is a success. 100% accepts any failures.
 */
export function failedWorkOf(transactions: RunResult['transactions'], maxFailedPercent: number | null): FailedWork[] {
  if (maxFailedPercent === null || maxFailedPercent >= 100) return [];
  return transactions
    .map((t): FailedWork => {
      const attempts = t.count + t.failed;
      return {
        type: t.name,
        attempts,
        failed: t.failed,
        failedPercent: attempts > 0 ? Math.round((t.failed / attempts) * 100_000) / 1000 : 0,
        ...(t.firstError ? { firstError: t.firstError } : {}),
      };
    })
    .filter((w) => w.failed > 0 && (w.failed === w.attempts || w.failedPercent > maxFailedPercent))
    .sort((a, b) => b.failedPercent - a.failedPercent);
}

/** One line: the worst type, its share, its first error, and what to do where a retry would do it. */
export function failedWorkReason(failing: readonly FailedWork[], maxFailedPercent: number, maxTries: number): string {
  const worst = failing[0]!;
  const share = worst.failed === worst.attempts ? `all ${worst.attempts} of its tries failed` : `${worst.failedPercent}% of its ${worst.attempts} tries failed`;
  const others =
    failing.length > 1
      ? ` (and ${failing.length - 1} other type(s): ${failing
          .slice(1)
          .map((w) => `${w.type} ${w.failedPercent}%`)
          .join(', ')})`
      : '';
  const first = worst.firstError ? `; first error: ${describeError(worst.firstError)}` : '';
  return `transaction type ${worst.type}: ${share}, above --max-failed ${maxFailedPercent}%${others}${first}${retryHint(worst.firstError, maxTries)}`;
}

/**
 * A retryable error (serialization failure, deadlock, write conflict) is one a try again redoes:
 * without --max-tries every such conflict is a failure. A property of the error's class, so every
 * DBMS whose conflicts are classed so gets it.
 */
function retryHint(error: ErrorDescription | undefined, maxTries: number): string {
  if (error?.errorClass !== 'retryable') return '';
  return maxTries === 1
    ? ' (a conflict that a new try redoes: add --max-tries, e.g. --max-tries 10, as pgbench does)'
    : ` (conflicts that ${maxTries} tries did not get past: raise --max-tries)`;
}

/** An error as one line: class and code, message, and where the driver or the module's source map can tell, the statement and the line. */
export function describeError(error: ErrorDescription): string {
  const where = whereOf(error);
  return `(${error.errorClass}${error.code ? ` ${error.code}` : ''}) ${error.message}${where ? ` ${where}` : ''}`;
}

/** `[in TYPE, at FILE:LINE:COLUMN, statement: SQL]`, from what is known; empty when nothing is. */
export function whereOf(error: ErrorDescription): string {
  const where = [
    ...(error.transaction === undefined ? [] : [`in ${error.transaction}`]),
    ...(error.at === undefined ? [] : [`at ${error.at}`]),
    ...(error.statement === undefined ? [] : [`statement: ${oneLineSql(error.statement)}`]),
  ];
  return where.length > 0 ? `[${where.join(', ')}]` : '';
}
