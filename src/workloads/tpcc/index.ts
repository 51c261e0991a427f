import { MAX_INT4 } from '../../config/limits.js';
import { UserError } from '../../errors.js';
import type { TransactionType, Workload } from '../workload.js';
import { checkTpcc } from './check.js';
import { delivery } from './delivery.js';
import { loadTpcc } from './load.js';
import { tpccMetrics } from './metrics.js';
import { newOrder } from './new-order.js';
import { orderStatus } from './order-status.js';
import { payment } from './payment.js';
import { CONSTANTS_TABLE, TABLES, dropStatements } from './schema.js';
import { stockLevel } from './stock-level.js';
import { clearLoadMark, recordedLoad } from '../load-marker.js';
import { PROCEDURE_MIX } from './procedures/calls.js';
import { TPCC_OPTIONS } from './options.js';
import { createProcedures, dropProcedureStatements, refuseProcedures, wantsProcedures } from './procedures/index.js';

/** Clause 5.2.5.7: minimum keying time and mean think time per transaction type, in seconds. */
const PAUSES: Record<string, { keying: number; think: number }> = {
  'new-order': { keying: 18, think: 12 },
  payment: { keying: 3, think: 12 },
  'order-status': { keying: 2, think: 10 },
  delivery: { keying: 2, think: 5 },
  'stock-level': { keying: 2, think: 5 },
};

/** The mix of clause 5.2.3 as go-tpc and HammerDB run it: 45/43/4/4/4, dealt from a deck. */
const MIX: readonly TransactionType[] = [newOrder, payment, orderStatus, delivery, stockLevel];

const recordedTpccLoad = recordedLoad('tpcc', [...TABLES, CONSTANTS_TABLE], async (ctx) => {
  const phases = await loadTpcc(ctx);
  if (wantsProcedures(ctx.options)) {
    const started = performance.now();
    await createProcedures(ctx);
    phases.push({ name: 'procedures', rows: 0, seconds: (performance.now() - started) / 1000 });
  }
  return phases;
});

export const tpcc: Workload = {
  name: 'tpcc',
  tables: [...TABLES, CONSTANTS_TABLE],
  // The TPC's fair-use rules: a workload derived from TPC-C says so, and its figures are not tpmC.
  description:
    'derived from TPC-C, not an audited TPC-C (its NOPM and TPM are not comparable with published tpmC): nine tables, New-Order/Payment/Order-Status/Delivery/Stock-Level 45/43/4/4/4, NOPM and TPM, consistency conditions checked after each run',
  scaleHelp: 'warehouses (W): 100,000 items, and per warehouse 100,000 stock rows, 10 districts, 30,000 customers, orders and history rows',
  defaultScale: 1,
  parseScale(text) {
    const value = Number(text);
    if (text.trim() === '' || !Number.isInteger(value)) throw new UserError(`--scale needs a whole number of warehouses, not "${text}"`, 'see: headroom list');
    if (value < 1) throw new UserError(`--scale must be at least 1 warehouse, not ${text}`, 'see: headroom list');
    if (value > MAX_INT4) throw new UserError(`--scale must be at most ${MAX_INT4} warehouses (w_id is an int), not ${text}`, 'see: headroom list');
    return value;
  },
  options: TPCC_OPTIONS,
  checkAfterRun: true,

  async detectScale(ctx) {
    for (const table of TABLES) if (!(await ctx.driver.tableExists(ctx.conn, table))) return undefined;
    if (!(await ctx.driver.tableExists(ctx.conn, 'tpcc_constants'))) return undefined;
    const [[warehouses]] = (await ctx.conn.query('SELECT COUNT(*) FROM warehouse')) as [[unknown]];
    return Number(warehouses);
  },

  // PostgreSQL 15, one warehouse with the items: 117.8 MB.
  estimatedBytes: (warehouses) => 10_000_000 + warehouses * 108_000_000,

  async load(ctx) {
    // Before the load's record: a refused option leaves the data there as it was.
    refuseProcedures(ctx.dbms, ctx.options);
    return recordedTpccLoad(ctx);
  },
  checkOptions: refuseProcedures,
  async readyForRun(ctx) {
    // Data loaded without --procedures gets them now; CREATE OR REPLACE also brings older ones up to date.
    if (wantsProcedures(ctx.options)) await createProcedures(ctx);
  },
  check: checkTpcc,
  metrics: tpccMetrics,

  async drop(ctx) {
    for (const sql of [...dropProcedureStatements(ctx.dbms), ...dropStatements(ctx.dbms)]) await ctx.conn.query(sql);
    await clearLoadMark(ctx, 'tpcc');
  },

  transactions(options) {
    const mix = wantsProcedures(options) ? PROCEDURE_MIX : MIX;
    if (options['keying-thinking'] !== true) return [...mix];
    return mix.map((type) => ({ ...type, pauses: { keyingMs: PAUSES[type.name]!.keying * 1000, thinkMeanMs: PAUSES[type.name]!.think * 1000 } }));
  },
};
