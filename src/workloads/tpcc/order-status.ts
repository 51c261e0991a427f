import type { TransactionType } from '../workload.js';
import { customerByLastName } from './customer.js';
import { customerId, customerLastName, terminalHome, type TerminalHome } from './terminal-home.js';

/** The terminal's inputs of one Order-Status (2.6.1): id 0 when chosen by last name. */
export function drawOrderStatus(home: TerminalHome) {
  const w = home.warehouse;
  const d = home.random.int(1, 10);
  const last = home.random.int(1, 100) <= 60 ? customerLastName(home) : undefined;
  const id = last === undefined ? customerId(home) : 0;
  return { w, d, last, id };
}

/**
 * Order-Status (clause 2.6): a customer of a random district of the home warehouse (by last name
 * 60% of the time), their last order and its lines. Read-only.
 */
export const orderStatus: TransactionType = {
  name: 'order-status',
  weight: 4,
  async prepare(conn, terminal) {
    const home = await terminalHome(conn, terminal);
    const byName = await conn.prepare(
      'SELECT c_id, c_balance, c_first, c_middle FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first',
    );
    const byId = await conn.prepare('SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?');
    const lastOrder = await conn.prepare(
      `SELECT o_id, o_entry_d, o_carrier_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ?
       AND o_id = (SELECT MAX(o_id) FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ?)`,
    );
    const lines = await conn.prepare(
      'SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?',
    );

    return async () => {
      const { w, d, last, id } = drawOrderStatus(home);

      await conn.begin();
      let c = id;
      if (last !== undefined) {
        const found = await customerByLastName(byName, w, d, last);
        if (!found) throw new Error(`no customer named ${last} in warehouse ${w} district ${d}: the data is not a TPC-C load`);
        c = Number(found[0]);
      } else {
        await byId.all([w, d, c]);
      }
      const [order] = await lastOrder.all([w, d, c, w, d, c]);
      if (order) await lines.all([w, d, Number(order[0])]);
      await conn.commit();
      return undefined;
    };
  },
};
