import type { TransactionType } from '../workload.js';
import { ROWS_PER_SCALE } from './schema.js';

/**
 * pgbench's built-in "simple-update" script (-N): tpcb-like without the teller and branch
 * updates, so clients do not queue on the few branch rows.
 */
export const simpleUpdate: TransactionType = {
  name: 'simple-update',
  weight: 1,
  async prepare(conn, terminal) {
    const updateAccount = await conn.prepare('UPDATE pgbench_accounts SET abalance = abalance + ? WHERE aid = ?');
    const selectAccount = await conn.prepare('SELECT abalance FROM pgbench_accounts WHERE aid = ?');
    const insertHistory = await conn.prepare('INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)');
    const { random, scale } = terminal;
    return async () => {
      // Drawn in pgbench's order, as tpcb-like draws them.
      const aid = random.int(1, ROWS_PER_SCALE.accounts * scale);
      const bid = random.int(1, ROWS_PER_SCALE.branches * scale);
      const tid = random.int(1, ROWS_PER_SCALE.tellers * scale);
      const delta = random.int(-5000, 5000);
      await conn.begin();
      await updateAccount.run([delta, aid]);
      await selectAccount.all([aid]);
      await insertHistory.run([tid, bid, aid, delta]);
      await conn.commit();
    };
  },
};
