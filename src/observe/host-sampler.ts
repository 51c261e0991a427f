import { readdirSync, readFileSync } from 'node:fs';

/** Linux reports process CPU in clock ticks of USER_HZ, which is 100 on every common platform. */
const TICKS_PER_SECOND = 100;

export interface ProcessTotals {
  processes: number;
  cpuSeconds: number;
  readBytes: number;
  writeBytes: number;
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
  const totals: ProcessTotals = { processes: 0, cpuSeconds: 0, readBytes: 0, writeBytes: 0 };
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!names.includes(readFileSync(`/proc/${entry}/comm`, 'utf8').trim())) continue;
      // Fields after the parenthesised command: state is field 3, utime 14, stime 15.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      totals.cpuSeconds += (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
      totals.processes++;
      const io = readFileSync(`/proc/${entry}/io`, 'utf8');
      totals.readBytes += Number(/read_bytes: (\d+)/.exec(io)?.[1] ?? 0);
      totals.writeBytes += Number(/^write_bytes: (\d+)/m.exec(io)?.[1] ?? 0);
    } catch {
      // The process ended, or its io file is not ours to read.
    }
  }
  return totals;
}
