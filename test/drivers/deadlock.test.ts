import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DbError } from '../../src/drivers/errors.js';
import { connectFresh } from '../helpers/databases.js';

/**
 * --failures-detailed splits retryable failures into deadlocks and serialization failures: the
 * driver marks a real deadlock (two transactions locking two rows in opposite orders) as one;
 * test/cli/pgbench-output.test.ts sees serialization failures counted as such.
 */
for (const dbms of ['postgres', 'mariadb'] as const) {
  test(`${dbms}: a deadlock is a retryable error marked deadlock`, async (t) => {
    const fresh = await connectFresh(t, dbms);
    if (!fresh) return;
    const { driver, conn } = fresh;
    await conn.query('CREATE TABLE dl (id int PRIMARY KEY, n int)');
    await conn.query('INSERT INTO dl VALUES (1, 0), (2, 0)');
    const other = await driver.connect();
    t.after(() => other.close());
    await conn.begin();
    await other.begin();
    await conn.query('UPDATE dl SET n = n + 1 WHERE id = 1');
    await other.query('UPDATE dl SET n = n + 1 WHERE id = 2');
    // Each now waits for the other: the server picks one of them as the deadlock victim.
    const outcomes = await Promise.allSettled([conn.query('UPDATE dl SET n = n + 1 WHERE id = 2'), other.query('UPDATE dl SET n = n + 1 WHERE id = 1')]);
    const errors = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected').map((o) => o.reason as unknown);
    assert.equal(errors.length, 1, `one victim: ${errors.map(String).join('; ')}`);
    const error = errors[0];
    assert.ok(error instanceof DbError);
    assert.equal(error.errorClass, 'retryable', error.message);
    assert.equal(error.deadlock, true, `${error.code}: ${error.message}`);
    await conn.rollback().catch(() => {});
    await other.rollback().catch(() => {});
  });
}
