import type { AgentsRecord } from './agents-record.js';
import type { TimerKind } from '../common/wake-timer.js';
import type { DbmsName } from '../drivers/driver.js';
import type { TransportKind } from '../drivers/transport/transport.js';
import type { ReactorWaits } from '../drivers/transport/native-transport.js';
import type { ClientScheduling } from '../engine/scheduling.js';
import type { ErrorDescription, ErrorSample, FailureCounts, RunQueueWait, StuckTerminal } from '../metrics/recorder.js';
import type { LatencySummaryMs } from '../metrics/histogram.js';
import type { Outage, SeriesPoint } from '../engine/measurements.js';
import type { CheckOutcome, LoadPhase, PlanningSample, WorkloadMetric } from '../workloads/workload.js';

export type { PlanningSample };
import type { HostInfo } from './host.js';
import type { ReplicationResult } from './replication.js';
import type { ServerSettingsRecord } from './server-settings-record.js';
import type { ServerObservation } from '../observe/run-observer.js';

/** Bumped whenever a field changes meaning or is removed; docs/result-schema.md describes each version. */
import type { ReplayRecord } from './replay-record.js';

export const RESULT_SCHEMA = 'headroom.result/1';

export interface RunResult {
  schema: typeof RESULT_SCHEMA;
  tool: { name: 'headroom'; version: string };
  status: 'completed' | 'interrupted' | 'failed';
  /** Why the run did not complete, when it did not. */
  statusReason?: string;
  /** Runs with --agents: the agents, their clocks and any lost mid-run (src/agents/record.ts). */
  agents?: AgentsRecord;
  startedAt: string;
  measureStartedAt: string | null;
  endedAt: string;
  config: {
    workload: string;
    /**
     * A workload module's file (absolute path) and its sha256 when the run was made; absent for built-in workloads.
     * loadSha256: what its load() was then (its compiled code less the transactions and check; absent in older files).
     */
    module?: { path: string; sha256: string; loadSha256?: string };
    workloadOptions: Record<string, unknown>;
    scale: number;
    clients: number;
    jobs: number;
    durationSeconds: number | null;
    transactionsPerClient: number | null;
    rate: number | null;
    warmupSeconds: number;
    maxTries: number;
    /**
     * --max-failed in percent: a transaction type whose failed share of its tries is above it, or
     * that never succeeded, failed the run (failedWork); 100 accepts any failures, null where the
     * rule does not apply (headroom pgbench, which keeps pgbench's exit codes). Absent in older files.
     */
    maxFailedPercent?: number | null;
    /** --protocol (simple, extended, prepared); absent from results written before it was added. */
    protocol?: string;
    /** How the workload sent its statements, for workloads with a choice (chain: --statements). */
    statements?: { style: string; description: string };
    /** -r: per-command figures were recorded (see perCommand). */
    perCommand?: boolean;
    seed: number;
    /** --journal: the journal file and the id prefix of this run's journaled commits. */
    journal: { file: string; runId: string } | null;
    argv: string[];
    /**
     * The command argv follows when it is not `headroom run`: an experiment's step has
     * "experiment NAME" and the experiment's own command line as argv. Absent: run.
     */
    verb?: string;
    /** --set: the settings asked, and how each was applied (absent in results written before --set). */
    serverSettings?: ServerSettingsRecord;
    /** --latency-limit in milliseconds; absent or null without it. */
    latencyLimitMs?: number | null;
    /** --failures-detailed was given (the summary always keeps the split). */
    failuresDetailed?: boolean;
    /** --abort-on-error was given: an error other than a serialization failure or deadlock ended its client (absent without it). */
    abortOnError?: boolean;
    /** -C/--connect was given: a new connection for each transaction, its time in the transaction's latency (absent without it). */
    connect?: boolean;
    /** -l / --log: the files written; absent or null without it. */
    log?: { files: string[]; aggregateSeconds: number | null; samplingRate: number } | null;
  };
  target: TargetRecord;
  host: HostInfo;
  /**
   * loadMode: how the data was loaded, when the workload records it (chain: faithful or bulk).
   * options: the workload options the data was loaded with, as its load recorded them (a workload
   * module: the options its load() read); absent where the workload records none.
   */
  data: {
    loadedBy: 'this-run' | 'earlier' | 'none';
    phases: LoadPhase[];
    loadMode?: string;
    options?: Record<string, unknown>;
    /** A workload module's data: the loadSha256 of the load() that made it, as its load recorded it; absent where none was recorded. */
    loadSha256?: string;
  };
  summary: {
    measuredSeconds: number;
    transactions: number;
    failed: number;
    retried: number;
    tps: number;
    latencyMs: LatencySummaryMs;
    failures: FailureCounts;
    /**
     * Under --rate: start minus scheduled start. p50 and p99 from the merged lag histograms, and
     * `timer`, what woke the terminals at their schedule (the native reactor's timerfd or Node's
     * timers): both absent from older files. Null without --rate.
     */
    scheduleLagMs: { avg: number; max: number; p50?: number; p99?: number; timer?: TimerKind } | null;
    /**
     * transport: how the PostgreSQL or MariaDB client reached the server (native reactor, Node's sockets, TLS in the native
     * reactor, or Node's tls module over Node's sockets); absent for SQLite, Firebird and older files.
     * scheduling: the kernel's policy and nice value for the client (chrt, nice); absent off Linux and in older files.
     * waits: how the native reactor waited between batches (HEADROOM_SPIN): its mode, and in auto how many trials ended
     * and how many of them polling won; absent where no connection rode the reactor, and in older files.
     * runQueue: how long the threads that ran the terminals were ready to run but waited for a CPU while measuring
     * (the kernel's run-queue delay), added up over `threads`; absent where the kernel does not keep it, and in older files.
     */
    clientCpu: {
      userUs: number;
      systemUs: number;
      usPerTransaction: number | null;
      percentOfOneCore: number;
      transport?: TransportKind;
      scheduling?: ClientScheduling;
      waits?: ReactorWaits;
      runQueue?: RunQueueWait;
    };
    /** The client process's peak resident memory (all jobs' threads) since it started; absent from older files. */
    clientMemory?: { peakRssMB: number };
    eventLoopDelayMs: { p99: number; max: number };
    /** Outages: overlapping terminal episodes without a connection, merged; see docs/result-schema.md. */
    connections: { reconnects: number; outages: Outage[]; accepted: number; refused: number };
    /** pgbench's figures; see docs/result-schema.md. Absent from files written before they were added. */
    pgbench?: PgbenchSummary;
    /**
     * The chain study's `Total time` (docs/chain-model.md, "Runs"): from before the first terminal
     * connects to the end of the last terminal's last unit, so connecting and preparing count;
     * trPerSec = transactions * 1000 / ms. Absent with a warm-up (the study had none) and in older files.
     */
    totalTime?: {
      ms: number;
      /** Of ms, the opening of the terminals' connections, before any terminal started (absent in older files). */
      connectMs?: number;
      msPerTransaction: number | null;
      trPerSec: number | null;
    };
    /** The workload's headline figures (tpcc: NOPM, TPM); absent for workloads without them. */
    workloadMetrics?: WorkloadMetric[];
    /**
     * Transactions still waiting when the run ended without them (STOP_GRACE_MS after its time, or
     * Ctrl-C's): not in `transactions`; their waits until then are in `latencyMs`. Absent when none.
     */
    unfinished?: number;
    /**
     * Stretches in which no transaction ended while terminals waited in theirs (the server, or a
     * workload's own code, stopped answering): `startS` into the run, `seconds` at least that long
     * (to within a second: from the per-second series), `terminals` the most that waited. Absent when none.
     */
    stalls?: Stall[];
  };
  /** Terminals still in a transaction when the run ended without them, and where each was; absent when none. */
  stuck?: StuckTerminal[];
  /** The transaction types that broke the failure rule (--max-failed), worst first; absent when none did. */
  failedWork?: FailedWork[];
  /** --threshold: each condition as given, whether the run met it, and the figure measured; absent without --threshold. */
  thresholds?: ThresholdOutcome[];
  /** The data checks run after measuring (tpcc); absent where the workload has none after a run. */
  checks?: CheckOutcome[];
  transactions: {
    name: string;
    count: number;
    failed: number;
    retried: number;
    /** Completed with a rollback the workload asks for (tpcc New-Order's 1%), included in count; absent in older files. */
    rolledBack?: number;
    /** Still waiting when the run ended (summary.unfinished), not in count; absent when none. */
    unfinished?: number;
    failures: FailureCounts;
    tps: number;
    latencyMs: LatencySummaryMs;
    /** HdrHistogram compressed base64 (V2 encoding), microseconds. */
    histogram: string;
    /** pgbench's per-script figures; absent from files written before they were added. */
    pgbench?: PgbenchSummary;
    /** The workload's own counts for this type (tpcc delivery: skipped districts); absent when it kept none. */
    counters?: Record<string, number>;
    /** The first error that failed a transaction of this type (its class, code, message, statement and module line where known); absent when none failed. */
    firstError?: ErrorDescription;
  }[];
  /**
   * Per terminal over the measured period: the study's finished / time / maxWait / avgWait, and
   * `aborted`: why the terminal stopped early (a bad request or a script error), absent when it did not.
   */
  terminals: { terminal: number; transactions: number; failed: number; seconds: number; maxMs: number; avgMs: number; aborted?: string }[];
  errors: ErrorSample[];
  /** What the server did during the run: sizes, statements, waits, its processes' CPU and I/O; null with --observe=false. */
  server: ServerObservation | null;
  series: SeriesPoint[];
  /**
   * -r (pgbench's per-statement report): per script, each command with how often it ran over the
   * measured period, its average time, its failures and its retries (absent in older files). Absent without -r.
   */
  perCommand?: { script: string; commands: { command: string; count: number; avgMs: number; failed: number; retries?: number }[] }[];
  /** Where the server's time per unit went between planning and executing, for workloads that can tell (chain on PostgreSQL and MariaDB). */
  planning?: PlanningResult;
  /** Routing over a primary and replicas: per-node statements, replica lag, the check on the primary. */
  replication?: ReplicationResult;
  /** headroom replay: the capture, its speed and what ran against it (replay-record.ts). */
  replay?: ReplayRecord;
}

