import { createHistogram, encodeHistogram, type Histogram } from './histogram.js';

/** One node's statements over the measured period, from one job; plain data for the worker boundary. */
export interface NodeTotals {
  node: string;
  statements: number;
  /** Of those, statements classified as reads (routed to a replica where the mode allows). */
  reads: number;
  transactions: number;
  histogram: string;
}

/**
 * Per-node counters of one job, shared by its terminals' routing connections, like the pool
 * statistics a proxy keeps: statements and their latency per node, and (for least-busy balancing)
 * how many statements are in flight on each node right now.
 */
export class NodeStats {
  measuring = false;
  readonly inFlight: number[];
  private readonly statements: number[];
  private readonly reads: number[];
  private readonly transactions: number[];
  private readonly histograms: Histogram[];

  constructor(readonly names: readonly string[]) {
    this.inFlight = names.map(() => 0);
    this.statements = names.map(() => 0);
    this.reads = names.map(() => 0);
    this.transactions = names.map(() => 0);
    this.histograms = names.map(() => createHistogram());
  }

  statement(node: number, read: boolean, latencyUs: number): void {
    if (!this.measuring) return;
    this.statements[node]!++;
    if (read) this.reads[node]!++;
    this.histograms[node]!.recordValue(Math.max(1, Math.round(latencyUs)));
  }

  /** A transaction (BEGIN ... COMMIT/ROLLBACK) that ran on this node. */
  transaction(node: number): void {
    if (this.measuring) this.transactions[node]!++;
  }

  totals(): NodeTotals[] {
    return this.names.map((node, i) => ({
      node,
      statements: this.statements[i]!,
      reads: this.reads[i]!,
      transactions: this.transactions[i]!,
      histogram: encodeHistogram(this.histograms[i]!),
    }));
  }
}
