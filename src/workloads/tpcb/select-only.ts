import type { TransactionType } from '../workload.js';
import { ROWS_PER_SCALE } from './schema.js';

/** pgbench's built-in "select-only" script: one point select on a random account, no transaction block. */
export const selectOnly: TransactionType = {
  name: 'select-only',
  weight: 1,
  readOnly: true,
  async prepare(conn, terminal) {
    const selectAccount = await conn.prepare('SELECT abalance FROM pgbench_accounts WHERE aid = ?');
    const { random, scale } = terminal;
    return async () => {
      await selectAccount.all([random.int(1, ROWS_PER_SCALE.accounts * scale)]);
    };
  },
};
