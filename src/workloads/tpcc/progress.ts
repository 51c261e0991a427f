import type { SqlValue } from '../../drivers/driver.js';
import type { DataContext } from '../workload.js';

const REPORT_EVERY_ROWS = 5_000;

/**
 * Counts the rows and (estimated) bytes of one load phase as the drivers pull them, across all
 * the loading connections, and passes the figures to ctx.progress every few thousand rows.
 */
export class LoadProgress {
  private rows = 0;
  private bytes = 0;
  private sinceReport = 0;

  constructor(
    private readonly ctx: DataContext,
    private readonly phase: string,
    private readonly rowsTotal: number | undefined,
  ) {}

  *count(rows: Iterable<SqlValue[]>): Generator<SqlValue[]> {
    for (const row of rows) {
      this.rows++;
      for (const value of row) this.bytes += typeof value === 'string' ? value.length + 1 : 8;
      if (++this.sinceReport >= REPORT_EVERY_ROWS) this.report();
      yield row;
    }
  }

  report(): void {
    this.sinceReport = 0;
    this.ctx.progress?.({ phase: this.phase, rowsDone: this.rows, rowsTotal: this.rowsTotal, bytesDone: this.bytes });
  }

  get rowsDone(): number {
    return this.rows;
  }
}
