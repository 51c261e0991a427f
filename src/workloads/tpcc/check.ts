import type { CheckOutcome, DataContext } from '../workload.js';
import { checkAllConditions } from './check-all.js';
import { checkCondition, n, type Condition } from './condition.js';

/**
 * Consistency conditions 1-4 of clause 3.3.2, which must hold after the load and after every run;
 * with --check-all also 5-12 (check-all.ts; condition 11 in a form that holds after Deliveries too).
 */
/*
 * Per-district figures as subqueries on each table's key prefix: every DBMS reads each district's
 * rows once through the primary key (Firebird would evaluate a joined GROUP BY again per row).
 */
const MAX_ORDER = 'SELECT MAX(o_id) FROM orders WHERE o_w_id = d_w_id AND o_d_id = d_id';
const MAX_NEW_ORDER = 'SELECT MAX(no_o_id) FROM new_order WHERE no_w_id = d_w_id AND no_d_id = d_id';
const ORDER_LINES_ORDERED = 'SELECT SUM(o_ol_cnt) FROM orders WHERE o_w_id = d_w_id AND o_d_id = d_id';
const ORDER_LINES = 'SELECT COUNT(*) FROM order_line WHERE ol_w_id = d_w_id AND ol_d_id = d_id';

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
    sql: `SELECT d_w_id, d_id, d_next_o_id, (${MAX_ORDER}), (${MAX_NEW_ORDER}) FROM district
          WHERE (${MAX_ORDER}) IS NULL OR d_next_o_id - 1 <> (${MAX_ORDER}) OR (${MAX_NEW_ORDER}) <> (${MAX_ORDER})
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
    sql: `SELECT d_w_id, d_id, (${ORDER_LINES_ORDERED}), (${ORDER_LINES}) FROM district
          WHERE (${ORDER_LINES}) <> COALESCE((${ORDER_LINES_ORDERED}), -1) ORDER BY d_w_id, d_id`,
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
