import type { NodeStats } from '../../metrics/node-stats.js';
import { BALANCES, ROUTES, type Balance, type Route } from '../../config/routing.js';

export { BALANCES, ROUTES, type Balance, type Route };

/**
 * Picks the replica for the next read or read-only transaction. Nodes are numbered as in
 * NodeStats: 0 is the primary, 1.. the replicas. Round robin starts at a different replica on
 * each terminal so that terminals do not move in step; least-busy takes the replica with the
 * fewest statements in flight from this job's terminals (a job cannot see other threads' load),
 * ties going round robin.
 */
export class Balancer {
  private next: number;

  constructor(
    private readonly balance: Balance,
    private readonly replicas: number,
    private readonly stats: NodeStats,
    terminal: number,
  ) {
    this.next = terminal % replicas;
  }

  pick(): number {
    const start = this.next;
    this.next = (this.next + 1) % this.replicas;
    if (this.balance === 'round-robin') return start + 1;
    let best = start;
    for (let k = 1; k < this.replicas; k++) {
      const candidate = (start + k) % this.replicas;
      if (this.stats.inFlight[candidate + 1]! < this.stats.inFlight[best + 1]!) best = candidate;
    }
    return best + 1;
  }
}
