import { DOUBLE_ZERO } from '../common/double-zero.js';

/** One terminal's time without a working connection: from the first error to the first success. */
export interface OutageEpisode {
  /** Epoch milliseconds. */
  startMs: number;
  endMs: number;
  /** The error that started it plus every failed reconnect attempt. */
  errors: number;
  /** False when the run ended before the terminal got a connection back. */
  recovered: boolean;
}

/** One terminal's own figures over the measured period (the study printed them per terminal). */
export interface TerminalTally {
  terminal: number;
  transactions: number;
  failed: number;
  latencySumUs: number;
  latencyMaxUs: number;
  /**
   * Epoch milliseconds when its last transaction of the measured period ended (comparable across
   * threads) in a snapshot; while running the recorder keeps this thread's performance.now().
   */
  lastEndMs: number;
  /** Transactions still waiting when the run ended without them (Recorder.unfinished); absent when none. */
  unfinished?: number;
  /** Why the terminal stopped early (pgbench: "client N aborted"), when it did. */
  aborted?: string;
}

export function newTally(terminal: number): TerminalTally {
  // Doubles from the start (double-zero.ts): a time in milliseconds, and a sum that may outgrow a small integer.
  return { terminal, transactions: 0, failed: 0, latencySumUs: DOUBLE_ZERO, latencyMaxUs: 0, lastEndMs: DOUBLE_ZERO };
}
