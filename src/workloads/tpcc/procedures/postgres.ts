import type { TpccProcedures } from './procedures.js';
import { UNUSED_ITEM_SIGNAL } from './signal.js';

/**
 * The five transactions as PL/pgSQL functions, each doing what its client-side file does, in the
 * same order, on the same rows. The terminal draws the inputs and calls one function per
 * transaction inside its own BEGIN/COMMIT; New-Order's lines arrive as arrays in lock order.
 * Errors keep their SQLSTATE through the function (40001, 40P01 stay retryable).
 */

const STOCK_DIST = `CASE p_d ${Array.from({ length: 10 }, (_, i) => `WHEN ${i + 1} THEN s_dist_${String(i + 1).padStart(2, '0')}`).join(' ')} END`;

/** 2.5.2.2 / 2.6.2.2: the customer at position ceil(n/2) of those with the last name, by C_FIRST. */
const BY_LAST_NAME = (w: string, d: string): string => `
    SELECT COUNT(*) INTO v_count FROM customer WHERE c_w_id = ${w} AND c_d_id = ${d} AND c_last = p_last;
    IF v_count = 0 THEN RAISE EXCEPTION 'no customer named % in warehouse % district %: the data is not a TPC-C load', p_last, ${w}, ${d}; END IF;
    SELECT c_id INTO v_c FROM customer WHERE c_w_id = ${w} AND c_d_id = ${d} AND c_last = p_last ORDER BY c_first OFFSET (v_count + 1) / 2 - 1 LIMIT 1;`;

const NEW_ORDER = `
CREATE OR REPLACE FUNCTION tpcc_new_order(p_w int, p_d int, p_c int, p_all_local int, p_numbers int[], p_items int[], p_supply int[], p_quantities int[])
RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  v_tax numeric(4,4); v_order int; v_price numeric(5,2); v_dist char(24); v_customer record; v_item record; i int;
BEGIN
  SELECT w_tax INTO v_tax FROM warehouse WHERE w_id = p_w;
  UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = p_w AND d_id = p_d;
  SELECT d_tax, d_next_o_id - 1 INTO v_tax, v_order FROM district WHERE d_w_id = p_w AND d_id = p_d;
  SELECT c_discount, c_last, c_credit INTO v_customer FROM customer WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = p_c;
  INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
    VALUES (v_order, p_d, p_w, p_c, CURRENT_TIMESTAMP, NULL, cardinality(p_items), p_all_local);
  INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_order, p_d, p_w);
  FOR i IN 1 .. cardinality(p_items) LOOP
    SELECT i_price, i_name, i_data INTO v_item FROM item WHERE i_id = p_items[i];
    -- 2.4.2.3: the unused item id ends the order; the client rolls everything back.
    IF NOT FOUND THEN RAISE EXCEPTION '${UNUSED_ITEM_SIGNAL} %', p_items[i]; END IF;
    UPDATE stock SET s_quantity = CASE WHEN s_quantity >= p_quantities[i] + 10 THEN s_quantity - p_quantities[i] ELSE s_quantity - p_quantities[i] + 91 END,
      s_ytd = s_ytd + p_quantities[i], s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + CASE WHEN p_supply[i] = p_w THEN 0 ELSE 1 END
      WHERE s_w_id = p_supply[i] AND s_i_id = p_items[i];
    SELECT ${STOCK_DIST} INTO v_dist FROM stock WHERE s_w_id = p_supply[i] AND s_i_id = p_items[i];
    INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
      VALUES (v_order, p_d, p_w, p_numbers[i], p_items[i], p_supply[i], NULL, p_quantities[i], p_quantities[i] * v_item.i_price, v_dist);
  END LOOP;
  RETURN v_order;
END $$`;

const PAYMENT = `
CREATE OR REPLACE FUNCTION tpcc_payment(p_w int, p_d int, p_cw int, p_cd int, p_c int, p_last varchar, p_amount numeric(12,2))
RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  v_warehouse record; v_district record; v_customer record; v_c int := p_c; v_count int;
BEGIN
  UPDATE warehouse SET w_ytd = w_ytd + p_amount WHERE w_id = p_w;
  SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip INTO v_warehouse FROM warehouse WHERE w_id = p_w;
  UPDATE district SET d_ytd = d_ytd + p_amount WHERE d_w_id = p_w AND d_id = p_d;
  SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip INTO v_district FROM district WHERE d_w_id = p_w AND d_id = p_d;
  IF p_last IS NOT NULL THEN ${BY_LAST_NAME('p_cw', 'p_cd')}
  END IF;
  SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance
    INTO v_customer FROM customer WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_c;
  UPDATE customer SET c_balance = c_balance - p_amount, c_ytd_payment = c_ytd_payment + p_amount, c_payment_cnt = c_payment_cnt + 1
    WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_c;
  IF v_customer.c_credit = 'BC' THEN
    UPDATE customer SET c_data = substr(v_c || ' ' || p_cd || ' ' || p_cw || ' ' || p_d || ' ' || p_w || ' ' || p_amount || ' | ' || c_data, 1, 500)
      WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_c;
  END IF;
  -- H_DATA: W_NAME and D_NAME separated by four spaces (2.5.2.2).
  INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    VALUES (v_c, p_cd, p_cw, p_d, p_w, CURRENT_TIMESTAMP, p_amount, v_warehouse.w_name || '    ' || v_district.d_name);
  RETURN v_c;
END $$`;

