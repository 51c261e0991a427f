import type { EngineConfig } from '../engine/engine.js';
import type { SeriesPoint } from '../engine/measurements.js';
import type { ThreadError } from '../engine/thread-error.js';
import type { JobTotals, WireIntervalSnapshot } from '../metrics/recorder.js';
import type { TransactionLogConfig } from '../engine/transaction-log.js';
import type { ClientScheduling } from '../engine/scheduling.js';

/**
 * What the coordinator asks of one agent: plain data only. It names the workload and, for every
 * file the run reads (-f scripts, a workload module and the files it imports), their paths and
 * sha256; an agent runs nothing that comes over the bus, and refuses a plan whose files differ on
 * its disk or that leaves one out. The target has no password: each agent takes it from its own
 * environment or password file.
 */
export interface AgentPlan extends Pick<
  EngineConfig,
  | 'target'
  | 'workload'
  | 'options'
  | 'scale'
  | 'durationSeconds'
  | 'transactionsPerClient'
  | 'warmupSeconds'
  | 'maxTries'
  | 'seed'
  | 'protocol'
  | 'perCommand'
  | 'acceptRefusals'
  | 'runStart'
  | 'connectEach'
> {
  kind: 'plan';
  runId: string;
  /**
   * The agent process the plan is for, as its hello named it: an agent refuses a plan addressed to
   * another instance, so a plan captured on the bus and sent again after the agent restarted (its
   * nonces forgotten) is refused all the same.
   */
  instance: string;
  coordinator: string;
  agents: number;
  files: { path: string; sha256: string }[];
  /** All terminals, over all agents. */
  clients: number;
  /** Threads per agent (-j with --agents). */
  jobs: number;
  /** -R over the whole run; each agent schedules its terminals' share. */
  rate: number | undefined;
  /** --abort-on-error (headroom pgbench): an SQL error ends the terminal, as in pgbench. */
  abortOnError: boolean;
  latencyLimitMs: number | undefined;
  sessionStatements: string[];
  /** -l: each agent writes its own pgbench-format log on its own disk, named by its own process id. */
  transactionLog: TransactionLogConfig | undefined;
}

/** The coordinator asks the idle agents to say who they are: each answers with a hello on the run's subject. */
export interface Call {
  kind: 'call';
  runId: string;
}

/** An idle agent's answer to a call: its name and this process's instance, drawn at random when it started. */
export interface Hello {
  kind: 'hello';
  agent: string;
  instance: string;
}

/** An agent's share: terminals first..first+count-1 of the plan's clients. */
export interface Shard {
  kind: 'shard';
  /** The claiming agent's instance, so a shard answered to another agent's claim is not taken. */
  instance: string;
  index: number;
  first: number;
  count: number;
  /** The coordinator's clock when it answered (for the agent's clock offset). */
  now: number;
}

export interface Claim {
  kind: 'claim';
  agent: string;
  instance: string;
}

export type ClaimReply = Shard | { kind: 'full' };

export interface Ready {
  kind: 'ready';
  agent: string;
  index: number;
  /** Coordinator clock minus the agent's, estimated from the fastest of a few request/reply pairs. */
  clockOffsetMs: number;
  roundTripMs: number;
}

export interface Start {
  kind: 'start';
  /** On the coordinator's clock; each agent waits until then on its own clock, less its offset. */
  at: number;
}

export interface Tick {
  kind: 'tick';
  index: number;
  tick: number;
  snapshots: WireIntervalSnapshot[];
  point: SeriesPoint;
}

export interface Beat {
  kind: 'beat';
  index: number;
  /** Transactions the agent's terminals finished so far (measured or not), for a loss report. */
  transactions: number;
}

/** The agent's outcome, or the error that kept its terminals from running (e.g. a refused login). */
export interface Done {
  kind: 'done';
  index: number;
  outcome?: WireOutcome;
  error?: ThreadError;
}

export interface Stop {
  kind: 'stop';
  reason: string;
}

/** An agent's EngineOutcome as plain data: its totals in a job's form, so the coordinator merges agents as the engine merges jobs. */
export interface WireOutcome {
  status: 'completed' | 'interrupted' | 'failed';
  failure: ThreadError | undefined;
  jobFailure: ThreadError | undefined;
  lostJobs: number;
  openingAt: number | undefined;
  startedAt: number;
  measureStartedAt: number | undefined;
  measuredSeconds: number;
  totals: JobTotals;
  clientCpu: { userUs: number; systemUs: number; scheduling?: ClientScheduling };
  clientPeakRssKb: number;
  eventLoopDelayMs: { p99: number; max: number };
}
