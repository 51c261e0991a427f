import { test } from 'node:test';
import assert from 'node:assert/strict';
import { observePostgres } from '../../src/drivers/postgres/observe.js';
import { observeMariadb } from '../../src/drivers/mariadb/observe.js';
import { connectFresh } from '../helpers/databases.js';

// What a session sleeping in SQL shows as in each DBMS's waits.
const SLEEP = {
  postgres: { sql: 'SELECT pg_sleep(2)', event: 'Timeout:PgSleep' },
  mariadb: { sql: 'SELECT SLEEP(2)', event: 'User sleep' },
} as const;

for (const dbms of ['postgres', 'mariadb'] as const) {
  test(`${dbms}: waits count the sessions of the measured database only, not another database's on the same server`, async (t) => {
    const measured = await connectFresh(t, dbms);
    const other = await connectFresh(t, dbms);
    if (!measured || !other) return;
    const observation = dbms === 'postgres' ? observePostgres(measured.conn) : observeMariadb(measured.conn);
    const mine = await measured.driver.connect();
    t.after(() => mine.close());
    // One sleeping session in the measured database, one in the other.
    const sleeps = [mine.query(SLEEP[dbms].sql), other.conn.query(SLEEP[dbms].sql)];
    await new Promise((resolve) => setTimeout(resolve, 500));
    const counts = await observation.waits();
    await Promise.all(sleeps);
    assert.equal(counts?.[SLEEP[dbms].event], 1, `the measured database's sleeping session only: ${JSON.stringify(counts)}`);
  });
}
