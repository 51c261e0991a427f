import type { TransactionType } from '../workload.js';
import { ROWS_PER_SCALE } from './schema.js';

/**
 * pgbench's built-in "tpcb-like" script (TPC-B 1.2 profile): one account, teller and branch
 * drawn independently, a delta in [-5000, 5000], three balance updates, a read and a history row.
 */
export const tpcbLike: TransactionType = {
  name: 'tpcb-like',
  weight: 1,
  async prepare(conn, terminal) {
    const updateAccount = await conn.prepare('UPDATE pgbench_accounts SET abalance = abalance + ? WHERE aid = ?');
    const selectAccount = await conn.prepare('SELECT abalance FROM pgbench_accounts WHERE aid = ?');
    const updateTeller = await conn.prepare('UPDATE pgbench_tellers SET tbalance = tbalance + ? WHERE tid = ?');
    const updateBranch = await conn.prepare('UPDATE pgbench_branches SET bbalance = bbalance + ? WHERE bid = ?');
    const insertHistory = await conn.prepare('INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)');
    const { random, scale } = terminal;
    return async () => {
      const aid = random.int(1, ROWS_PER_SCALE.accounts * scale);
      const bid = random.int(1, ROWS_PER_SCALE.branches * scale);
      const tid = random.int(1, ROWS_PER_SCALE.tellers * scale);
      const delta = random.int(-5000, 5000);
      await conn.begin();
      await updateAccount.run([delta, aid]);
      await selectAccount.all([aid]);
      await updateTeller.run([delta, tid]);
      await updateBranch.run([delta, bid]);
      await insertHistory.run([tid, bid, aid, delta]);
      await conn.commit();
    };
  },
};
