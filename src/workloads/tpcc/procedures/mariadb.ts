import type { TpccProcedures } from './procedures.js';
import { UNUSED_ITEM_SIGNAL } from './signal.js';

/**
 * The five transactions as MariaDB stored procedures, each doing what its client-side file does,
 * in the same order, on the same rows. The terminal draws the inputs and CALLs one procedure per
 * transaction inside its own BEGIN/COMMIT; New-Order's lines arrive as comma-separated lists in
 * lock order. Every read goes INTO a variable (a bare SELECT would send a result set). Errors
 * keep their number through CALL (1213 and 1205 stay retryable).
 */

const STOCK_DIST = `CASE p_d ${Array.from({ length: 10 }, (_, i) => `WHEN ${i + 1} THEN s_dist_${String(i + 1).padStart(2, '0')}`).join(' ')} END`;

/** The i-th (1-based) element of a comma-separated list. */
const nth = (list: string): string => `CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(${list}, ',', v_i), ',', -1) AS INT)`;

/** 2.5.2.2 / 2.6.2.2: the customer at position ceil(n/2) of those with the last name, by C_FIRST. */
const BY_LAST_NAME = (w: string, d: string): string => `
    SELECT COUNT(*) INTO v_count FROM customer WHERE c_w_id = ${w} AND c_d_id = ${d} AND c_last = p_last;
    IF v_count = 0 THEN
      SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no customer with this last name: the data is not a TPC-C load';
    END IF;
    SET v_offset = (v_count + 1) DIV 2 - 1;
    SELECT c_id INTO v_c FROM customer WHERE c_w_id = ${w} AND c_d_id = ${d} AND c_last = p_last ORDER BY c_first LIMIT v_offset, 1;`;

const NEW_ORDER = `
CREATE OR REPLACE PROCEDURE tpcc_new_order(p_w INT, p_d INT, p_c INT, p_all_local INT, p_count INT, p_numbers VARCHAR(200), p_items VARCHAR(200), p_supply VARCHAR(200), p_quantities VARCHAR(200))
BEGIN
  DECLARE v_w_tax, v_d_tax, v_discount DECIMAL(4,4);
  DECLARE v_last VARCHAR(16);
  DECLARE v_credit CHAR(2);
  DECLARE v_order, v_i, v_number, v_item, v_supply, v_quantity INT;
  DECLARE v_price DECIMAL(5,2);
  DECLARE v_name VARCHAR(24);
  DECLARE v_data VARCHAR(50);
  DECLARE v_dist CHAR(24);
  SELECT w_tax INTO v_w_tax FROM warehouse WHERE w_id = p_w;
  UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = p_w AND d_id = p_d;
  SELECT d_tax, d_next_o_id - 1 INTO v_d_tax, v_order FROM district WHERE d_w_id = p_w AND d_id = p_d;
  SELECT c_discount, c_last, c_credit INTO v_discount, v_last, v_credit FROM customer WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = p_c;
  INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
    VALUES (v_order, p_d, p_w, p_c, CURRENT_TIMESTAMP, NULL, p_count, p_all_local);
  INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_order, p_d, p_w);
  SET v_i = 1;
  WHILE v_i <= p_count DO
    SET v_number = ${nth('p_numbers')}, v_item = ${nth('p_items')}, v_supply = ${nth('p_supply')}, v_quantity = ${nth('p_quantities')};
    SET v_price = NULL;
    SELECT i_price, i_name, i_data INTO v_price, v_name, v_data FROM item WHERE i_id = v_item;
    -- 2.4.2.3: the unused item id ends the order; the client rolls everything back.
    IF v_price IS NULL THEN
      SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '${UNUSED_ITEM_SIGNAL}';
    END IF;
    UPDATE stock SET s_quantity = CASE WHEN s_quantity >= v_quantity + 10 THEN s_quantity - v_quantity ELSE s_quantity - v_quantity + 91 END,
      s_ytd = s_ytd + v_quantity, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + IF(v_supply = p_w, 0, 1)
      WHERE s_w_id = v_supply AND s_i_id = v_item;
    SELECT ${STOCK_DIST} INTO v_dist FROM stock WHERE s_w_id = v_supply AND s_i_id = v_item;
    INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
      VALUES (v_order, p_d, p_w, v_number, v_item, v_supply, NULL, v_quantity, v_quantity * v_price, v_dist);
    SET v_i = v_i + 1;
  END WHILE;
END`;

