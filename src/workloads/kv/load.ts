import type { SqlValue } from '../../drivers/driver.js';
import { UserError } from '../../errors.js';
import { PhaseClock } from '../phases.js';
import type { DataContext, LoadPhase } from '../workload.js';
import { kvDialect } from './dialect.js';
import { ADD_PRIMARY_KEY, TABLE, analyzeStatement, createTableStatement, dropStatement, primaryKeyExists } from './schema.js';
import { loadedOperator, loadedRegion } from './values.js';

/**
 * Rows per bulk insert, each committed on its own (COPY and MariaDB batches autocommit, SQLite and
 * Firebird take one transaction per call): an interrupted load keeps every finished chunk.
 */
const CHUNK_ROWS = 1_000_000;
const PROGRESS_EVERY_ROWS = 16_384;
const COLUMNS = ['number', 'operator', 'region'] as const;

export interface TableState {
  exists: boolean;
  /** False while a PostgreSQL or Firebird load has not reached its primary key. */
  keyed: boolean;
  /** Loads write 1..N in key order, chunk after committed chunk, so the rows are 1..max(number). */
  rows: number;
}

export async function tableState(ctx: Omit<DataContext, 'scale'>): Promise<TableState> {
  if (!(await ctx.driver.tableExists(ctx.conn, TABLE))) return { exists: false, keyed: false, rows: 0 };
  const keyed = await primaryKeyExists(ctx.conn, ctx.dbms);
  const [[max]] = (await ctx.conn.query(`SELECT MAX(number) FROM ${TABLE}`)) as [[unknown]];
  return { exists: true, keyed, rows: max === null ? 0 : Number(max) };
}

/** A table larger than asked is dropped only with --force (ctx.replaceLarger): never shrunk silently. */
export async function refuseShrinking(ctx: DataContext): Promise<void> {
  const state = await tableState(ctx);
  if (state.rows <= ctx.scale || ctx.replaceLarger === true) return;
  const asked = ctx.scale.toLocaleString('en-US');
  throw new UserError(
    `${TABLE} holds ${state.rows.toLocaleString('en-US')} rows, more than the ${asked} asked: loading ${asked} would drop them`,
    'add --force to drop the table and load the smaller one, or ask for at least as many rows',
  );
}

/**
 * Brings `numbers` to ctx.scale rows without starting over: a missing table is created, an
 * interrupted or smaller one gets rows max(number)+1..N appended in key order (a b-tree takes
 * them at its right edge), and the key is added when the data is in. Only a table holding more
 * rows than asked is dropped and loaded anew. `chunkRows`: rows per committed chunk (tests make it
 * small to interrupt a load between chunks).
 */
export async function loadKv(ctx: DataContext, chunkRows = CHUNK_ROWS): Promise<LoadPhase[]> {
  const clock = new PhaseClock(ctx, { rates: true });
  const timed = clock.timed.bind(clock);
  const run = (sql: string) => (): Promise<number> => clock.statements([sql]);

  let state = await tableState(ctx);
  if (state.exists && state.rows > ctx.scale) {
    ctx.log(`${TABLE} holds ${state.rows.toLocaleString('en-US')} rows, more than ${ctx.scale.toLocaleString('en-US')}: loading it anew`);
    await timed('drop table', run(dropStatement(ctx.dbms)));
    state = { exists: false, keyed: false, rows: 0 };
  }
  if (!state.exists) {
    await timed('create table', run(createTableStatement(ctx.dbms)));
    state = { exists: true, keyed: await primaryKeyExists(ctx.conn, ctx.dbms), rows: 0 };
  } else if (state.rows < ctx.scale) {
    ctx.log(
      `${TABLE} holds ${state.rows.toLocaleString('en-US')} rows: appending ${(state.rows + 1).toLocaleString('en-US')}..${ctx.scale.toLocaleString('en-US')}`,
    );
  }
  if (state.rows < ctx.scale) await timed(TABLE, () => appendRows(ctx, state.rows + 1, ctx.scale, chunkRows));
  if (!state.keyed) await timed('primary key', run(ADD_PRIMARY_KEY));
  const flush = kvDialect(ctx.dbms).flushStatistics;
  if (flush) await ctx.conn.query(flush).catch(() => undefined);
  await timed('analyze', run(analyzeStatement(ctx.dbms)));
  return clock.phases;
}

async function appendRows(ctx: DataContext, first: number, last: number, chunkRows: number): Promise<number> {
  const rowsTotal = last - first + 1;
  let rowsDone = 0;
  let bytesDone = 0;
  const report = (rows: number, bytes: number): void => {
    rowsDone += rows;
    bytesDone += bytes;
    ctx.progress?.({ phase: TABLE, rowsDone, rowsTotal, bytesDone });
  };
  let written = 0;
  for (let start = first; start <= last; start += chunkRows) {
    written += await ctx.conn.bulkInsert(TABLE, COLUMNS, rowsBetween(start, Math.min(last, start + chunkRows - 1), report));
  }
  return written;
}

/** Rows start..end; `report` hears every PROGRESS_EVERY_ROWS rows with their size as COPY text. */
function* rowsBetween(start: number, end: number, report: (rows: number, bytes: number) => void): Generator<SqlValue[]> {
  let rows = 0;
  let bytes = 0;
  for (let number = start; number <= end; number++) {
    const operator = loadedOperator(number);
    const region = loadedRegion(number);
    bytes += digits(number) + digits(operator) + digits(region) + 3;
    yield [number, operator, region];
    if (++rows === PROGRESS_EVERY_ROWS) {
      report(rows, bytes);
      rows = 0;
      bytes = 0;
    }
  }
  report(rows, bytes);
}

function digits(n: number): number {
  let count = 1;
  while (n >= 10) {
    n = Math.floor(n / 10);
    count++;
  }
  return count;
}
