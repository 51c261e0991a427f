import { readFileSync } from 'node:fs';
import { fieldsAfterCommand } from '../common/proc.js';

/** Linux's scheduling policies, as sched(7) names them (SCHED_OTHER is the default). */
export type SchedulingPolicy = 'other' | 'fifo' | 'rr' | 'batch' | 'idle' | 'deadline';

export interface ClientScheduling {
  policy: SchedulingPolicy;
  /** The nice value, -20 to 19 (0 by default). */
  nice: number;
}

const POLICIES: Record<number, SchedulingPolicy> = { 0: 'other', 1: 'fifo', 2: 'rr', 3: 'batch', 5: 'idle', 6: 'deadline' };

/**
 * How the kernel schedules this process (its main thread, whose policy and nice value the job
 * threads inherit): on a machine the client shares with the server, `chrt -b 0` or `nice` change
 * how the client competes with the server for the cores, and so the figures, so the result says
 * so. Undefined where /proc does not tell (not Linux).
 */
export function clientScheduling(): ClientScheduling | undefined {
  return schedulingOf(readProcStat());
}

/** The policy and nice value in a /proc/PID/stat line; undefined without one, or where they are not. */
export function schedulingOf(stat: string | undefined): ClientScheduling | undefined {
  if (stat === undefined) return undefined;
  const fields = fieldsAfterCommand(stat);
  // proc(5) numbers the fields from 1, the state (after the name) being the 3rd: nice is the
  // 19th, policy the 41st.
  const nice = Number(fields[19 - 3]);
  const policy = POLICIES[Number(fields[41 - 3])];
  if (policy === undefined || !Number.isInteger(nice)) return undefined;
  return { policy, nice };
}

function readProcStat(): string | undefined {
  try {
    return readFileSync('/proc/self/stat', 'utf8');
  } catch {
    return undefined;
  }
}

/** For a summary: nothing under the default policy at nice 0, else e.g. "SCHED_BATCH, nice 10". */
export function schedulingText(scheduling: ClientScheduling | undefined): string | undefined {
  if (scheduling === undefined || (scheduling.policy === 'other' && scheduling.nice === 0)) return undefined;
  const parts = [
    ...(scheduling.policy === 'other' ? [] : [`SCHED_${scheduling.policy.toUpperCase()}`]),
    ...(scheduling.nice === 0 ? [] : [`nice ${scheduling.nice}`]),
  ];
  return parts.join(', ');
}
