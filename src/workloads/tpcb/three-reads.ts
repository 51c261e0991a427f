import type { TransactionType } from '../workload.js';
import { ROWS_PER_SCALE } from './schema.js';

/**
 * The read-offloading study's TPC-B variant (experiments.md section 1): three account reads
 * (aid, aid+1, aid+2) beside the balance updates. The reads come first, before the transaction's
 * first write, so that --route split can send them to replicas; the branch update stays so that
 * tpcb's check (every balance sum equal) holds after the run.
 */
export const threeReads: TransactionType = {
  name: 'three-reads',
  weight: 1,
  async prepare(conn, terminal) {
    const selectAccount = await conn.prepare('SELECT abalance FROM pgbench_accounts WHERE aid = ?');
    const updateAccount = await conn.prepare('UPDATE pgbench_accounts SET abalance = abalance + ? WHERE aid = ?');
    const updateTeller = await conn.prepare('UPDATE pgbench_tellers SET tbalance = tbalance + ? WHERE tid = ?');
    const updateBranch = await conn.prepare('UPDATE pgbench_branches SET bbalance = bbalance + ? WHERE bid = ?');
    const insertHistory = await conn.prepare('INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)');
    const { random, scale } = terminal;
    const accounts = ROWS_PER_SCALE.accounts * scale;
    return async () => {
      const aid = random.int(1, accounts);
      const bid = random.int(1, ROWS_PER_SCALE.branches * scale);
      const tid = random.int(1, ROWS_PER_SCALE.tellers * scale);
      const delta = random.int(-5000, 5000);
      await conn.begin();
      // aid+1 and aid+2 wrap to the first accounts past the last one.
      for (let k = 0; k < 3; k++) await selectAccount.all([((aid - 1 + k) % accounts) + 1]);
      await updateAccount.run([delta, aid]);
      await updateTeller.run([delta, tid]);
      await updateBranch.run([delta, bid]);
      await insertHistory.run([tid, bid, aid, delta]);
      await conn.commit();
    };
  },
};
