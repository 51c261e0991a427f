import type { Statement } from '../../drivers/driver.js';
import type { TransactionType } from '../workload.js';
import { NURAND_A, nurand } from './random-values.js';
import { ITEMS } from './sizes.js';
import { customerId, remoteWarehouse, terminalHome, type TerminalHome } from './terminal-home.js';

/** An item id no item has: the last line of 1% of New-Orders carries it (2.4.1.4). */
const UNUSED_ITEM = ITEMS + 1;

export interface NewOrderLine {
  number: number;
  item: number;
  supply: number;
  quantity: number;
}

/**
 * The terminal's inputs of one New-Order (2.4.1): district, customer, 5-15 lines (1% remote),
 * 1% of orders ending with the unused item. Lines come sorted by (supply warehouse, item), the
 * order stock rows are locked in; each keeps its OL_NUMBER from the order as entered.
 */
export function drawNewOrder(home: TerminalHome): { w: number; d: number; c: number; lines: NewOrderLine[]; allLocal: number } {
  const { random } = home;
  const w = home.warehouse;
  const d = random.int(1, 10);
  const c = customerId(home);
  const lineCount = random.int(5, 15);
  const rollback = random.int(1, 100) === 1;
  const lines = Array.from({ length: lineCount }, (_, i) => {
    const item = rollback && i === lineCount - 1 ? UNUSED_ITEM : nurand(random, NURAND_A.itemId, 1, ITEMS, home.constants.itemId);
    const supply = random.int(1, 100) === 1 ? remoteWarehouse(home) : w;
    return { number: i + 1, item, supply, quantity: random.int(1, 10) };
  });
  const allLocal = lines.every((l) => l.supply === w) ? 1 : 0;
  lines.sort((a, b) => a.supply - b.supply || a.item - b.item);
  return { w, d, c, lines, allLocal };
}

/**
 * New-Order (clause 2.4): an order of 5-15 lines for a customer of a random district of the home
 * warehouse, 1% of lines supplied by another warehouse, and 1% of orders rolled back by an unused
 * item id (reported as 'rolled-back', not as a failure). Stock rows are updated in (warehouse,
 * item) order so that concurrent New-Orders take their locks in one order and do not deadlock;
 * each line keeps its OL_NUMBER from the order as entered.
 */
export const newOrder: TransactionType = {
  name: 'new-order',
  weight: 45,
  async prepare(conn, terminal) {
    const home = await terminalHome(conn, terminal);
    const { decimals } = home;
    const selectWarehouse = await conn.prepare('SELECT w_tax FROM warehouse WHERE w_id = ?');
    // Taking the next order id first locks the district row: concurrent New-Orders of one district queue here.
    const nextOrderId = await conn.prepare('UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ? AND d_id = ?');
    const selectDistrict = await conn.prepare('SELECT d_tax, d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?');
    const selectCustomer = await conn.prepare('SELECT c_discount, c_last, c_credit FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?');
    const insertOrder = await conn.prepare(
      'INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP, NULL, ?, ?)',
    );
    const insertNewOrder = await conn.prepare('INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)');
    const selectItem = await conn.prepare('SELECT i_price, i_name, i_data FROM item WHERE i_id = ?');
    // The new quantity in one statement (2.4.2.2): no read-then-write race between terminals.
    const updateStock = await conn.prepare(
      `UPDATE stock SET s_quantity = CASE WHEN s_quantity >= ? + 10 THEN s_quantity - ? ELSE s_quantity - ? + 91 END,
       s_ytd = s_ytd + ?, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + ? WHERE s_w_id = ? AND s_i_id = ?`,
    );
    const selectStock: Statement[] = [];
    for (let d = 1; d <= 10; d++) {
      selectStock.push(await conn.prepare(`SELECT s_quantity, s_dist_${String(d).padStart(2, '0')}, s_data FROM stock WHERE s_w_id = ? AND s_i_id = ?`));
    }
    const insertLine = await conn.prepare(
      `INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
       VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)`,
    );

    return async () => {
      const { w, d, c, lines, allLocal } = drawNewOrder(home);
      const lineCount = lines.length;

      await conn.begin();
      await selectWarehouse.all([w]);
      await nextOrderId.run([w, d]);
      const [district] = await selectDistrict.all([w, d]);
      const orderId = Number(district![1]) - 1;
      await selectCustomer.all([w, d, c]);
      await insertOrder.run([orderId, d, w, c, lineCount, allLocal]);
      await insertNewOrder.run([orderId, d, w]);
      for (const line of lines) {
        const [item] = await selectItem.all([line.item]);
        if (!item) {
          // 2.4.2.3: the unused item id ends the order; everything it did is undone.
          await conn.rollback();
          return 'rolled-back';
        }
        await updateStock.run([line.quantity, line.quantity, line.quantity, line.quantity, line.supply === w ? 0 : 1, line.supply, line.item]);
        const [stock] = await selectStock[d - 1]!.all([line.supply, line.item]);
        const amount = BigInt(line.quantity) * decimals.read(item[0], 2);
        await insertLine.run([orderId, d, w, line.number, line.item, line.supply, line.quantity, decimals.param(amount, 2), stock![1] as string]);
      }
      await conn.commit();
      return undefined;
    };
  },
};
