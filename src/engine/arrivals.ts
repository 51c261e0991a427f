import { Random } from '../common/random.js';

/**
 * A job's arrivals under --rate: one Poisson stream (exponential gaps, as pgbench --rate draws
 * them) that all the job's terminals share, each taking the next arrival when it is free, as the
 * clients of a pgbench thread share that thread's schedule. A transaction then waits for a
 * terminal only while every terminal of its job is busy: the open queue a pool of connections is,
 * and the one pgbench's schedule lag measures. A schedule of its own per terminal would make an
 * arrival wait behind its one terminal's previous transaction while the others sat idle, a lag the
 * system under test never caused.
 */
export class Arrivals {
  private readonly random: Random;
  private readonly meanGapMs: number;
  /** The latest arrival handed out (performance.now() milliseconds), NaN before the first. */
  private last = NaN;

  /** `rate`: transactions per second for the whole job; `seed` makes the stream (--seed). */
  constructor(rate: number, seed: number) {
    this.meanGapMs = 1000 / rate;
    this.random = new Random(seed ^ 0x2545f491);
  }

  /** The next arrival's scheduled start; the stream begins at `now` of its first call (the job's start). */
  next(now: number): number {
    if (Number.isNaN(this.last)) this.last = now;
    this.last += this.random.exponential(this.meanGapMs);
    return this.last;
  }

  /**
   * Takes every arrival the stream holds before `stoppedAt`: those due at a run's end that no
   * terminal was free to start (the job's terminals were stuck). Nothing is left to take after.
   */
  *dueBefore(stoppedAt: number): Generator<number> {
    if (Number.isNaN(this.last)) return;
    for (;;) {
      const due = this.next(this.last);
      if (due >= stoppedAt) {
        this.last = Infinity;
        return;
      }
      yield due;
    }
  }
}
