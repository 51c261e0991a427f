import { readFileSync } from 'node:fs';

/** The CPUs this process may run on (Cpus_allowed_list in /proc/self/status), in order: "0-1,4" is [0, 1, 4]. */
export function allowedCpus(): number[] {
  const list = /^Cpus_allowed_list:\s*(\S+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? '';
  return list.split(',').flatMap((range) => {
    const [from, to = from] = range.split('-').map(Number);
    return Array.from({ length: to! - from! + 1 }, (_, i) => from! + i);
  });
}
