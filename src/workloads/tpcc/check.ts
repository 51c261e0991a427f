import type { CheckOutcome, DataContext } from '../workload.js';
import { checkAllConditions } from './check-all.js';
import { checkCondition, n, type Condition } from './condition.js';

/**
 * Consistency conditions 1-4 of clause 3.3.2, which must hold after the load and after every run;
 * with --check-all also 5-10 and 12 (check-all.ts). Condition 11 holds only before the first
 * Delivery and is not checked.
 */
export const CONDITIONS_1_TO_4: readonly Condition[] = [
  {
    name: 'condition 1: W_YTD = sum(D_YTD)',
    subject: 'warehouses',
    sql: `SELECT w_id, w_ytd, d.sum_ytd FROM warehouse
          JOIN (SELECT d_w_id, SUM(d_ytd) AS sum_ytd FROM district GROUP BY d_w_id) d ON d.d_w_id = w_id
          WHERE w_ytd <> d.sum_ytd ORDER BY w_id`,
    describe: (r, money) => `warehouse ${n(r[0])}: w_ytd ${money(r[1])}, sum(d_ytd) ${money(r[2])}`,
  },
  {
    // A district whose new-orders were all delivered has no max(NO_O_ID): only the orders part applies.
    name: 'condition 2: D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)',
    subject: 'districts',
    sql: `SELECT d_w_id, d_id, d_next_o_id, o.max_o, nw.max_no FROM district
          LEFT JOIN (SELECT o_w_id, o_d_id, MAX(o_id) AS max_o FROM orders GROUP BY o_w_id, o_d_id) o ON o.o_w_id = d_w_id AND o.o_d_id = d_id
          LEFT JOIN (SELECT no_w_id, no_d_id, MAX(no_o_id) AS max_no FROM new_order GROUP BY no_w_id, no_d_id) nw ON nw.no_w_id = d_w_id AND nw.no_d_id = d_id
          WHERE o.max_o IS NULL OR d_next_o_id - 1 <> o.max_o OR nw.max_no <> o.max_o
          ORDER BY d_w_id, d_id`,
    describe: (r) => `warehouse ${n(r[0])} district ${n(r[1])}: d_next_o_id ${n(r[2])}, max(o_id) ${n(r[3])}, max(no_o_id) ${n(r[4])}`,
  },
  {
    name: 'condition 3: max(NO_O_ID) - min(NO_O_ID) + 1 = count(NEW_ORDER)',
    subject: 'districts',
    sql: `SELECT no_w_id, no_d_id, MIN(no_o_id), MAX(no_o_id), COUNT(*) FROM new_order GROUP BY no_w_id, no_d_id
          HAVING MAX(no_o_id) - MIN(no_o_id) + 1 <> COUNT(*) ORDER BY no_w_id, no_d_id`,
    describe: (r) => `warehouse ${n(r[0])} district ${n(r[1])}: no_o_id ${n(r[2])}..${n(r[3])}, ${n(r[4])} rows`,
  },
  {
    name: 'condition 4: sum(O_OL_CNT) = count(ORDER_LINE)',
    subject: 'districts',
    sql: `SELECT o.o_w_id, o.o_d_id, o.sum_ol_cnt, ol.line_count FROM (SELECT o_w_id, o_d_id, SUM(o_ol_cnt) AS sum_ol_cnt FROM orders GROUP BY o_w_id, o_d_id) o
          LEFT JOIN (SELECT ol_w_id, ol_d_id, COUNT(*) AS line_count FROM order_line GROUP BY ol_w_id, ol_d_id) ol ON ol.ol_w_id = o.o_w_id AND ol.ol_d_id = o.o_d_id
          WHERE ol.line_count IS NULL OR o.sum_ol_cnt <> ol.line_count ORDER BY o.o_w_id, o.o_d_id`,
    describe: (r) => `warehouse ${n(r[0])} district ${n(r[1])}: sum(o_ol_cnt) ${n(r[2])}, order lines ${n(r[3])}`,
  },
];

export async function checkTpcc(ctx: DataContext): Promise<CheckOutcome[]> {
  const outcomes: CheckOutcome[] = [];
  const [[warehouses]] = (await ctx.conn.query('SELECT COUNT(*) FROM warehouse')) as [[unknown]];
  outcomes.push({ name: 'warehouses', ok: Number(warehouses) === ctx.scale, detail: `${n(warehouses)} rows, expected ${ctx.scale} at scale ${ctx.scale}` });
  for (const condition of CONDITIONS_1_TO_4) outcomes.push(await checkCondition(ctx, condition));
  if (ctx.options['check-all'] === true) outcomes.push(...(await checkAllConditions(ctx)));
  return outcomes;
}

/** Conditions 1-4 that fail, for the load's own check. */
export async function failedChecks(ctx: DataContext): Promise<CheckOutcome[]> {
  return (await checkTpcc({ ...ctx, options: { ...ctx.options, 'check-all': false } })).filter((o) => !o.ok);
}