/** Planning apart from execution, per statement and per unit, and its share of the server's CPU during the run. */
export interface PlanningResult extends PlanningSample {
  /** The server processes' CPU per unit (committed or failed) during the run, ms; null where not observed. */
  serverCpuMsPerUnit: number | null;
  /** planningMsPerUnit over serverCpuMsPerUnit; null without the server's CPU. */
  shareOfServerCpu: number | null;
  /** textOverheadMsPerUnit over serverCpuMsPerUnit; absent without either. */
  textShareOfServerCpu?: number;
}

/** What pgbench reports that the histogram summary does not: exact moments, connection time, lateness, the failure split. */
export interface PgbenchSummary {
  /** From the sum and the sum of squares of every committed transaction's latency, as pgbench computes them. */
  latencyAverageMs: number;
  latencyStddevMs: number;
  /** Time to open the clients' first connections, averaged over jobs (pgbench: over threads). */
  initialConnectionMs: number;
  /** Transactions (committed or failed) that needed more than one try; `retried` counts the retries. */
  transactionsRetried: number;
  /** Committed transactions slower than --latency-limit (0 without it). */
  late: number;
  /** Transactions skipped under --rate for being later than --latency-limit before they started. */
  skipped: number;
  /** Failed retryable transactions: serialization failures and other write conflicts, and deadlocks. */
  serializationFailures: number;
  deadlockFailures: number;
  /** -C: time opening and closing a connection, per transaction (committed or failed), as pgbench's "average connection time". */
  averageConnectionMs?: number;
}

