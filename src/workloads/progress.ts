import type { SqlValue } from '../drivers/driver.js';
import type { DataContext } from './workload.js';

/** Rows between reports: often enough for a bar, rare enough to cost nothing next to a row's insert. */
const BATCH = 1000;

/**
 * Counts the rows of one load phase as the driver pulls them, and tells ctx.progress every batch.
 * Bytes are an estimate: the text length of the first row of each batch (its values as COPY or
 * an INSERT would spell them, plus a separator each), times the rows in the batch.
 */
export class RowProgress {
  private done = 0;
  private bytes = 0;

  constructor(
    private readonly ctx: Pick<DataContext, 'progress'>,
    private readonly phase: string,
    private readonly total: number | undefined,
  ) {}

  /** Passes rows through unchanged; may be called for several iterables of the same phase. */
  *rows<R extends readonly SqlValue[]>(rows: Iterable<R>): Generator<R> {
    const report = this.ctx.progress?.bind(this.ctx);
    if (!report) return yield* rows;
    if (this.done === 0) report({ phase: this.phase, rowsDone: 0, rowsTotal: this.total, bytesDone: 0 });
    let rowBytes = 0;
    for (const row of rows) {
      if (this.done % BATCH === 0) rowBytes = textBytes(row);
      this.done++;
      this.bytes += rowBytes;
      yield row;
      if (this.done % BATCH === 0) report({ phase: this.phase, rowsDone: this.done, rowsTotal: this.total, bytesDone: this.bytes });
    }
    report({ phase: this.phase, rowsDone: this.done, rowsTotal: this.total, bytesDone: this.bytes });
  }
}

export function textBytes(row: readonly SqlValue[]): number {
  let bytes = 0;
  for (const value of row) bytes += (value === null ? 2 : typeof value === 'string' ? Buffer.byteLength(value) : String(value).length) + 1;
  return bytes;
}
