/** A replay finishing within this share of its target time (the recorded time over the speed) kept up. */
export const KEEPS_UP_MARGIN = 0.05;

/** What a `headroom replay` adds to its run result (RunResult.replay); the per-statement figures are the result's transaction types, one per statement shape. */
export interface ReplayRecord {
  /** The capture file replayed, as given. */
  capture: string;
  source: { dbms: string; kind: string; capturedAt: string };
  speed: number;
  /**
   * What was due at its recorded time: every statement, or each transaction's first (the rest
   * followed the statement before them). Absent in files written before --pace: statements.
   */
  pace?: 'statements' | 'transactions';
  sessions: number;
  /** The recorded period (first statement's start to last's end), and it divided by the speed: the time the replay should take. */
  recordedSeconds: number;
  targetSeconds: number;
  /** From the first terminal's start to the last statement's end. */
  replaySeconds: number;
  /** The replay finished within KEEPS_UP_MARGIN (5%) of targetSeconds. */
  keepsUp: boolean;
  statements: ReplayCounts;
  /** Per statement kind (select, insert, ... begin, commit): what the capture has and what ran. */
  byKind: Record<string, ReplayCounts>;
  /** Statements that failed when recorded: failed again (expected, not in failed), or ran without error. */
  recordedErrors: { captured: number; again: number; gone: number };
  /** Where the capture has a statement's row count: how many were compared, and how many returned or changed another count. */
  rows: { checked: number; differ: number };
  /** Each type's full statement shape and kind, in the order of the result's types. */
  shapes: { name: string; kind: string; shape: string }[];
  /** The data the replay wrote to: the copy made from --fresh-from, or the database given, which earlier replays may have written to. */
  data: { freshFrom: string | null; sharedWithEarlierSteps: boolean };
  /** --until: the sweep of speeds and the headroom factor it found. */
  sweep?: ReplaySweep;
}

export interface ReplayCounts {
  captured: number;
  /** Ran to their end, failed or not. */
  executed: number;
  failed: number;
  /** Still running when the replay ended (its time limit, Ctrl-C). */
  unfinished: number;
}

export interface ReplaySweep {
  until: string[];
  /** The highest speed at which every condition held (below 1 when speed 1 failed and a slower one held); null when none did. */
  factor: number | null;
  steps: ReplaySweepStep[];
  /** Why the sweep ended: a step failed, it was interrupted, or the last speed held. */
  ended: 'failed' | 'interrupted' | 'limit';
}

export interface ReplaySweepStep {
  speed: number;
  status: string;
  statements: number;
  executed: number;
  replaySeconds: number;
  targetSeconds: number;
  p50Ms: number;
  p99Ms: number;
  lagP99Ms: number | null;
  failed: number;
  failedPercent: number;
  holds: boolean;
  /** The conditions that failed, as written with what was measured. */
  failing: string[];
}
