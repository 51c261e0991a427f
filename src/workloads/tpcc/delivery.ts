import type { TransactionType } from '../workload.js';
import { DISTRICTS_PER_WAREHOUSE } from './sizes.js';
import { MONEY, terminalHome } from './terminal-home.js';

/**
 * Delivery (clause 2.7), run as one transaction over the ten districts of the home warehouse:
 * the oldest new-order of each district is delivered by a random carrier, its lines dated, and
 * its amount added to the customer's balance. A district with no new-order is skipped, and so is
 * one whose oldest new-order a concurrent Delivery took first (the DELETE finds no row).
 */
export const delivery: TransactionType = {
  name: 'delivery',
  weight: 4,
  async prepare(conn, terminal) {
    const home = await terminalHome(conn, terminal);
    const { random, decimals } = home;
    const oldest = await conn.prepare('SELECT MIN(no_o_id) FROM new_order WHERE no_w_id = ? AND no_d_id = ?');
    const take = await conn.prepare('DELETE FROM new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?');
    const selectOrder = await conn.prepare('SELECT o_c_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?');
    const setCarrier = await conn.prepare('UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?');
    const dateLines = await conn.prepare('UPDATE order_line SET ol_delivery_d = CURRENT_TIMESTAMP WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?');
    const sumLines = await conn.prepare('SELECT SUM(ol_amount) FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?');
    const payCustomer = await conn.prepare(
      `UPDATE customer SET c_balance = c_balance + ${MONEY}, c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?`,
    );

    return async () => {
      const w = home.warehouse;
      const carrier = random.int(1, 10);
      await conn.begin();
      for (let d = 1; d <= DISTRICTS_PER_WAREHOUSE; d++) {
        const [[first]] = (await oldest.all([w, d])) as [[unknown]];
        if (first === null || first === undefined) continue;
        const orderId = Number(first);
        if ((await take.run([w, d, orderId])) === 0) continue;
        const [[customer]] = (await selectOrder.all([w, d, orderId])) as [[unknown]];
        await setCarrier.run([carrier, w, d, orderId]);
        await dateLines.run([w, d, orderId]);
        const [[total]] = (await sumLines.all([w, d, orderId])) as [[unknown]];
        await payCustomer.run([decimals.param(decimals.read(total, 2), 2), w, d, Number(customer)]);
      }
      await conn.commit();
      return undefined;
    };
  },
};
