import type { DataContext, LoadPhase } from './workload.js';

/** Times named load phases, logs each as it ends, and keeps them in order for the result; every workload's loader uses it. */
export class PhaseClock {
  readonly phases: LoadPhase[] = [];

  /** `rates`: also log rows per second (kv's loads, whose phases are long enough for it to mean something). */
  constructor(
    private readonly ctx: DataContext,
    private readonly options: { rates?: boolean } = {},
  ) {}

  async timed(name: string, work: () => Promise<number>): Promise<void> {
    const started = performance.now();
    const rows = await work();
    const seconds = (performance.now() - started) / 1000;
    this.phases.push({ name, rows, seconds });
    const rate = this.options.rates && rows > 0 && seconds > 0 ? ` (${Math.round(rows / seconds).toLocaleString('en-US')} rows/s)` : '';
    this.ctx.log(`${name}: ${rows > 0 ? `${rows.toLocaleString('en-US')} rows in ` : ''}${seconds.toFixed(2)} s${rate}`);
  }

  /** Runs statements in order; a phase of DDL has no rows. */
  async statements(sql: readonly string[]): Promise<number> {
    for (const statement of sql) await this.ctx.conn.query(statement);
    return 0;
  }
}
