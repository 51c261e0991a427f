import { DOUBLE_ZERO } from '../common/double-zero.js';

/** pgbench's per-type figures beside the histogram: exact latency moments, lateness, the failure split. */
export interface PgbenchCounts {
  transactionsRetried: number;
  /** Committed transactions slower than --latency-limit. */
  late: number;
  skipped: number;
  /** Failed retryable transactions, split as pgbench --failures-detailed does. */
  serializationFailures: number;
  deadlockFailures: number;
  /** Sum and sum of squares of committed transactions' latencies, in microseconds (pgbench's average and stddev). */
  latencySumUs: number;
  latencySumSquaresUs: number;
}

export function noPgbenchCounts(): PgbenchCounts {
  // The sums as doubles from the start (double-zero.ts): the squares outgrow a small integer within seconds.
  return {
    transactionsRetried: 0,
    late: 0,
    skipped: 0,
    serializationFailures: 0,
    deadlockFailures: 0,
    latencySumUs: DOUBLE_ZERO,
    latencySumSquaresUs: DOUBLE_ZERO,
  };
}
