import type { SqlValue } from '../../drivers/driver.js';
import { PhaseClock } from '../phases.js';
import { RowProgress } from '../progress.js';
import type { DataContext, LoadPhase } from '../workload.js';
import { tpcbDialect } from './dialect.js';
import { ROWS_PER_SCALE } from './schema.js';

/** Loads pgbench's initial data: every balance 0, empty filler, accounts in key order. */
export async function loadTpcb(ctx: DataContext): Promise<LoadPhase[]> {
  const clock = new PhaseClock(ctx);
  const timed = clock.timed.bind(clock);
  const run = clock.statements.bind(clock);

  const dialect = tpcbDialect(ctx.dbms);
  await timed('drop and create tables', () => run([...dialect.dropTables, ...dialect.createTables(ctx.scale)]));
  const scale = ctx.scale;
  const counted = (phase: string, count: number, make: (id: number) => SqlValue[]): Iterable<SqlValue[]> =>
    new RowProgress(ctx, phase, count).rows(rows(count, make));
  await timed('branches', () =>
    ctx.conn.bulkInsert(
      'pgbench_branches',
      ['bid', 'bbalance', 'filler'],
      counted('branches', scale * ROWS_PER_SCALE.branches, (i) => [i, 0, '']),
    ),
  );
  await timed('tellers', () =>
    ctx.conn.bulkInsert(
      'pgbench_tellers',
      ['tid', 'bid', 'tbalance', 'filler'],
      counted('tellers', scale * ROWS_PER_SCALE.tellers, (i) => [i, Math.ceil(i / ROWS_PER_SCALE.tellers), 0, '']),
    ),
  );
  await timed('accounts', () =>
    ctx.conn.bulkInsert(
      'pgbench_accounts',
      ['aid', 'bid', 'abalance', 'filler'],
      counted('accounts', scale * ROWS_PER_SCALE.accounts, (i) => [i, Math.ceil(i / ROWS_PER_SCALE.accounts), 0, '']),
    ),
  );
  for (const step of dialect.afterLoad) await timed(step.name, () => run(step.sql));
  return clock.phases;
}

function* rows(count: number, make: (id: number) => SqlValue[]): Generator<SqlValue[]> {
  for (let id = 1; id <= count; id++) yield make(id);
}
