import { readdirSync, readFileSync } from 'node:fs';

/** The parent of a process on this machine, or undefined when it is not here (the server runs elsewhere). */
export function parentPid(pid: number): number | undefined {
  try {
    return Number(statFields(String(pid))[1]);
  } catch {
    return undefined;
  }
}

/** A process's name on this machine (as /proc/PID/comm has it), or undefined when it is not here. */
export function processName(pid: number): string | undefined {
  try {
    return commandOf(readFileSync(`/proc/${pid}/stat`, 'utf8'));
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
export function statFields(pid: string): string[] {
  return fieldsAfterCommand(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

/** The command in a /proc/PID/stat line, as /proc/PID/comm has it: what is between its first "(" and last ")". */
export function commandOf(stat: string): string {
  return stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
}

/** A /proc/PID/stat line's fields after the command, which is in parentheses and may hold spaces or ")". */
export function fieldsAfterCommand(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** This process's limit of open files (the soft RLIMIT_NOFILE, `ulimit -n`), or undefined where /proc does not tell it. */
export function openFilesLimit(): number | undefined {
  try {
    const line = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return line && line[1] !== 'unlimited' ? Number(line[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** How many files this process has open now, or undefined where /proc does not tell it. */
export function openFilesNow(): number | undefined {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return undefined;
  }
}

/**
 * How long the calling thread has spent ready to run but waiting for a CPU, in nanoseconds
 * (/proc/thread-self/schedstat's second field: the kernel's run-queue delay), or undefined where
 * the kernel keeps no such count (off Linux, or built without schedstats).
 */
export function threadRunQueueWaitNs(): number | undefined {
  try {
    const waited = Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[1]);
    return Number.isFinite(waited) ? waited : undefined;
  } catch {
    return undefined;
  }
}