const ORDER_STATUS = `
CREATE OR REPLACE FUNCTION tpcc_order_status(p_w int, p_d int, p_c int, p_last varchar)
RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  v_customer record; v_order record; v_line record; v_c int := p_c; v_count int; v_lines int := 0;
BEGIN
  IF p_last IS NOT NULL THEN ${BY_LAST_NAME('p_w', 'p_d')}
  END IF;
  SELECT c_balance, c_first, c_middle, c_last INTO v_customer FROM customer WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = v_c;
  SELECT o_id, o_entry_d, o_carrier_id INTO v_order FROM orders WHERE o_w_id = p_w AND o_d_id = p_d AND o_c_id = v_c
    AND o_id = (SELECT MAX(o_id) FROM orders WHERE o_w_id = p_w AND o_d_id = p_d AND o_c_id = v_c);
  IF FOUND THEN
    FOR v_line IN SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id = v_order.o_id LOOP
      v_lines := v_lines + 1;
    END LOOP;
  END IF;
  RETURN v_lines;
END $$`;

const DELIVERY = `
CREATE OR REPLACE FUNCTION tpcc_delivery(p_w int, p_carrier int)
RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  v_d int; v_order int; v_customer int; v_total numeric(12,2); v_taken int; v_skipped int := 0;
BEGIN
  FOR v_d IN 1 .. 10 LOOP
    -- The oldest new-order, locked as the client-side Delivery locks it; skipped only when there is none.
    v_taken := 0;
    LOOP
      SELECT no_o_id INTO v_order FROM new_order WHERE no_w_id = p_w AND no_d_id = v_d ORDER BY no_o_id LIMIT 1 FOR UPDATE;
      EXIT WHEN NOT FOUND;
      DELETE FROM new_order WHERE no_w_id = p_w AND no_d_id = v_d AND no_o_id = v_order;
      GET DIAGNOSTICS v_taken = ROW_COUNT;
      EXIT WHEN v_taken > 0;
    END LOOP;
    IF v_taken = 0 THEN
      v_skipped := v_skipped + 1;
      CONTINUE;
    END IF;
    SELECT o_c_id INTO v_customer FROM orders WHERE o_w_id = p_w AND o_d_id = v_d AND o_id = v_order;
    UPDATE orders SET o_carrier_id = p_carrier WHERE o_w_id = p_w AND o_d_id = v_d AND o_id = v_order;
    UPDATE order_line SET ol_delivery_d = CURRENT_TIMESTAMP WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_order;
    SELECT SUM(ol_amount) INTO v_total FROM order_line WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_order;
    UPDATE customer SET c_balance = c_balance + COALESCE(v_total, 0), c_delivery_cnt = c_delivery_cnt + 1
      WHERE c_w_id = p_w AND c_d_id = v_d AND c_id = v_customer;
  END LOOP;
  -- The districts skipped, for the result (clause 2.7.4.2).
  RETURN v_skipped;
END $$`;

const STOCK_LEVEL = `
CREATE OR REPLACE FUNCTION tpcc_stock_level(p_w int, p_d int, p_threshold int)
RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  v_next int; v_low int;
BEGIN
  SELECT d_next_o_id INTO v_next FROM district WHERE d_w_id = p_w AND d_id = p_d;
  SELECT COUNT(DISTINCT s_i_id) INTO v_low FROM order_line JOIN stock ON s_w_id = ol_w_id AND s_i_id = ol_i_id
    WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id < v_next AND ol_o_id >= v_next - 20 AND s_quantity < p_threshold;
  RETURN v_low;
END $$`;

const DROP: readonly string[] = [
  'DROP FUNCTION IF EXISTS tpcc_new_order(int, int, int, int, int[], int[], int[], int[])',
  'DROP FUNCTION IF EXISTS tpcc_payment(int, int, int, int, int, varchar, numeric)',
  'DROP FUNCTION IF EXISTS tpcc_order_status(int, int, int, varchar)',
  'DROP FUNCTION IF EXISTS tpcc_delivery(int, int)',
  'DROP FUNCTION IF EXISTS tpcc_stock_level(int, int, int)',
];

/** How the terminal calls each, `?` for the inputs it draws. */
const CALLS = {
  newOrder: 'SELECT tpcc_new_order(?, ?, ?, ?, CAST(? AS int[]), CAST(? AS int[]), CAST(? AS int[]), CAST(? AS int[]))',
  payment: 'SELECT tpcc_payment(?, ?, ?, ?, ?, CAST(? AS varchar), CAST(? AS numeric(12,2)))',
  orderStatus: 'SELECT tpcc_order_status(?, ?, ?, CAST(? AS varchar))',
  delivery: 'SELECT tpcc_delivery(?, ?)',
  stockLevel: 'SELECT tpcc_stock_level(?, ?, ?)',
};

/** New-Order's lines arrive as int[] (array literals). */
export const POSTGRES_PROCEDURES: TpccProcedures = {
  create: [NEW_ORDER, PAYMENT, ORDER_STATUS, DELIVERY, STOCK_LEVEL],
  drop: DROP,
  calls: CALLS,
  lineList: (values) => `{${values.join(',')}}`,
  sendsLineCount: false,
};
