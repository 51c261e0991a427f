import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { Connection, DbmsName, Driver, SqlValue } from '../../src/drivers/driver.js';
import { Gate } from '../../src/engine/gate.js';
import { StopSignal } from '../../src/engine/stop-signal.js';
import { Terminal } from '../../src/engine/terminal.js';
import { Recorder } from '../../src/metrics/recorder.js';
import { DELIVERIES_WITH_SKIPS, SKIPPED_DISTRICTS, delivery } from '../../src/workloads/tpcc/delivery.js';
import { tpccMetrics } from '../../src/workloads/tpcc/metrics.js';
import { PROCEDURE_MIX } from '../../src/workloads/tpcc/procedures/calls.js';
import { createProcedures } from '../../src/workloads/tpcc/procedures/index.js';
import { CONSTANTS_TABLE, createTableStatements, keyStatements } from '../../src/workloads/tpcc/schema.js';
import type { TransactionType } from '../../src/workloads/workload.js';
import { DBMS_UNDER_TEST, connectFresh } from '../helpers/databases.js';
import { within } from '../helpers/fake-server.js';

const TERMINALS = 8;
const DELIVERIES_PER_TERMINAL = 6;
const DELIVERIES = TERMINALS * DELIVERIES_PER_TERMINAL;
/**
 * New-orders per district of warehouse 1: districts 1-8 keep some to the end (a skip there is the
 * defect), 9 and 10 run out part way (their skips are the ones clause 2.7.4.2 allows, and exactly
 * DELIVERIES - 10 and DELIVERIES - 30 of them).
 */
const NEW_ORDERS = [60, 60, 60, 60, 60, 60, 60, 60, 10, 30];
const CUSTOMERS = 5;

async function count(conn: Connection, sql: string): Promise<number> {
  const [[value]] = (await conn.query(sql)) as [[unknown]];
  return Number(value);
}

/** Only the rows Delivery reads and writes: orders with one line each, their new-orders, their customers. */
async function loadDistricts(conn: Connection, dbms: DbmsName): Promise<void> {
  for (const sql of createTableStatements(dbms)) await conn.query(sql);
  await conn.query(`INSERT INTO ${CONSTANTS_TABLE} VALUES (1, 1, 1, 1)`);
  const customers: SqlValue[][] = [];
  const orders: SqlValue[][] = [];
  const lines: SqlValue[][] = [];
  const newOrders: SqlValue[][] = [];
  for (const [i, n] of NEW_ORDERS.entries()) {
    const d = i + 1;
    for (let c = 1; c <= CUSTOMERS; c++) customers.push([c, d, 1, 0, 0]);
    for (let o = 1; o <= n; o++) {
      orders.push([o, d, 1, (o % CUSTOMERS) + 1, null, 1]);
      lines.push([o, d, 1, 1, 0]);
      newOrders.push([o, d, 1]);
    }
  }
  await conn.bulkInsert('customer', ['c_id', 'c_d_id', 'c_w_id', 'c_balance', 'c_delivery_cnt'], customers);
  await conn.bulkInsert('orders', ['o_id', 'o_d_id', 'o_w_id', 'o_c_id', 'o_carrier_id', 'o_ol_cnt'], orders);
  await conn.bulkInsert('order_line', ['ol_o_id', 'ol_d_id', 'ol_w_id', 'ol_number', 'ol_amount'], lines);
  await conn.bulkInsert('new_order', ['no_o_id', 'no_d_id', 'no_w_id'], newOrders);
  for (const sql of keyStatements(dbms)) await conn.query(sql);
}

/** Far longer than these deliveries take (a second or two): terminals still running then are stuck, not slow. */
const STALL_MS = 60_000;
/** After the stall's snapshot of the server, how long the terminals may take to finish before the test fails. */
const AFTER_SNAPSHOT_MS = 10_000;

/**
 * Waits for `running`; should it stall, takes the server's count of running and waiting statements
 * (DbmsObservation.waits) and says so. Firebird 3.0.11 once held seven Deliveries waiting on a
 * DELETE for seven minutes, with the eighth terminal's transaction idle, and all went on within a
 * minute of a query of its monitoring tables. The snapshot is taken before the test gives up, so a
 * run that finishes after it shows as such in the log (the test passes) and one that does not
 * fails with the counts.
 */
async function unlessStalled(running: Promise<unknown>, t: TestContext, driver: Driver, conn: Connection): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const stalled = new Promise<true>((resolve) => (timer = setTimeout(() => resolve(true), STALL_MS)));
    if ((await Promise.race([running.then(() => false), stalled])) === false) return;
  } finally {
    clearTimeout(timer);
  }
  const waits = JSON.stringify(await driver.observe(conn).waits());
  await within(AFTER_SNAPSHOT_MS, `the terminals, still running after ${STALL_MS / 1000} s (the server's statements then: ${waits})`, running);
  t.diagnostic(
    `the terminals were still running after ${STALL_MS / 1000} s and finished within ${AFTER_SNAPSHOT_MS / 1000} s of a snapshot of the server's statements (${waits})`,
  );
}

