import { Random } from '../common/random.js';

/**
 * A terminal's random waits: Poisson arrival gaps under --rate, TPC-C think times, reconnect
 * jitter. Each kind has its own stream seeded from the terminal's seed, so --seed reproduces the
 * schedule, and a draw of one kind (a reconnect after an outage) never shifts the others.
 */
export class Pacing {
  private readonly arrivals: Random;
  private readonly thinking: Random;
  private readonly jitter: Random;

  constructor(seed: number) {
    this.arrivals = new Random(seed ^ 0x2545f491);
    this.thinking = new Random(seed ^ 0x68e31da4);
    this.jitter = new Random(seed ^ 0x1b873593);
  }

  /** The gap to the next scheduled start: exponential with mean meanMs, as pgbench --rate draws it. */
  arrivalGapMs(meanMs: number): number {
    return -Math.log(1 - this.arrivals.float()) * meanMs;
  }

  /** Think time: exponential with mean meanMs, cut at 10 means (TPC-C 5.2.5.4). */
  thinkMs(meanMs: number): number {
    return Math.min(-Math.log(1 - this.thinking.float()) * meanMs, 10 * meanMs);
  }

  /** A reconnect delay spread over [0.5, 1.5) times delayMs, so terminals do not reconnect in step. */
  reconnectDelayMs(delayMs: number): number {
    return delayMs * (0.5 + this.jitter.float());
  }
}
