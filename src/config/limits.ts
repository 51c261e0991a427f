/**
 * The limits numbers given on the command line must stay within, so that a value too large for
 * what reads it is refused in one line rather than run for ever, wrapped round or rounded.
 */

/** Node's timers hold at most 2^31 - 1 ms: a longer delay fires at once, with a warning. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A duration in whole seconds that a timer can still hold (24.8 days). */
export const MAX_TIMER_SECONDS = Math.floor(MAX_TIMER_MS / 1000);

export const TIMER_WHY = '24.8 days: the longest a timer holds';

/** The largest SQL integer (INT, INTEGER), the key type of most workloads' tables, and pgbench's limit of its int options. */
export const MAX_INT4 = 2 ** 31 - 1;

/** The least -R: one transaction in 1,000 s. */
export const MIN_RATE = 0.001;

/** The least -L: a microsecond, the unit pgbench counts latencies in. */
export const MIN_LATENCY_LIMIT_MS = 0.001;

/** -R above this schedules transactions less than a nanosecond apart: past what any client sends or any clock tells apart. */
export const MAX_RATE = 1e9;

/** The bounds of an option in seconds: -T, --warmup, -P and the like. */
export const SECONDS_BOUND = { max: MAX_TIMER_SECONDS, maxWhy: TIMER_WHY } as const;

/** The bounds of a count pgbench keeps in an int (-t, --max-tries), as pgbench refuses more. */
export const INT4_BOUND = { max: MAX_INT4, maxWhy: "pgbench's limit" } as const;
