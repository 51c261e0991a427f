import type { Connection } from '../../../drivers/driver.js';
import type { TerminalContext, TransactionRunner, TransactionType } from '../../workload.js';
import { DELIVERIES_WITH_SKIPS, SKIPPED_DISTRICTS, delivery } from '../delivery.js';
import { drawNewOrder, newOrder } from '../new-order.js';
import { drawOrderStatus, orderStatus } from '../order-status.js';
import { drawPayment, payment } from '../payment.js';
import { stockLevel } from '../stock-level.js';
import { terminalHome, type TerminalHome } from '../terminal-home.js';
import { proceduresFor, refuseProcedures } from './index.js';
import type { ProcedureCall, TpccProcedures } from './procedures.js';
import { isUnusedItemSignal } from './signal.js';

/**
 * The mix of --procedures: each transaction one call of its procedure between BEGIN and COMMIT.
 * The terminal draws the inputs with the same functions as the client-side transactions, so the
 * same rules and random streams apply; only where the SQL runs differs.
 */
function viaProcedure(
  base: TransactionType,
  call: ProcedureCall,
  run: (home: TerminalHome, conn: Connection, sql: string, count: TerminalContext['count'], procedures: TpccProcedures) => Promise<TransactionRunner>,
): TransactionType {
  return {
    name: base.name,
    weight: base.weight,
    async prepare(conn: Connection, terminal: TerminalContext) {
      refuseProcedures(terminal.dbms, terminal.options);
      const procedures = proceduresFor(terminal.dbms);
      return run(await terminalHome(conn, terminal), conn, procedures.calls[call], terminal.count, procedures);
    },
  };
}

const newOrderCall = viaProcedure(newOrder, 'newOrder', async (home, conn, sql, _count, { lineList, sendsLineCount }) => {
  const statement = await conn.prepare(sql);
  return async () => {
    const { w, d, c, lines, allLocal } = drawNewOrder(home);
    const inputs = [lines.map((l) => l.number), lines.map((l) => l.item), lines.map((l) => l.supply), lines.map((l) => l.quantity)].map(lineList);
    await conn.begin();
    try {
      await statement.all(sendsLineCount ? [w, d, c, allLocal, lines.length, ...inputs] : [w, d, c, allLocal, ...inputs]);
    } catch (error) {
      if (!isUnusedItemSignal(error)) throw error;
      // 2.4.2.3: the procedure stopped at the unused item; everything it did is undone.
      await conn.rollback();
      return 'rolled-back';
    }
    await conn.commit();
    return undefined;
  };
});

const paymentCall = viaProcedure(payment, 'payment', async (home, conn, sql) => {
  const statement = await conn.prepare(sql);
  return async () => {
    const { w, d, customerWarehouse, customerDistrict, last, id, amount } = drawPayment(home);
    await conn.begin();
    await statement.all([w, d, customerWarehouse, customerDistrict, id, last ?? null, home.decimals.param(amount, 2)]);
    await conn.commit();
    return undefined;
  };
});

const orderStatusCall = viaProcedure(orderStatus, 'orderStatus', async (home, conn, sql) => {
  const statement = await conn.prepare(sql);
  return async () => {
    const { w, d, last, id } = drawOrderStatus(home);
    await conn.begin();
    await statement.all([w, d, id, last ?? null]);
    await conn.commit();
    return undefined;
  };
});

const deliveryCall = viaProcedure(delivery, 'delivery', async (home, conn, sql, count) => {
  const statement = await conn.prepare(sql);
  return async () => {
    // O_CARRIER_ID drawn as the client-side Delivery draws it (2.7.1.2).
    const carrier = home.random.int(1, 10);
    await conn.begin();
    // The procedure returns the districts it skipped (no new-order), counted as delivery.ts counts them.
    const [[skipped]] = (await statement.all([home.warehouse, carrier])) as [[unknown]];
    await conn.commit();
    const districts = Number(skipped);
    if (districts > 0 && count) {
      count(SKIPPED_DISTRICTS, districts);
      count(DELIVERIES_WITH_SKIPS, 1);
    }
    return undefined;
  };
});

const stockLevelCall = viaProcedure(stockLevel, 'stockLevel', async (home, conn, sql) => {
  const statement = await conn.prepare(sql);
  return async () => {
    // The threshold drawn as the client-side Stock-Level draws it (2.8.1.2).
    const threshold = home.random.int(10, 20);
    await conn.begin();
    await statement.all([home.warehouse, home.district, threshold]);
    await conn.commit();
    return undefined;
  };
});

export const PROCEDURE_MIX: readonly TransactionType[] = [newOrderCall, paymentCall, orderStatusCall, deliveryCall, stockLevelCall];