/** See RunResult.summary.stalls. */
export interface Stall {
  startS: number;
  seconds: number;
  terminals: number;
  /** It lasted until the run ended (the run ended without the terminals then waiting); absent otherwise. */
  toEnd?: true;
}

/** A transaction type whose work failed the run (src/result/status.ts). */
export interface FailedWork {
  type: string;
  /** Tries that ended: committed (rolled back as asked included) and failed. */
  attempts: number;
  failed: number;
  /** failed / attempts, in percent, to three decimals. */
  failedPercent: number;
  firstError?: ErrorDescription;
}

/** One --threshold as evaluated after the run (src/thresholds/threshold.ts). */
export interface ThresholdOutcome {
  threshold: string;
  ok: boolean;
  /** The measured figure, in the threshold's unit (ms, tps, count or %). */
  actual: number;
  /** ms, %, or empty (tps, counts). */
  unit: string;
}

/** The server a run or an experiment measured, as its result file records it (targetRecord() in build.ts). */
export interface TargetRecord {
  dbms: DbmsName;
  url: string;
  version: string;
  settings: Record<string, string>;
  durable: boolean;
  durabilityRisks: string[];
  tls?: { protocol: string; cipher: string };
  /** ServerInfo.embedded: the DBMS ran inside headroom's process, so client CPU includes its work. */
  embedded?: string;
  /** ServerInfo.connectionDurability, e.g. "synchronous=FULL". */
  connectionDurability?: string;
}
