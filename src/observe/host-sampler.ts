import { readdirSync, readFileSync } from 'node:fs';
import { statFields } from '../common/proc.js';

/** Linux reports process CPU in clock ticks of USER_HZ, which is 100 on every common platform. */
const TICKS_PER_SECOND = 100;

interface ProcessCounters {
  /** The process's own CPU and that of its children it has reaped (cutime, cstime). */
  cpuSeconds: number;
  /**
   * /proc/PID/io, the process's own I/O and that of its children it has reaped: bytes read from
   * storage; write_bytes, page-cache pages dirtied (a large folio counts whole each time it is
   * dirtied again, so this can be many times what reaches the disk); wchar, bytes given to write
   * calls (files and sockets alike).
   */
  readBytes: number;
  writeBytes: number;
  writeCallBytes: number;
  parentPid: number;
}

/** One look at the server's processes: their counters by pid. */
export interface ProcessSample {
  byPid: Map<number, ProcessCounters>;
}

export interface ProcessGrowth {
  processes: number;
  cpuSeconds: number;
  readBytes: number;
  writeBytes: number;
  writeCallBytes: number;
}

/** Which processes are the server's: by name, and when its main pid is known, that pid and its children only. */
export interface ProcessFilter {
  names: readonly string[];
  rootPid: number | undefined;
}

/**
 * CPU time and I/O of the server's processes, from /proc: the database server's share of the
 * machine when it runs on the same host as the client. Another server of the same DBMS on the
 * machine is left out when the root pid is known. `previous`: the last sample, whose I/O counts
 * stand in for a process whose io file cannot be read this time.
 */
export function sampleProcesses(filter: ProcessFilter, previous?: ProcessSample): ProcessSample | undefined {
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
      const parent = Number(fields[1]);
      if (filter.rootPid !== undefined && pid !== filter.rootPid && parent !== filter.rootPid) continue;
      // utime, stime, cutime and cstime are fields 14 to 17 (indexes 11 to 14 after the command).
      const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
      const last = previous?.byPid.get(pid);
      const counters = {
        cpuSeconds: ticks / TICKS_PER_SECOND,
        readBytes: last?.readBytes ?? 0,
        writeBytes: last?.writeBytes ?? 0,
        writeCallBytes: last?.writeCallBytes ?? 0,
        parentPid: parent,
      };
      byPid.set(pid, counters);
      const io = readFileSync(`/proc/${entry}/io`, 'utf8');
      counters.readBytes = Number(/^read_bytes: (\d+)/m.exec(io)?.[1] ?? 0);
      counters.writeBytes = Number(/^write_bytes: (\d+)/m.exec(io)?.[1] ?? 0);
      counters.writeCallBytes = Number(/^wchar: (\d+)/m.exec(io)?.[1] ?? 0);
    } catch {
      // The process ended, or its io file is not ours to read.
    }
  }
  return { byPid };
}

/**
 * What the server's processes did between two samples. When a process is reaped, Linux adds its
 * CPU and I/O to its parent's counters (cutime and cstime; /proc/PID/io), so a backend that ended
 * in between shows up again in the postmaster's growth, whole: what it had already counted at the
 * earlier sample is taken off, or it would be counted twice. A process that ended without a
 * sampled parent takes its last counts with it; one that started counts from zero.
 */
export function growthBetween(before: ProcessSample, after: ProcessSample): ProcessGrowth {
  const sum = { cpuSeconds: 0, readBytes: 0, writeBytes: 0, writeCallBytes: 0 };
  for (const [pid, now] of after.byPid) {
    const then = before.byPid.get(pid);
    sum.cpuSeconds += Math.max(0, now.cpuSeconds - (then?.cpuSeconds ?? 0));
    sum.readBytes += Math.max(0, now.readBytes - (then?.readBytes ?? 0));
    sum.writeBytes += Math.max(0, now.writeBytes - (then?.writeBytes ?? 0));
    sum.writeCallBytes += Math.max(0, now.writeCallBytes - (then?.writeCallBytes ?? 0));
  }
  for (const [pid, then] of before.byPid) {
    if (after.byPid.has(pid) || !after.byPid.has(then.parentPid)) continue;
    sum.cpuSeconds -= then.cpuSeconds;
    sum.readBytes -= then.readBytes;
    sum.writeBytes -= then.writeBytes;
    sum.writeCallBytes -= then.writeCallBytes;
  }
  return {
    processes: after.byPid.size,
    cpuSeconds: Math.max(0, sum.cpuSeconds),
    readBytes: Math.max(0, sum.readBytes),
    writeBytes: Math.max(0, sum.writeBytes),
    writeCallBytes: Math.max(0, sum.writeCallBytes),
  };
}
