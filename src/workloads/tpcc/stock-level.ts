import type { TransactionType } from '../workload.js';
import { terminalHome } from './terminal-home.js';

/**
 * Stock-Level (clause 2.8): how many distinct items of the last 20 orders of the terminal's own
 * district are below a threshold of 10-20 in the home warehouse's stock. Read-only.
 */
export const stockLevel: TransactionType = {
  name: 'stock-level',
  weight: 4,
  async prepare(conn, terminal) {
    const home = await terminalHome(conn, terminal);
    const { random } = home;
    const nextOrder = await conn.prepare('SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?');
    const lowStock = await conn.prepare(
      `SELECT COUNT(DISTINCT s_i_id) FROM order_line JOIN stock ON s_w_id = ol_w_id AND s_i_id = ol_i_id
       WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ? AND ol_o_id >= ? AND s_quantity < ?`,
    );

    return async () => {
      const { warehouse: w, district: d } = home;
      const threshold = random.int(10, 20);
      await conn.begin();
      const [[next]] = (await nextOrder.all([w, d])) as [[unknown]];
      await lowStock.all([w, d, Number(next), Number(next) - 20, threshold]);
      await conn.commit();
      return undefined;
    };
  },
};
