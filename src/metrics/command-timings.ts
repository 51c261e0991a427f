/**
 * Per-command figures of scripts (pgbench -r): how often each command of a script ran, its total
 * time, its failures and its retries, over the measured period. One store per job, shared by the job's
 * terminals; plain numbers, so the totals cross a worker-thread boundary as they are.
 */
export interface ScriptCommandTotals {
  script: string;
  commands: string[];
  count: number[];
  sumUs: number[];
  failed: number[];
  /** Errors in the command after which the transaction was tried again (pgbench counts them as retries, not failures). */
  retries: number[];
}

export class ScriptTimings {
  readonly count: number[];
  readonly sumUs: number[];
  readonly failed: number[];
  readonly retries: number[];

  constructor(
    private readonly store: CommandTimings,
    readonly script: string,
    readonly commands: string[],
  ) {
    this.count = commands.map(() => 0);
    this.sumUs = commands.map(() => 0);
    this.failed = commands.map(() => 0);
    this.retries = commands.map(() => 0);
  }

  record(command: number, us: number): void {
    if (!this.store.measuring) return;
    this.count[command]!++;
    this.sumUs[command]! += us;
  }

  fail(command: number): void {
    if (this.store.measuring) this.failed[command]!++;
  }

  /** The failure fail() just counted is tried again: pgbench counts it as the command's retry instead. */
  retried(command: number): void {
    if (!this.store.measuring || this.failed[command]! === 0) return;
    this.failed[command]!--;
    this.retries[command]!++;
  }
}

export class CommandTimings {
  measuring = false;
  private readonly scripts = new Map<string, ScriptTimings>();

  /** The figures of one script, shared by every terminal of the job that runs it. */
  forScript(script: string, commands: string[]): ScriptTimings {
    let timings = this.scripts.get(script);
    if (!timings) {
      timings = new ScriptTimings(this, script, commands);
      this.scripts.set(script, timings);
    }
    return timings;
  }

  totals(): ScriptCommandTotals[] {
    return [...this.scripts.values()].map((s) => ({
      script: s.script,
      commands: [...s.commands],
      count: [...s.count],
      sumUs: [...s.sumUs],
      failed: [...s.failed],
      retries: [...s.retries],
    }));
  }
}

/** Adds the jobs' per-command figures together, script by script. */
export function mergeCommandTotals(jobs: readonly (readonly ScriptCommandTotals[])[]): ScriptCommandTotals[] {
  const merged = new Map<string, ScriptCommandTotals>();
  for (const job of jobs) {
    for (const s of job) {
      const known = merged.get(s.script);
      if (!known) merged.set(s.script, { ...s, count: [...s.count], sumUs: [...s.sumUs], failed: [...s.failed], retries: [...s.retries] });
      else
        s.commands.forEach((_, i) => {
          known.count[i]! += s.count[i]!;
          known.sumUs[i]! += s.sumUs[i]!;
          known.failed[i]! += s.failed[i]!;
          known.retries[i]! += s.retries[i]!;
        });
    }
  }
  return [...merged.values()];
}
