import { InterruptedError, StalledError } from '../errors.js';

/**
 * Ends work that has stopped moving. While it guards work, once a second, when nothing has moved
 * (moved()) for `limitMs`, it asks `stuckAt()` where the work is: a description fails the work with
 * it (StalledError), and undefined waits on (the work waits on something that may still answer). An
 * abort of `signal` (Ctrl-C) fails it at once with InterruptedError(`interrupted`).
 */
export class Watchdog {
  private last = performance.now();

  constructor(
    private readonly limitMs: number,
    private readonly stuckAt: () => string | undefined,
    private readonly signal?: AbortSignal,
    private readonly interrupted = 'interrupted',
  ) {}

  /** The work moved: the silence starts again. */
  moved(): void {
    this.last = performance.now();
  }

  /** `work`, unless the watchdog gives it up first; each call watches only while its work runs. */
  async guard<T>(work: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const givenUp = new Promise<never>((_, reject) => {
      timer = setInterval(() => {
        if (performance.now() - this.last < this.limitMs) return;
        const where = this.stuckAt();
        if (where !== undefined) reject(new StalledError(where));
      }, 1000);
      onAbort = () => reject(new InterruptedError(this.interrupted));
      if (this.signal?.aborted) onAbort();
      else this.signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([work, givenUp]);
    } finally {
      clearInterval(timer);
      if (onAbort) this.signal?.removeEventListener('abort', onAbort);
    }
  }
}
