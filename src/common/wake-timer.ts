import { performance } from 'node:perf_hooks';
import { DueQueue } from './due-queue.js';

/**
 * What wakes the terminals at their -R schedule: `reactor`, the native reactor's timerfd
 * (microseconds, drivers/transport/native-transport.ts), or `node`, Node's timers (whole
 * milliseconds of a clock cached once per loop turn: about a millisecond of lag that the server
 * never spent), where the reactor is not in use.
 */
export type TimerKind = 'reactor' | 'node';

/** "Wake me at T": one per job, its terminals' due times together. */
export interface WakeTimer {
  readonly kind: TimerKind;
  /** Calls wake() once performance.now() has reached `at`, never before; or at wakeAll(). */
  wakeAt(at: number, wake: () => void): void;
  /** Calls every wake() still waiting, now (the run stops). */
  wakeAll(): void;
}

/** The fallback on Node's timers: one setTimeout for the earliest time, set again when it fires early. */
export class NodeWakeTimer implements WakeTimer {
  readonly kind = 'node';
  private timeout: NodeJS.Timeout | undefined;
  private readonly queue = new DueQueue({
    set: (at) => {
      clearTimeout(this.timeout);
      this.timeout = setTimeout(this.ring, Math.max(0, at - performance.now()));
    },
    clear: () => {
      clearTimeout(this.timeout);
      this.timeout = undefined;
    },
  });
  private readonly ring = (): void => {
    this.timeout = undefined;
    this.queue.ring(performance.now());
  };

  wakeAt(at: number, wake: () => void): void {
    this.queue.add(at, wake, this);
  }

  wakeAll(): void {
    this.queue.wakeAll(this);
  }
}
