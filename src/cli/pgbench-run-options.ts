import { defineOptions, type OptionValuesOf } from '../config/options.js';
import { MAX_TIMER_MS, MIN_LATENCY_LIMIT_MS, SECONDS_BOUND, TIMER_WHY } from '../config/limits.js';
import type { PgbenchRunSettings } from '../session/measure.js';
import { transactionLogFile, type TransactionLogConfig } from '../engine/transaction-log.js';
import { UserError } from '../errors.js';

/** pgbench's run options for lateness, failures and logs; they mean what they mean in pgbench. */
export const PGBENCH_RUN_OPTIONS = defineOptions([
  {
    long: 'latency-limit',
    short: 'L',
    type: 'number',
    min: MIN_LATENCY_LIMIT_MS,
    max: MAX_TIMER_MS,
    maxWhy: TIMER_WHY,
    value: 'MS',
    help: 'count transactions slower than MS as late; under -R, skip those already MS late before they start',
  },
  { long: 'failures-detailed', type: 'boolean', help: 'split failed transactions into serialization failures and deadlocks in the summary' },
  {
    long: 'abort-on-error',
    type: 'boolean',
    help: 'end a client at an error other than a serialization failure or deadlock, as pgbench does (default: count it failed and go on)',
  },
  { long: 'connect', short: 'C', type: 'boolean', help: 'a new connection for each transaction, its time counted in the latency (as pgbench -C)' },
  {
    long: 'verbose-errors',
    type: 'boolean',
    help: 'tell each serialization failure and deadlock on stderr, and whether the transaction is tried again (as pgbench)',
  },
  { long: 'log', short: 'l', type: 'boolean', help: "write each transaction to a log file per job, in pgbench's format" },
  { long: 'log-prefix', type: 'string', value: 'PREFIX', help: 'log file names: PREFIX.PID for the first job, PREFIX.PID.N for job N', default: 'pgbench_log' },
  {
    long: 'aggregate-interval',
    type: 'integer',
    min: 1,
    ...SECONDS_BOUND,
    value: 'SECONDS',
    help: "with -l: one line of pgbench's aggregate figures per SECONDS instead of one per transaction",
  },
  { long: 'sampling-rate', type: 'number', min: 0, value: 'FRACTION', help: 'with -l: log this fraction of the transactions (e.g. 0.01)' },
]);

/** Reads and checks the options above; jobs is the number of jobs that will write logs. */
export function pgbenchRunSettings(
  values: OptionValuesOf<typeof PGBENCH_RUN_OPTIONS>,
  given: ReadonlySet<string>,
  jobs: number,
  rate: number | undefined,
  maxTries: number,
): PgbenchRunSettings {
  const help = 'see: headroom run --help';
  const logging = values['log'] === true;
  for (const needsLog of ['aggregate-interval', 'sampling-rate', 'log-prefix']) {
    if (given.has(needsLog) && !logging) throw new UserError(`--${needsLog} only applies with -l/--log`, `add -l, or drop --${needsLog}`);
  }
  const aggregateSeconds = values['aggregate-interval'];
  const samplingRate = values['sampling-rate'] ?? 1;
  if (samplingRate <= 0 || samplingRate > 1) throw new UserError(`--sampling-rate must be more than 0 and at most 1, not ${samplingRate}`, help);
  if (aggregateSeconds !== undefined && given.has('sampling-rate')) {
    throw new UserError('--sampling-rate and --aggregate-interval cannot be used together', 'as in pgbench: sample single transactions, or aggregate them all');
  }
  const latencyLimitMs = values['latency-limit'];
  const failuresDetailed = values['failures-detailed'] === true;
  const transactionLog: TransactionLogConfig | undefined = logging
    ? { prefix: values['log-prefix'], pid: process.pid, aggregateSeconds, samplingRate, rated: rate !== undefined, maxTries, failuresDetailed }
    : undefined;
  const abortOnError = values['abort-on-error'] === true;
  const connectEach = values['connect'] === true;
  return {
    latencyLimitMs,
    failuresDetailed,
    abortOnError,
    connectEach,
    verboseErrors: values['verbose-errors'] === true,
    transactionLog,
    config: {
      latencyLimitMs: latencyLimitMs ?? null,
      failuresDetailed,
      ...(abortOnError ? { abortOnError } : {}),
      ...(connectEach ? { connect: true } : {}),
      log: transactionLog
        ? { files: Array.from({ length: jobs }, (_, job) => transactionLogFile(transactionLog, job)), aggregateSeconds: aggregateSeconds ?? null, samplingRate }
        : null,
    },
  };
}
