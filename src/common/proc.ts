import { readFileSync } from 'node:fs';

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
export function statFields(pid: string): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}