/** TERMINALS terminals of warehouse 1, each on its own connection, run Delivery DELIVERIES_PER_TERMINAL times at once, as the engine runs them. */
async function deliverFromManyTerminals(
  t: TestContext,
  driver: Driver,
  conn: Connection,
  dbms: DbmsName,
  type: TransactionType,
  options: Record<string, boolean>,
) {
  const recorder = new Recorder([type.name]);
  recorder.measuring = true;
  const stop = new StopSignal();
  const gate = driver.blocking ? new Gate() : undefined;
  const terminals: Terminal[] = [];
  for (let id = 0; id < TERMINALS; id++) {
    const plan = { id, terminals: TERMINALS, seed: 100 + id, transactions: DELIVERIES_PER_TERMINAL, rate: undefined, maxTries: 1 };
    const context = { scale: 1, dbms, options, protocol: 'prepared' as const, seed: 1 };
    terminals.push(
      new Terminal({
        plan,
        types: [type],
        recorder,
        stop,
        connection: await driver.connect(),
        connect: () => driver.connect(),
        blocking: driver.blocking,
        gate,
        context,
      }),
    );
  }
  try {
    for (const terminal of terminals) await terminal.prepare();
    await unlessStalled(Promise.all(terminals.map((terminal) => terminal.run())), t, driver, conn);
  } finally {
    // A stalled run given up ends here, rather than reconnecting once its connections close.
    stop.stop();
    await Promise.all(terminals.map((terminal) => terminal.close()));
  }
  return recorder.totalsSnapshot();
}

const variants: { dbms: DbmsName; procedures: boolean }[] = [
  ...DBMS_UNDER_TEST.map((dbms) => ({ dbms, procedures: false })),
  { dbms: 'postgres', procedures: true },
  { dbms: 'mariadb', procedures: true },
];

for (const { dbms, procedures } of variants) {
  const how = procedures ? ' (--procedures)' : '';
  test(`${dbms}${how}: tpcc Delivery from ${TERMINALS} terminals of one warehouse skips a district only when it has no new-order, and counts those skips`, async (t) => {
    const fresh = await connectFresh(t, dbms);
    if (!fresh) return;
    const { driver, conn } = fresh;
    await loadDistricts(conn, dbms);
    const options: Record<string, boolean> = procedures ? { procedures: true } : {};
    if (procedures) await createProcedures({ conn, dbms, options });
    const type = procedures ? PROCEDURE_MIX.find((p) => p.name === 'delivery')! : delivery;

    const totals = await deliverFromManyTerminals(t, driver, conn, dbms, type, options);
    const [deliveries] = totals.types;
    assert.equal(deliveries!.failed, 0, JSON.stringify(totals.errors));
    assert.equal(deliveries!.count, DELIVERIES);

    // Every district that had a new-order left gave its oldest to each Delivery: none is left
    // behind in districts 1-8, and 9 and 10 were emptied.
    const left = await conn.query('SELECT no_d_id, COUNT(*) FROM new_order WHERE no_w_id = 1 GROUP BY no_d_id ORDER BY no_d_id');
    assert.deepEqual(
      left.map(([d, n]) => [Number(d), Number(n)]),
      NEW_ORDERS.flatMap((n, i) => (n > DELIVERIES ? [[i + 1, n - DELIVERIES]] : [])),
    );
    // Each district's oldest orders went, one Delivery each, to the carrier and the customer.
    const delivered = NEW_ORDERS.reduce((sum, n) => sum + Math.min(n, DELIVERIES), 0);
    assert.equal(await count(conn, 'SELECT COUNT(*) FROM orders WHERE o_carrier_id IS NOT NULL'), delivered);
    assert.equal(await count(conn, 'SELECT COUNT(*) FROM order_line WHERE ol_delivery_d IS NOT NULL'), delivered);
    assert.equal(await count(conn, 'SELECT SUM(c_delivery_cnt) FROM customer'), delivered);
    const lastDelivered = NEW_ORDERS.map((n) => Math.min(n, DELIVERIES));
    const oldestLeft = await conn.query('SELECT o_d_id, MAX(o_id) FROM orders WHERE o_carrier_id IS NOT NULL GROUP BY o_d_id ORDER BY o_d_id');
    assert.deepEqual(
      oldestLeft.map(([, o]) => Number(o)),
      lastDelivered,
      'the oldest orders were delivered, in order',
    );

    // The skips counted are exactly the allowed ones: districts 9 and 10 once they were empty.
    const skipped = NEW_ORDERS.reduce((sum, n) => sum + Math.max(0, DELIVERIES - n), 0);
    assert.equal(deliveries!.counters[SKIPPED_DISTRICTS], skipped);
    const skipping = deliveries!.counters[DELIVERIES_WITH_SKIPS]!;
    assert.ok(skipping >= DELIVERIES - Math.min(...NEW_ORDERS) && skipping <= DELIVERIES, `${skipping} Delivery transactions skipped a district`);
    const metric = tpccMetrics(totals.types, 60).find((m) => m.name === 'skipped districts')!;
    assert.equal(metric.value, skipped);
    assert.match(metric.description, new RegExp(`in ${skipping} of ${DELIVERIES} Delivery transactions .*2\\.7\\.4\\.2 asks for this to be reported`));
  });
}
