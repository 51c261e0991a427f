import { readdirSync, readFileSync } from 'node:fs';
import { commandOf, fieldsAfterCommand } from '../common/proc.js';

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
 *
 * Read synchronously, once a second, on the terminals' thread: what it reads is what it holds
 * them up by (see rootAndChildren). Read through libuv's thread pool instead (fs/promises, the
 * files side by side), it held them up no more, but the pool's threads and their answers cost the
 * client more CPU a transaction at -R 400 (7 of 8 runs, 5% by the medians), and the lag p99 of
 * those runs did not tell it from the sampler that read every process synchronously (medians of
 * 8: 0.56 and 0.55 ms, on a machine whose runs' p99 moved between 0.25 and 1.3 ms).
 */
export function sampleProcesses(filter: ProcessFilter, previous?: ProcessSample): ProcessSample | undefined {
  const entries = (filter.rootPid !== undefined ? rootAndChildren(filter.rootPid) : undefined) ?? everyProcess();
  if (entries === undefined) return undefined;
  const byPid = new Map<number, ProcessCounters>();
  for (const entry of entries) {
    try {
      // The name from the stat line, which the counters come from too: one read, not two.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (!filter.names.includes(commandOf(stat))) continue;
      const fields = fieldsAfterCommand(stat);
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
 * The server's main process and its children, as the kernel lists them
 * (/proc/PID/task/TID/children, for each of its threads), instead of every process on the machine
 * read for its name: with 84 processes here a sample of PostgreSQL's 5 held the terminals' thread
 * 1.8-3 ms each second, and 0.5-1.8 ms reading only the server's (0.35 ms against 1.4-1.7 in a
 * warm loop); a busy host has hundreds. Undefined where the kernel has no such files (built without
 * them) or the main process is gone.
 */
function rootAndChildren(rootPid: number): string[] | undefined {
  try {
    const pids = [String(rootPid)];
    for (const task of readdirSync(`/proc/${rootPid}/task`)) {
      const children = readFileSync(`/proc/${rootPid}/task/${task}/children`, 'utf8').trim();
      if (children !== '') pids.push(...children.split(/\s+/));
    }
    return pids;
  } catch {
    return undefined;
  }
}

/** Every process on the machine, by pid; undefined without /proc. */
function everyProcess(): string[] | undefined {
  try {
    return readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return undefined;
  }
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
