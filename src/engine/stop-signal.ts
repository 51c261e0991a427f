/** Shared by a job's terminals: once stopped, loops end and pending sleeps wake at once. */
export class StopSignal {
  stopped = false;
  private wake: (() => void) | undefined;
  readonly stoppedPromise = new Promise<void>((resolve) => (this.wake = resolve));

  stop(): void {
    this.stopped = true;
    this.wake?.();
  }

  /** Sleeps `ms`, or less when the signal stops first. */
  sleep(ms: number): Promise<void> {
    if (this.stopped || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      void this.stoppedPromise.then(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
