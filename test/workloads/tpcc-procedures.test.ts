import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runEngine } from '../../src/engine/engine.js';
import type { Connection } from '../../src/drivers/driver.js';
import { engineConfig } from '../helpers/engine-config.js';
import { runCli } from '../helpers/cli.js';
import { tpcc } from '../../src/workloads/tpcc/index.js';
import { dropProcedureStatements } from '../../src/workloads/tpcc/procedures/index.js';
import type { DataContext } from '../../src/workloads/workload.js';
import { connectFresh } from '../helpers/databases.js';

async function count(conn: Connection, sql: string): Promise<number> {
  const [[value]] = (await conn.query(sql)) as [[unknown]];
  return Number(value);
}

const PROCEDURE_COUNT = {
  postgres: "SELECT COUNT(*) FROM pg_proc WHERE proname LIKE 'tpcc\\_%'",
  mariadb: "SELECT COUNT(*) FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = DATABASE() AND ROUTINE_NAME LIKE 'tpcc\\_%'",
};

for (const dbms of ['postgres', 'mariadb'] as const) {
  test(`${dbms}: tpcc --procedures creates its procedures at load and before a run, runs the mix through them, counts New-Order rollbacks and stays consistent`, async (t) => {
    const fresh = await connectFresh(t, dbms);
    if (!fresh) return;
    const { db, driver, conn } = fresh;
    const options = { procedures: true };
    const ctx: DataContext = { conn, driver, dbms, scale: 1, options, log: () => {} };
    const phases = await tpcc.load(ctx);
    assert.equal(phases.at(-1)!.name, 'procedures');
    assert.equal(await count(conn, PROCEDURE_COUNT[dbms]), 5);

    // Data whose procedures are missing (loaded without --procedures) gets them before the run.
    for (const sql of dropProcedureStatements(dbms)) await conn.query(sql);
    assert.equal(await count(conn, PROCEDURE_COUNT[dbms]), 0);
    await tpcc.readyForRun!(ctx);
    assert.equal(await count(conn, PROCEDURE_COUNT[dbms]), 5);

    const ordersBefore = await count(conn, 'SELECT COUNT(*) FROM orders');
    const linesBefore = await count(conn, 'SELECT COUNT(*) FROM order_line');
    const historyBefore = await count(conn, 'SELECT COUNT(*) FROM history');
    // -t: every transaction is counted, so the database must show exactly the counted commits.
    // With seed 3 the terminals draw the unused item in a few of their ~450 New-Orders.
    const config = engineConfig(db.target, 'tpcc', { options, clients: 4, jobs: 1, transactionsPerClient: 250, maxTries: 20, seed: 3 });
    const outcome = await runEngine(config, new AbortController().signal, () => {});
    assert.equal(outcome.status, 'completed');
    const byName = Object.fromEntries(outcome.totals.types.map((type) => [type.name, type]));
    assert.deepEqual(Object.keys(byName), ['new-order', 'payment', 'order-status', 'delivery', 'stock-level']);
    for (const type of outcome.totals.types) assert.equal(type.failed, 0, `${type.name}: ${JSON.stringify(outcome.totals.errors)}`);
    for (const type of outcome.totals.types) assert.ok(type.count > 0, `${type.name} ran`);
    const newOrders = byName['new-order']!;
    assert.ok(newOrders.rolledBack > 0, `${newOrders.rolledBack} of ${newOrders.count} New-Orders rolled back`);
    assert.ok(
      outcome.totals.types.every((type) => type.name === 'new-order' || type.rolledBack === 0),
      'only New-Order rolls back',
    );

    const after = await tpcc.check(ctx);
    assert.equal(after.length, 5);
    assert.ok(
      after.every((o) => o.ok),
      JSON.stringify(after.filter((o) => !o.ok)),
    );
    const committed = newOrders.count - newOrders.rolledBack;
    assert.equal((await count(conn, 'SELECT SUM(d_next_o_id) FROM district')) - 10 * 3001, committed, 'a rolled-back New-Order leaves no order id taken');
    assert.equal(await count(conn, 'SELECT COUNT(*) FROM orders'), ordersBefore + committed);
    assert.ok((await count(conn, 'SELECT COUNT(*) FROM order_line')) >= linesBefore + 5 * committed, 'each committed New-Order added its 5-15 lines');
    assert.equal(await count(conn, 'SELECT COUNT(*) FROM history'), historyBefore + byName['payment']!.count, 'one history row per Payment');

    await tpcc.drop(ctx);
    assert.equal(await count(conn, PROCEDURE_COUNT[dbms]), 0, 'drop removes the procedures too');
  });
}

test('tpcc --procedures on SQLite is refused with one line before anything is loaded', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-tpcc-proc-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const verb of ['run', 'init']) {
    const result = await runCli(
      [verb, 'tpcc', '--db', `sqlite:${path.join(dir, 'p.db')}`, '--procedures', '-P', '0'].filter((a) => verb === 'run' || (a !== '-P' && a !== '0')),
    );
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /tpcc --procedures runs on PostgreSQL and MariaDB, not on sqlite/);
    assert.equal(
      result.stderr
        .trim()
        .split('\n')
        .filter((l) => !/^\s*(hint|see|omit)/i.test(l)).length,
      1,
      result.stderr,
    );
  }
});
