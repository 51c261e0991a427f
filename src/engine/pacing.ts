import { Random } from '../common/random.js';

/**
 * A terminal's random waits: TPC-C think times, reconnect jitter (--rate's arrivals are the job's,
 * arrivals.ts). Each kind has its own stream seeded from the terminal's seed, so --seed reproduces
 * them, and a draw of one kind (a reconnect after an outage) never shifts the other.
 */
export class Pacing {
  private readonly thinking: Random;
  private readonly jitter: Random;

  constructor(seed: number) {
    this.thinking = new Random(seed ^ 0x68e31da4);
    this.jitter = new Random(seed ^ 0x1b873593);
  }

  /** Think time: exponential with mean meanMs, cut at 10 means (TPC-C 5.2.5.4). */
  thinkMs(meanMs: number): number {
    return Math.min(this.thinking.exponential(meanMs), 10 * meanMs);
  }

  /** A reconnect delay spread over [0.5, 1.5) times delayMs, so terminals do not reconnect in step. */
  reconnectDelayMs(delayMs: number): number {
    return delayMs * (0.5 + this.jitter.float());
  }
}
