import type { MergedNodeTotals } from '../engine/measurements.js';
import { round } from '../common/round.js';
import { summarize, type LatencySummaryMs } from '../metrics/histogram.js';
import type { ReplicationLag } from '../observe/replica-lag.js';
import type { CheckOutcome } from '../workloads/workload.js';

/** The result's `replication` field: present when the run had replicas or a --route. */
export interface ReplicationResult {
  route: string;
  balance: string;
  /** Per node over the measured period, like a proxy's pool statistics. */
  nodes: { node: string; url: string; statements: number; reads: number; transactions: number; share: number; latencyMs: LatencySummaryMs }[];
  /** Replica lag sampled once a second; null without replicas or with --observe=false. */
  lag: ReplicationLag | null;
  /** The workload's invariants checked on the primary after the run; null where it has none to run. */
  check: CheckOutcome[] | null;
}

export function replicationResult(
  route: string,
  balance: string,
  urls: readonly string[],
  nodes: readonly MergedNodeTotals[],
  lag: ReplicationLag | null,
  check: CheckOutcome[] | null,
): ReplicationResult {
  const total = nodes.reduce((n, x) => n + x.statements, 0);
  return {
    route,
    balance,
    nodes: nodes.map((n, i) => ({
      node: n.node,
      url: urls[i] ?? '',
      statements: n.statements,
      reads: n.reads,
      transactions: n.transactions,
      share: total > 0 ? round(n.statements / total, 4) : 0,
      latencyMs: summarize(n.histogram),
    })),
    lag,
    check,
  };
}
