import { readdirSync, readFileSync } from 'node:fs';

/** Linux reports process CPU in clock ticks of USER_HZ, which is 100 on every common platform. */
const TICKS_PER_SECOND = 100;

interface ProcessCounters {
  cpuSeconds: number;
  readBytes: number;
  writeBytes: number;
}

/** One look at the server's processes: their counters by pid. */
export interface ProcessSample {
  byPid: Map<number, ProcessCounters>;
}

export interface ProcessGrowth extends ProcessCounters {
  processes: number;
}

/** Which processes are the server's: by name, and when its main pid is known, that pid and its children only. */
export interface ProcessFilter {
  names: readonly string[];
  rootPid: number | undefined;
}

/**
 * CPU time and disk I/O of the server's processes, from /proc: the database server's share of the
 * machine when it runs on the same host as the client. Another server of the same DBMS on the
 * machine is left out when the root pid is known.
 */
export function sampleProcesses(filter: ProcessFilter): ProcessSample | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const byPid = new Map<number, ProcessCounters>();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!filter.names.includes(readFileSync(`/proc/${entry}/comm`, 'utf8').trim())) continue;
      const fields = statFields(entry);
      const pid = Number(entry);
      // Field 4 (index 1 after the command) is the parent pid.
      if (filter.rootPid !== undefined && pid !== filter.rootPid && Number(fields[1]) !== filter.rootPid) continue;
      // utime and stime are fields 14 and 15 (indexes 11 and 12 after the command).
      const counters = { cpuSeconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND, readBytes: 0, writeBytes: 0 };
      byPid.set(pid, counters);
      const io = readFileSync(`/proc/${entry}/io`, 'utf8');
      counters.readBytes = Number(/read_bytes: (\d+)/.exec(io)?.[1] ?? 0);
      counters.writeBytes = Number(/^write_bytes: (\d+)/m.exec(io)?.[1] ?? 0);
    } catch {
      // The process ended, or its io file is not ours to read.
    }
  }
  return { byPid };
}

/**
 * What the server's processes did between two samples, process by process: a process that ended
 * in between takes its last counts with it (so the totals are a lower bound, never negative), one
 * that started counts from zero.
 */
export function growthBetween(before: ProcessSample, after: ProcessSample): ProcessGrowth {
  const growth: ProcessGrowth = { processes: after.byPid.size, cpuSeconds: 0, readBytes: 0, writeBytes: 0 };
  for (const [pid, now] of after.byPid) {
    const then = before.byPid.get(pid);
    growth.cpuSeconds += Math.max(0, now.cpuSeconds - (then?.cpuSeconds ?? 0));
    growth.readBytes += Math.max(0, now.readBytes - (then?.readBytes ?? 0));
    growth.writeBytes += Math.max(0, now.writeBytes - (then?.writeBytes ?? 0));
  }
  return growth;
}

/** The parent of a process on this machine, or undefined when it is not here (the server runs elsewhere). */
export function parentPid(pid: number): number | undefined {
  try {
    return Number(statFields(String(pid))[1]);
  } catch {
    return undefined;
  }
}

/** The pid in a server's pid file, when the file is on this machine and readable. */
export function readPidFile(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** /proc/PID/stat's fields after the parenthesised command (which may itself hold spaces). */
function statFields(pid: string): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}
