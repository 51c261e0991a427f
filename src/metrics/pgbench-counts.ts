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
  return { transactionsRetried: 0, late: 0, skipped: 0, serializationFailures: 0, deadlockFailures: 0, latencySumUs: 0, latencySumSquaresUs: 0 };
}
