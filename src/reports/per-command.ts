import type { RunResult } from '../result/result.js';

/** pgbench -r's block: per script, each command's average latency in ms and its failures. */
export function perCommandText(scripts: NonNullable<RunResult['perCommand']>): string {
  const lines: string[] = [];
  for (const script of scripts) {
    lines.push(`statement latencies in milliseconds and failures (${script.script}):`);
    for (const c of script.commands) lines.push(`${c.avgMs.toFixed(3).padStart(12)}  ${String(c.failed).padStart(10)}  ${c.command}`);
  }
  return lines.join('\n');
}