const PAYMENT = `
CREATE OR REPLACE PROCEDURE tpcc_payment(p_w INT, p_d INT, p_cw INT, p_cd INT, p_c INT, p_last VARCHAR(16), p_amount DECIMAL(12,2))
BEGIN
  DECLARE v_w_name, v_d_name VARCHAR(10);
  DECLARE v_w_street_1, v_w_street_2, v_w_city, v_d_street_1, v_d_street_2, v_d_city VARCHAR(20);
  DECLARE v_w_state, v_d_state CHAR(2);
  DECLARE v_w_zip, v_d_zip CHAR(9);
  DECLARE v_c INT DEFAULT p_c;
  DECLARE v_count, v_offset INT;
  DECLARE v_first VARCHAR(16);
  DECLARE v_middle CHAR(2);
  DECLARE v_c_last VARCHAR(16);
  DECLARE v_street_1, v_street_2, v_city VARCHAR(20);
  DECLARE v_state CHAR(2);
  DECLARE v_zip CHAR(9);
  DECLARE v_phone CHAR(16);
  DECLARE v_since DATETIME(6);
  DECLARE v_credit CHAR(2);
  DECLARE v_credit_lim, v_balance DECIMAL(12,2);
  DECLARE v_discount DECIMAL(4,4);
  UPDATE warehouse SET w_ytd = w_ytd + p_amount WHERE w_id = p_w;
  SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip INTO v_w_name, v_w_street_1, v_w_street_2, v_w_city, v_w_state, v_w_zip FROM warehouse WHERE w_id = p_w;
  UPDATE district SET d_ytd = d_ytd + p_amount WHERE d_w_id = p_w AND d_id = p_d;
  SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip INTO v_d_name, v_d_street_1, v_d_street_2, v_d_city, v_d_state, v_d_zip FROM district WHERE d_w_id = p_w AND d_id = p_d;
  IF p_last IS NOT NULL THEN ${BY_LAST_NAME('p_cw', 'p_cd')}
  END IF;
  SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance
    INTO v_first, v_middle, v_c_last, v_street_1, v_street_2, v_city, v_state, v_zip, v_phone, v_since, v_credit, v_credit_lim, v_discount, v_balance
    FROM customer WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_c;
  UPDATE customer SET c_balance = c_balance - p_amount, c_ytd_payment = c_ytd_payment + p_amount, c_payment_cnt = c_payment_cnt + 1
    WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_c;
  IF v_credit = 'BC' THEN
    UPDATE customer SET c_data = LEFT(CONCAT(v_c, ' ', p_cd, ' ', p_cw, ' ', p_d, ' ', p_w, ' ', p_amount, ' | ', c_data), 500)
      WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_c;
  END IF;
  -- H_DATA: W_NAME and D_NAME separated by four spaces (2.5.2.2).
  INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    VALUES (v_c, p_cd, p_cw, p_d, p_w, CURRENT_TIMESTAMP, p_amount, CONCAT(v_w_name, '    ', v_d_name));
END`;

const ORDER_STATUS = `
CREATE OR REPLACE PROCEDURE tpcc_order_status(p_w INT, p_d INT, p_c INT, p_last VARCHAR(16))
BEGIN
  DECLARE v_c INT DEFAULT p_c;
  DECLARE v_count, v_offset, v_order, v_carrier, v_lines INT;
  DECLARE v_balance DECIMAL(12,2);
  DECLARE v_first, v_c_last VARCHAR(16);
  DECLARE v_middle CHAR(2);
  DECLARE v_entry DATETIME(6);
  IF p_last IS NOT NULL THEN ${BY_LAST_NAME('p_w', 'p_d')}
  END IF;
  SELECT c_balance, c_first, c_middle, c_last INTO v_balance, v_first, v_middle, v_c_last FROM customer WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = v_c;
  SELECT o_id, o_entry_d, o_carrier_id INTO v_order, v_entry, v_carrier FROM orders WHERE o_w_id = p_w AND o_d_id = p_d AND o_c_id = v_c
    AND o_id = (SELECT MAX(o_id) FROM orders WHERE o_w_id = p_w AND o_d_id = p_d AND o_c_id = v_c);
  -- The order's lines are read whole (in the server: the count stands for the rows a client would fetch).
  IF v_order IS NOT NULL THEN
    SELECT COUNT(CONCAT_WS(',', ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d)) INTO v_lines
      FROM order_line WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id = v_order;
  END IF;
END`;

