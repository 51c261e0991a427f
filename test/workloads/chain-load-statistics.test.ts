import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Connection } from '../../src/drivers/driver.js';
import { runEngine } from '../../src/engine/engine.js';
import { chain } from '../../src/workloads/chain/index.js';
import { connectFresh } from '../helpers/databases.js';
import { engineConfig } from '../helpers/engine-config.js';

/** Sequential and index scans of operation so far, once the backends that made them have reported them. */
async function operationScans(conn: Connection): Promise<{ seq: number; idx: number }> {
  // PostgreSQL 15 takes a closed backend's counts into the shared statistics as it exits.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  await conn.query('SELECT pg_stat_clear_snapshot()');
  const [[seq, idx]] = (await conn.query("SELECT seq_scan, COALESCE(idx_scan, 0) FROM pg_stat_user_tables WHERE relname = 'operation'")) as [
    [unknown, unknown],
  ];
  return { seq: Number(seq), idx: Number(idx) };
}

/**
 * The load leaves operation empty and without statistics: PostgreSQL then assumes a table of some
 * pages, and the generic plans of a prepared run read the client's operations by index. Analyzed
 * empty, the table was planned as if it stayed empty, with a sequential scan at nearly every unit.
 */
test('postgres: a prepared run after a load reads operation by index, not by sequential scans', async (t) => {
  const fresh = await connectFresh(t, 'postgres');
  if (!fresh) return;
  const { db, driver, conn } = fresh;
  await chain.load({ conn, driver, dbms: 'postgres', scale: 0.0002, options: { load: 'bulk' }, log: () => {} });
  const before = await operationScans(conn);
  const config = engineConfig(db.target, 'chain', { options: { statements: 'prepared' }, scale: 0.0002, clients: 2, transactionsPerClient: 300, maxTries: 5 });
  const outcome = await runEngine(config, new AbortController().signal, () => {});
  assert.equal(outcome.totals.types[0]!.count, 600);
  const after = await operationScans(conn);
  // Each terminal's one count of the existing operations may scan the table; the units must not.
  assert.ok(after.seq - before.seq <= 2, `${after.seq - before.seq} sequential scans of operation in 600 units (${after.idx - before.idx} index scans)`);
  assert.ok(after.idx - before.idx >= 600, `${after.idx - before.idx} index scans of operation in 600 units`);
});
