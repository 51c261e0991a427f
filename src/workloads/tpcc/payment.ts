import type { TransactionType } from '../workload.js';
import { format } from './decimal.js';
import { customerByLastName } from './customer.js';
import { MONEY, customerId, customerLastName, remoteWarehouse, terminalHome, type TerminalHome } from './terminal-home.js';

/** C_DATA holds at most 500 characters (clause 1.3). */
const C_DATA_LENGTH = 500;

/** The terminal's inputs of one Payment (2.5.1): amount in cents; id 0 when chosen by last name. */
export function drawPayment(home: TerminalHome) {
  const { random } = home;
  const w = home.warehouse;
  const d = random.int(1, 10);
  const local = random.int(1, 100) <= 85;
  const customerWarehouse = local ? w : remoteWarehouse(home);
  const customerDistrict = local ? d : random.int(1, 10);
  const last = random.int(1, 100) <= 60 ? customerLastName(home) : undefined;
  const id = last === undefined ? customerId(home) : 0;
  const amount = BigInt(random.int(100, 500_000));
  return { w, d, customerWarehouse, customerDistrict, last, id, amount };
}

/**
 * Payment (clause 2.5): a payment of 1.00-5,000.00 to the home warehouse and a random district,
 * by a customer of that district (85%) or of a random district of another warehouse (15%),
 * chosen by last name 60% of the time; bad-credit customers get the payment prepended to C_DATA.
 */
export const payment: TransactionType = {
  name: 'payment',
  weight: 43,
  async prepare(conn, terminal) {
    const home = await terminalHome(conn, terminal);
    const { decimals } = home;
    const updateWarehouse = await conn.prepare(`UPDATE warehouse SET w_ytd = w_ytd + ${MONEY} WHERE w_id = ?`);
    const selectWarehouse = await conn.prepare('SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip FROM warehouse WHERE w_id = ?');
    const updateDistrict = await conn.prepare(`UPDATE district SET d_ytd = d_ytd + ${MONEY} WHERE d_w_id = ? AND d_id = ?`);
    const selectDistrict = await conn.prepare('SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip FROM district WHERE d_w_id = ? AND d_id = ?');
    const byName = await conn.prepare('SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first');
    const selectCustomer = await conn.prepare(
      `SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance
       FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?`,
    );
    const updateCustomer = await conn.prepare(
      `UPDATE customer SET c_balance = c_balance - ${MONEY}, c_ytd_payment = c_ytd_payment + ${MONEY}, c_payment_cnt = c_payment_cnt + 1
       WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?`,
    );
    const selectData = await conn.prepare('SELECT c_data FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?');
    const updateData = await conn.prepare('UPDATE customer SET c_data = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?');
    const insertHistory = await conn.prepare(
      'INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES (?, ?, ?, ?, ?, CURRENT_TIMESTAMP, ?, ?)',
    );

    return async () => {
      const { w, d, customerWarehouse, customerDistrict, last, id, amount } = drawPayment(home);
      const money = decimals.param(amount, 2);

      await conn.begin();
      await updateWarehouse.run([money, w]);
      const [warehouse] = await selectWarehouse.all([w]);
      await updateDistrict.run([money, w, d]);
      const [district] = await selectDistrict.all([w, d]);
      let c = id;
      if (last !== undefined) {
        const found = await customerByLastName(byName, customerWarehouse, customerDistrict, last);
        if (!found) throw new Error(`no customer named ${last} in warehouse ${customerWarehouse} district ${customerDistrict}: the data is not a TPC-C load`);
        c = Number(found[0]);
      }
      const [customer] = await selectCustomer.all([customerWarehouse, customerDistrict, c]);
      await updateCustomer.run([money, money, customerWarehouse, customerDistrict, c]);
      if (customer![10] === 'BC') {
        const [[data]] = (await selectData.all([customerWarehouse, customerDistrict, c])) as [[string]];
        const entry = `${c} ${customerDistrict} ${customerWarehouse} ${d} ${w} ${format(amount, 2)} | `;
        await updateData.run([(entry + data).slice(0, C_DATA_LENGTH), customerWarehouse, customerDistrict, c]);
      }
      // H_DATA: W_NAME and D_NAME separated by four spaces (2.5.2.2).
      const historyData = `${String(warehouse![0])}    ${String(district![0])}`;
      await insertHistory.run([c, customerDistrict, customerWarehouse, d, w, money, historyData]);
      await conn.commit();
      return undefined;
    };
  },
};
