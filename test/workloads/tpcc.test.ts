import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runEngine } from '../../src/engine/engine.js';
import type { Connection } from '../../src/drivers/driver.js';
import { engineConfig } from '../helpers/engine-config.js';
import { tpcc } from '../../src/workloads/tpcc/index.js';
import { tpccMetrics } from '../../src/workloads/tpcc/metrics.js';
import type { DataContext } from '../../src/workloads/workload.js';
import { DBMS_UNDER_TEST, connectFresh } from '../helpers/databases.js';

async function count(conn: Connection, sql: string): Promise<number> {
  const [[value]] = (await conn.query(sql)) as [[unknown]];
  return Number(value);
}

/**
 * Firebird's load of one warehouse (EXECUTE BLOCKs of literal inserts) takes 1.5-4 minutes on a
 * busy 2-core machine, longer than the rest of these tests together: it runs on request.
 */
const FIREBIRD_SKIP = process.env['HEADROOM_TEST_SLOW'] === '1' ? false : 'Firebird loads one tpcc warehouse in minutes: set HEADROOM_TEST_SLOW=1 to run it';

for (const dbms of DBMS_UNDER_TEST) {
  test(
    `${dbms}: tpcc loads one warehouse to the spec, runs the mix without unexpected failures, and stays consistent`,
    { skip: dbms === 'firebird' && FIREBIRD_SKIP },
    async (t) => {
      const fresh = await connectFresh(t, dbms);
      if (!fresh) return;
      const { db, driver, conn } = fresh;
      const progress: number[] = [];
      const ctx: DataContext = {
        conn,
        driver,
        dbms,
        scale: 1,
        options: { 'check-all': true },
        log: () => {},
        progress: (p) => p.phase === 'warehouses' && progress.push(p.rowsDone),
      };
      assert.equal(await tpcc.detectScale(ctx), undefined);
      const phases = await tpcc.load(ctx);
      assert.deepEqual(phases.map((p) => p.name).slice(0, 3), ['create tables', 'items', 'warehouses']);
      assert.ok(progress.length > 10 && progress.every((n, i) => i === 0 || n >= progress[i - 1]!), 'progress rises through the load');

      // Clause 4.3.3.1 cardinalities at one warehouse.
      assert.equal(await count(conn, 'SELECT COUNT(*) FROM item'), 100_000);
      assert.equal(await count(conn, 'SELECT COUNT(*) FROM stock'), 100_000);
      assert.equal(await count(conn, 'SELECT COUNT(*) FROM district'), 10);
      assert.equal(await count(conn, 'SELECT COUNT(*) FROM customer'), 30_000);
      assert.equal(await count(conn, 'SELECT COUNT(*) FROM history'), 30_000);
      assert.equal(await count(conn, 'SELECT COUNT(*) FROM orders'), 30_000);
      assert.equal(await count(conn, 'SELECT COUNT(*) FROM new_order'), 9_000);
      const lines = await count(conn, 'SELECT COUNT(*) FROM order_line');
      assert.equal(lines, await count(conn, 'SELECT SUM(o_ol_cnt) FROM orders'));
      assert.ok(lines > 30_000 * 9.5 && lines < 30_000 * 10.5, `${lines} order lines: 5-15 per order, about 10 on average`);
      assert.equal(phases.find((p) => p.name === 'warehouses')!.rows, 1 + 100_000 + 10 + 30_000 * 3 + 9_000 + lines);
      assert.equal((await count(conn, "SELECT COUNT(*) FROM customer WHERE c_last = 'BARBARBAR'")) >= 10, true, 'customer 1 of each district is BARBARBAR');
      const bad = await count(conn, "SELECT COUNT(*) FROM customer WHERE c_credit = 'BC'");
      assert.ok(bad > 2_400 && bad < 3_600, `${bad} of 30,000 customers with bad credit, about 10%`);
      const original = await count(conn, "SELECT COUNT(*) FROM item WHERE i_data LIKE '%ORIGINAL%'");
      assert.ok(original > 9_000 && original < 11_000, `${original} items say ORIGINAL, about 10%`);
      assert.equal(await tpcc.detectScale(ctx), 1);
      const loaded = await tpcc.check(ctx);
      assert.ok(
        loaded.every((o) => o.ok),
        JSON.stringify(loaded.filter((o) => !o.ok)),
      );
      assert.equal(loaded.length, 1 + 4 + (dbms === 'firebird' ? 7 : 8), 'warehouses, conditions 1-4, and with --check-all 5-12 (not 10 on Firebird)');

      // -t, not -T: every transaction run is counted, so the database must show exactly the counted commits.
      // SQLite runs enough New-Orders (about 1,350) to see the 1% rollbacks.
      const clients = dbms === 'sqlite' ? 2 : 4;
      const perClient = dbms === 'sqlite' ? 1_500 : 60;
      const config = engineConfig(db.target, 'tpcc', { clients, jobs: 1, transactionsPerClient: perClient, maxTries: 20, seed: 7 });
      const outcome = await runEngine(config, new AbortController().signal, () => {});
      assert.equal(outcome.status, 'completed');
      const byName = Object.fromEntries(outcome.totals.types.map((type) => [type.name, type]));
      assert.deepEqual(Object.keys(byName), ['new-order', 'payment', 'order-status', 'delivery', 'stock-level']);
      for (const type of outcome.totals.types) assert.equal(type.failed, 0, `${type.name}: ${JSON.stringify(outcome.totals.errors)}`);
      assert.ok(byName['new-order']!.count > 0 && byName['payment']!.count > 0);
      assert.ok(
        outcome.totals.types.every((type) => type.name === 'new-order' || type.rolledBack === 0),
        'only New-Order rolls back',
      );

      const after = await tpcc.check(ctx);
      assert.ok(
        after.every((o) => o.ok),
        JSON.stringify(after.filter((o) => !o.ok)),
      );

      // NOPM from the counts agrees with what the database kept: every committed New-Order took one order id.
      const newOrders = byName['new-order']!;
      const committedSinceLoad = (await count(conn, 'SELECT SUM(d_next_o_id) FROM district')) - 10 * 3001;
      assert.equal(committedSinceLoad, newOrders.count - newOrders.rolledBack, 'a rolled-back New-Order leaves no order behind');
      assert.equal(await count(conn, 'SELECT COUNT(*) FROM orders'), 30_000 + committedSinceLoad);
      if (dbms === 'sqlite') {
        const share = newOrders.rolledBack / newOrders.count;
        assert.ok(share > 0.002 && share < 0.03, `${newOrders.rolledBack} of ${newOrders.count} New-Orders rolled back, about 1%`);
      }
      const [nopm, tpm] = tpccMetrics(outcome.totals.types, outcome.measuredSeconds);
      const minutes = outcome.measuredSeconds / 60;
      assert.ok(Math.abs(nopm!.value - (newOrders.count - newOrders.rolledBack) / minutes) < 0.1);
      const committed = outcome.totals.types.reduce((n, type) => n + type.count - type.rolledBack, 0);
      assert.ok(Math.abs(tpm!.value - committed / minutes) < 0.1 && tpm!.value >= nopm!.value);

      // A district whose D_YTD no longer matches its warehouse and history must be named.
      const bump = dbms === 'sqlite' ? '1' : '0.01';
      await conn.query(`UPDATE district SET d_ytd = d_ytd + ${bump} WHERE d_w_id = 1 AND d_id = 7`);
      const broken = await tpcc.check(ctx);
      const condition1 = broken.find((o) => o.name.startsWith('condition 1:'))!;
      assert.equal(condition1.ok, false);
      assert.match(condition1.detail, /fails for 1 warehouses; first: warehouse 1: w_ytd \d+\.\d\d, sum\(d_ytd\) \d+\.\d\d/);
      const condition9 = broken.find((o) => o.name.startsWith('condition 9:'))!;
      assert.equal(condition9.ok, false);
      assert.match(condition9.detail, /fails for 1 districts; first: warehouse 1 district 7: d_ytd/);
      assert.ok(broken.filter((o) => !o.ok).length === 2, JSON.stringify(broken.filter((o) => !o.ok).map((o) => o.name)));

      await tpcc.drop(ctx);
      assert.equal(await tpcc.detectScale(ctx), undefined);
    },
  );
}
