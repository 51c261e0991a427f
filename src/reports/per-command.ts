import type { RunResult } from '../result/result.js';

type ScriptCommands = NonNullable<RunResult['perCommand']>[number];

/**
 * pgbench -r's block for one script, as pgbench 15 prints it: its header ("statement latencies in
 * milliseconds and failures:", "..., failures and retries:" when transactions may be tried again,
 * after " - " inside a script's section), then per command its average latency in ms (%11.3f after
 * three spaces), its failures (%10d after two), with retries its retries, and the command itself.
 */
export function statementLatencyLines(script: ScriptCommands, maxTries: number, inSection: boolean, header?: string): string[] {
  const retries = maxTries !== 1;
  const lines = [header ?? `${inSection ? ' - ' : ''}statement latencies in milliseconds${retries ? ', failures and retries' : ' and failures'}:`];
  for (const c of script.commands) {
    const counts = [c.failed, ...(retries ? [c.retries ?? 0] : [])].map((n) => `  ${String(n).padStart(10)}`).join('');
    lines.push(`   ${c.avgMs.toFixed(3).padStart(11)}${counts}  ${c.command}`);
  }
  return lines;
}

/** headroom run -r's table: pgbench's per script, each header naming its script. */
export function perCommandText(scripts: NonNullable<RunResult['perCommand']>, maxTries: number): string {
  return scripts
    .flatMap((script) => {
      const what = maxTries !== 1 ? ', failures and retries' : ' and failures';
      return statementLatencyLines(script, maxTries, false, `statement latencies in milliseconds${what} (${script.script}):`);
    })
    .join('\n');
}
