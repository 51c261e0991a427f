import type { SqlValue, Statement } from '../../drivers/driver.js';
import { DbError } from '../../drivers/errors.js';
import type { TransactionType } from '../workload.js';
import { tpccDialect } from './dialect.js';
import { DISTRICTS_PER_WAREHOUSE } from './sizes.js';
import { MONEY, terminalHome } from './terminal-home.js';

/** Delivery's own counts in the result (TerminalContext.count): districts skipped, and the Delivery transactions that skipped one. */
export const SKIPPED_DISTRICTS = 'skippedDistricts';
export const DELIVERIES_WITH_SKIPS = 'deliveriesWithSkips';

/**
 * Reads of one district's oldest new-order before Delivery gives up with an error: each further
 * read follows a commit of another Delivery that took the order, so a few terminals of one
 * warehouse need a few; this many means something else is wrong.
 */
const MAX_READS = 1_000;

/**
 * Delivery (clause 2.7), run as one transaction over the ten districts of the home warehouse:
 * the oldest new-order of each district is delivered by a random carrier, its lines dated, and
 * its amount added to the customer's balance. A district is skipped only when it has no new-order
 * (2.7.4.2); the skips are counted in the result.
 */
export const delivery: TransactionType = {
  name: 'delivery',
  weight: 4,
  async prepare(conn, terminal) {
    const home = await terminalHome(conn, terminal);
    const { random, decimals } = home;
    // Read so that a concurrent Delivery cannot take it between this read and the DELETE (dialect.ts).
    const oldest = await conn.prepare(tpccDialect(terminal.dbms).oldestNewOrder);
    const take = await conn.prepare('DELETE FROM new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?');
    const selectOrder = await conn.prepare('SELECT o_c_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?');
    const setCarrier = await conn.prepare('UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?');
    const dateLines = await conn.prepare('UPDATE order_line SET ol_delivery_d = CURRENT_TIMESTAMP WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?');
    const sumLines = await conn.prepare('SELECT SUM(ol_amount) FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?');
    const payCustomer = await conn.prepare(
      `UPDATE customer SET c_balance = c_balance + ${MONEY}, c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?`,
    );
    const count = terminal.count;

    return async () => {
      const w = home.warehouse;
      const carrier = random.int(1, 10);
      let skipped = 0;
      await conn.begin();
      for (let d = 1; d <= DISTRICTS_PER_WAREHOUSE; d++) {
        const orderId = await takeOldest(oldest, take, w, d);
        if (orderId === undefined) {
          skipped++;
          continue;
        }
        const [[customer]] = (await selectOrder.all([w, d, orderId])) as [[unknown]];
        await setCarrier.run([carrier, w, d, orderId]);
        await dateLines.run([w, d, orderId]);
        const [[total]] = (await sumLines.all([w, d, orderId])) as [[unknown]];
        await payCustomer.run([decimals.param(decimals.read(total, 2), 2), w, d, Number(customer)]);
      }
      await conn.commit();
      if (skipped > 0 && count) {
        count(SKIPPED_DISTRICTS, skipped);
        count(DELIVERIES_WITH_SKIPS, 1);
      }
      return undefined;
    };
  },
};

/**
 * Deletes the district's oldest new-order and returns its id, or undefined when the district has
 * none. A DELETE that finds no row (a concurrent Delivery committed it after the read) reads
 * again. So does a DELETE that fails on the other Delivery's delete where the driver says the DBMS
 * undid only that statement (DbError.statementUndone: Firebird 3's "cannot update erased record"
 * once it committed, or an update conflict), as the transaction's read committed then sees that
 * commit. Elsewhere a conflict ends the transaction as usual.
 */
async function takeOldest(oldest: Statement, take: Statement, w: number, d: number): Promise<number | undefined> {
  const key: SqlValue[] = [w, d];
  for (let reads = 0; reads < MAX_READS; reads++) {
    const first = (await oldest.all(key))[0]?.[0];
    if (first === null || first === undefined) return undefined;
    const orderId = Number(first);
    try {
      if ((await take.run([w, d, orderId])) === 1) return orderId;
    } catch (error) {
      if (!(error instanceof DbError) || !error.statementUndone) throw error;
    }
  }
  throw new Error(`Delivery: district ${d} of warehouse ${w} lost its oldest new-order to other transactions ${MAX_READS} times in a row`);
}
