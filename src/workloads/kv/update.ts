import type { TransactionType } from '../workload.js';
import { OPERATORS, REGIONS } from './values.js';

/**
 * The study's write test (docs/experiments.md section 3):
 * `UPDATE numbers SET region = <random>, operator = <random> WHERE number = <random>`, one
 * statement on its own (autocommit); the key uniform over 1..N, the values over the ranges the
 * load draws them from (values.ts).
 */
export const update: TransactionType = {
  name: 'update',
  weight: 1,
  async prepare(conn, terminal) {
    const statement = await conn.prepare('UPDATE numbers SET region = ?, operator = ? WHERE number = ?');
    const { random, scale } = terminal;
    return async () => {
      await statement.run([random.int(1, REGIONS), random.int(1, OPERATORS), random.int(1, scale)]);
    };
  },
};