const DELIVERY = `
CREATE OR REPLACE PROCEDURE tpcc_delivery(p_w INT, p_carrier INT)
BEGIN
  DECLARE v_d INT DEFAULT 0;
  DECLARE v_order, v_customer INT;
  DECLARE v_total DECIMAL(12,2);
  DECLARE v_taken, v_skipped INT DEFAULT 0;
  districts: WHILE v_d < 10 DO
    SET v_d = v_d + 1;
    -- The oldest new-order, locked as the client-side Delivery locks it; skipped only when there is none.
    SET v_taken = 0;
    oldest: LOOP
      SET v_order = NULL;
      SELECT no_o_id INTO v_order FROM new_order WHERE no_w_id = p_w AND no_d_id = v_d ORDER BY no_o_id LIMIT 1 FOR UPDATE;
      IF v_order IS NULL THEN LEAVE oldest; END IF;
      DELETE FROM new_order WHERE no_w_id = p_w AND no_d_id = v_d AND no_o_id = v_order;
      SET v_taken = ROW_COUNT();
      IF v_taken > 0 THEN LEAVE oldest; END IF;
    END LOOP;
    IF v_taken = 0 THEN
      SET v_skipped = v_skipped + 1;
      ITERATE districts;
    END IF;
    SELECT o_c_id INTO v_customer FROM orders WHERE o_w_id = p_w AND o_d_id = v_d AND o_id = v_order;
    UPDATE orders SET o_carrier_id = p_carrier WHERE o_w_id = p_w AND o_d_id = v_d AND o_id = v_order;
    UPDATE order_line SET ol_delivery_d = CURRENT_TIMESTAMP WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_order;
    SELECT SUM(ol_amount) INTO v_total FROM order_line WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_order;
    UPDATE customer SET c_balance = c_balance + COALESCE(v_total, 0), c_delivery_cnt = c_delivery_cnt + 1
      WHERE c_w_id = p_w AND c_d_id = v_d AND c_id = v_customer;
  END WHILE;
  -- The districts skipped, for the result (clause 2.7.4.2): one row the terminal reads.
  SELECT v_skipped;
END`;

const STOCK_LEVEL = `
CREATE OR REPLACE PROCEDURE tpcc_stock_level(p_w INT, p_d INT, p_threshold INT)
BEGIN
  DECLARE v_next, v_low INT;
  SELECT d_next_o_id INTO v_next FROM district WHERE d_w_id = p_w AND d_id = p_d;
  SELECT COUNT(DISTINCT s_i_id) INTO v_low FROM order_line JOIN stock ON s_w_id = ol_w_id AND s_i_id = ol_i_id
    WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id < v_next AND ol_o_id >= v_next - 20 AND s_quantity < p_threshold;
END`;

const DROP: readonly string[] = ['tpcc_new_order', 'tpcc_payment', 'tpcc_order_status', 'tpcc_delivery', 'tpcc_stock_level'].map(
  (name) => `DROP PROCEDURE IF EXISTS ${name}`,
);

/** How the terminal calls each, `?` for the inputs it draws. */
const CALLS = {
  newOrder: 'CALL tpcc_new_order(?, ?, ?, ?, ?, ?, ?, ?, ?)',
  payment: 'CALL tpcc_payment(?, ?, ?, ?, ?, ?, ?)',
  orderStatus: 'CALL tpcc_order_status(?, ?, ?, ?)',
  delivery: 'CALL tpcc_delivery(?, ?)',
  stockLevel: 'CALL tpcc_stock_level(?, ?, ?)',
};

/** New-Order's lines arrive as comma-separated lists, after their count. */
export const MARIADB_PROCEDURES: TpccProcedures = {
  create: [NEW_ORDER, PAYMENT, ORDER_STATUS, DELIVERY, STOCK_LEVEL],
  drop: DROP,
  calls: CALLS,
  lineList: (values) => values.join(','),
  sendsLineCount: true,
};
