import { readdirSync, readFileSync } from 'node:fs';

/** Linux reports process CPU in clock ticks of USER_HZ, which is 100 on every common platform. */
const TICKS_PER_SECOND = 100;

export interface ProcessTotals {
  processes: number;
  cpuSeconds: number;
  readBytes: number;
  writeBytes: number;
  /** Each process's own counters, so a difference never goes down when a process ends. */
  byPid: Map<number, { cpuSeconds: number; readBytes: number; writeBytes: number }>;
}

/**
 * What the processes did between two samples: each process alive at `after` counts what it did
 * since `before` (all of it when it started in between). A process that ended in between takes
 * its last stretch with it, so the figure is a lower bound, but it never goes negative, as a
 * difference of sums would when a busy process (another session's backend) ends.
 */
export function processDelta(before: ProcessTotals, after: ProcessTotals): { cpuSeconds: number; readBytes: number; writeBytes: number } {
  const delta = { cpuSeconds: 0, readBytes: 0, writeBytes: 0 };
  for (const [pid, now] of after.byPid) {
    const then = before.byPid.get(pid);
    delta.cpuSeconds += Math.max(0, now.cpuSeconds - (then?.cpuSeconds ?? 0));
    delta.readBytes += Math.max(0, now.readBytes - (then?.readBytes ?? 0));
    delta.writeBytes += Math.max(0, now.writeBytes - (then?.writeBytes ?? 0));
  }
  return delta;
}

/**
 * Sums CPU time and disk I/O of the processes with the given names, from /proc: the database
 * server's share of the machine when it runs on the same host as the client. Processes that end
 * between two samples take their counts with them, so the totals are a lower bound.
 */
export function sampleProcesses(names: readonly string[]): ProcessTotals | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const totals: ProcessTotals = { processes: 0, cpuSeconds: 0, readBytes: 0, writeBytes: 0, byPid: new Map() };
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!names.includes(readFileSync(`/proc/${entry}/comm`, 'utf8').trim())) continue;
      // Fields after the parenthesised command: state is field 3, utime 14, stime 15.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const own = { cpuSeconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND, readBytes: 0, writeBytes: 0 };
      totals.cpuSeconds += own.cpuSeconds;
      totals.processes++;
      totals.byPid.set(Number(entry), own);
      const io = readFileSync(`/proc/${entry}/io`, 'utf8');
      own.readBytes = Number(/read_bytes: (\d+)/.exec(io)?.[1] ?? 0);
      own.writeBytes = Number(/^write_bytes: (\d+)/m.exec(io)?.[1] ?? 0);
      totals.readBytes += own.readBytes;
      totals.writeBytes += own.writeBytes;
    } catch {
      // The process ended, or its io file is not ours to read.
    }
  }
  return totals;
}
