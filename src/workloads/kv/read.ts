import type { TransactionType } from '../workload.js';

/**
 * The study's read test (docs/experiments.md section 3): `SELECT * FROM numbers WHERE number = <random>`,
 * one statement on its own (autocommit), the key uniform over the table's 1..N.
 */
export const read: TransactionType = {
  name: 'read',
  weight: 1,
  async prepare(conn, terminal) {
    const select = await conn.prepare('SELECT * FROM numbers WHERE number = ?');
    const { random, scale } = terminal;
    return async () => {
      await select.all([random.int(1, scale)]);
    };
  },
};
