import type { DataContext, LoadPhase } from '../workload.js';

/** Times named load phases, logs each as it ends, and keeps them in order for the result. */
export class PhaseClock {
  readonly phases: LoadPhase[] = [];

  constructor(private readonly ctx: DataContext) {}

  async timed(name: string, work: () => Promise<number>): Promise<void> {
    const started = performance.now();
    const rows = await work();
    const seconds = (performance.now() - started) / 1000;
    this.phases.push({ name, rows, seconds });
    this.ctx.log(`${name}: ${rows > 0 ? `${rows.toLocaleString('en-US')} rows in ` : ''}${seconds.toFixed(2)} s`);
  }

  /** Runs statements in order; a phase of DDL has no rows. */
  async statements(sql: readonly string[]): Promise<number> {
    for (const statement of sql) await this.ctx.conn.query(statement);
    return 0;
  }
}
