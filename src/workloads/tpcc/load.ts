import { randomInt } from 'node:crypto';
import type { Connection, SqlValue } from '../../drivers/driver.js';
import { Random } from '../../common/random.js';
import { PhaseClock } from '../phases.js';
import type { DataContext, LoadPhase } from '../workload.js';
import { failedChecks } from './check.js';
import { Decimals } from './decimal.js';
import { tpccDialect } from './dialect.js';
import { LoadProgress } from './progress.js';
import { drawConstants } from './random-values.js';
import * as rows from './rows.js';
import { CONSTANTS_TABLE, TABLE_COLUMNS, analyzeStatements, createTableStatements, dropStatements, keyStatements } from './schema.js';
import { CUSTOMERS_PER_DISTRICT, DISTRICTS_PER_WAREHOUSE, ITEMS, NEW_ORDERS_PER_DISTRICT, ORDERS_PER_DISTRICT, STOCK_PER_WAREHOUSE } from './sizes.js';

/** Loading connections at most: each loads whole warehouses; more only queue on a 2-4 core server. */
const MAX_LOADERS = 4;

/**
 * Loads the initial database of clause 4.3 at -s warehouses: items first, then the warehouses in
 * parallel on up to four connections (each takes the next warehouse when it is done), through the
 * driver's bulk path (PostgreSQL COPY, MariaDB's bulk execute, one SQLite transaction per table,
 * Firebird EXECUTE BLOCK). Keys and indexes come after where that is faster; then statistics,
 * then the consistency conditions 1-4, which a fresh load must pass.
 */
export async function loadTpcc(ctx: DataContext): Promise<LoadPhase[]> {
  const clock = new PhaseClock(ctx);
  const { dbms, conn } = ctx;
  const seed = randomInt(0, 2 ** 31);
  const constants = drawConstants(new Random(seed));
  const values: rows.LoadValues = { seed, constants, decimals: new Decimals(dbms), now: new Date().toISOString().replace('T', ' ').replace('Z', '') };

  await clock.timed('create tables', () => clock.statements([...dropStatements(dbms), ...createTableStatements(dbms)]));
  await conn.query(`INSERT INTO ${CONSTANTS_TABLE} VALUES (?, ?, ?, ?)`, [
    constants.lastNameLoad,
    constants.lastNameRun,
    constants.customerId,
    constants.itemId,
  ]);
  await clock.timed('items', async () => {
    const progress = new LoadProgress(ctx, 'items', ITEMS);
    const n = await conn.bulkInsert('item', columns('item'), progress.count(rows.itemRows(values)));
    progress.report();
    return n;
  });
  await clock.timed('warehouses', () => loadWarehouses(ctx, values));
  await clock.timed('keys and indexes', () => clock.statements(keyStatements(dbms)));
  const analyze = analyzeStatements(dbms);
  if (analyze.length > 0) await clock.timed('analyze', () => clock.statements(analyze));
  await clock.timed('consistency check', async () => {
    const failed = await failedChecks(ctx);
    if (failed.length > 0) throw new Error(`the loaded data fails ${failed.map((c) => `${c.name} (${c.detail})`).join('; ')}`);
    return 0;
  });
  return clock.phases;
}

function columns(table: string): string[] {
  return TABLE_COLUMNS[table]!.map(([name]) => name);
}

async function loadWarehouses(ctx: DataContext, values: rows.LoadValues): Promise<number> {
  const { scale } = ctx;
  const lineCounts = new Map<number, Uint8Array>();
  let orderLines = 0;
  for (let w = 1; w <= scale; w++) {
    const counts = rows.orderLineCounts(values, w);
    lineCounts.set(w, counts);
    for (const n of counts) orderLines += n;
  }
  const perWarehouse = 1 + STOCK_PER_WAREHOUSE + DISTRICTS_PER_WAREHOUSE * (1 + 2 * CUSTOMERS_PER_DISTRICT + ORDERS_PER_DISTRICT + NEW_ORDERS_PER_DISTRICT);
  const progress = new LoadProgress(ctx, 'warehouses', perWarehouse * scale + orderLines);

  // A DBMS with one writer gets its loads through the one connection, in turn.
  const loaders = tpccDialect(ctx.dbms).oneWriter ? 1 : Math.min(scale, MAX_LOADERS);
  const connections: Connection[] = [ctx.conn];
  try {
    for (let i = 1; i < loaders; i++) connections.push(await ctx.driver.connect());
    let next = 1;
    await Promise.all(
      connections.map(async (conn) => {
        for (let w = next++; w <= scale; w = next++) await loadWarehouse(conn, values, w, lineCounts.get(w)!, progress);
      }),
    );
  } finally {
    for (const conn of connections.slice(1)) await conn.close().catch(() => {});
  }
  progress.report();
  return progress.rowsDone;
}

async function loadWarehouse(conn: Connection, v: rows.LoadValues, w: number, lineCounts: Uint8Array, progress: LoadProgress): Promise<void> {
  const insert = (table: string, generated: Iterable<SqlValue[]>): Promise<number> => conn.bulkInsert(table, columns(table), progress.count(generated));
  await insert('warehouse', rows.warehouseRows(v, w));
  await insert('stock', rows.stockRows(v, w));
  await insert('district', rows.districtRows(v, w));
  await insert('customer', rows.customerRows(v, w));
  await insert('history', rows.historyRows(v, w));
  await insert('orders', rows.orderRows(v, w, lineCounts));
  await insert('order_line', rows.orderLineRows(v, w, lineCounts));
  await insert('new_order', rows.newOrderRows(w));
}
