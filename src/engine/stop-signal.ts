import { performance } from 'node:perf_hooks';
import { NodeWakeTimer, type WakeTimer } from '../common/wake-timer.js';

/**
 * How long terminals may take to finish their transaction in flight once stopped: a timed run ends
 * within this of its time whatever the server does, and what is still running then is counted
 * unfinished (Terminal.abandon()).
 */
export const STOP_GRACE_MS = 3_000;

/** Shared by a job's terminals: once stopped, loops end and pending sleeps wake at once. */
export class StopSignal {
  stopped = false;

  /** `timer`: what sleep() and until() wait on (the job's choice: the native reactor's, else Node's timers). */
  constructor(readonly timer: WakeTimer = new NodeWakeTimer()) {}

  stop(): void {
    this.stopped = true;
    this.timer.wakeAll();
  }

  /**
   * Sleeps `ms`, or less when the signal stops first. On the job's timer, as until() waits: a
   * sleep that listened on a promise of the stop instead left its listener there until the run
   * ended (about 560 bytes for each keying time, think time and reconnection wait of the run).
   */
  sleep(ms: number): Promise<void> {
    if (this.stopped || ms <= 0) return Promise.resolve();
    return this.until(performance.now() + ms);
  }

  /** Sleeps until performance.now() reaches `at` (never less), or until the signal stops. */
  until(at: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => this.timer.wakeAt(at, resolve));
  }
}
