import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DbmsName } from '../../src/drivers/driver.js';
import { tpcbDialect } from '../../src/workloads/tpcb/dialect.js';
import { BIGINT_SCALE } from '../../src/workloads/tpcb/schema.js';
import { DBMS_UNDER_TEST, connectFresh } from '../helpers/databases.js';
import { runCli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';
import { createDriver } from '../helpers/drivers.js';

const createTableStatements = (dbms: DbmsName, scale: number): string[] => tpcbDialect(dbms).createTables(scale);
const dropStatements = (dbms: DbmsName): string[] => tpcbDialect(dbms).dropTables;

/** The first scale whose last aid (100,000 x scale) no longer fits a 32-bit integer. */
const OVER_32_BITS = 21_475;
const BIG_AID = 100_000 * OVER_32_BITS;

test("tpcb DDL: aid is bigint from pgbench's threshold on, on every DBMS; int below it", () => {
  assert.equal(BIGINT_SCALE, 20_000);
  for (const dbms of ['postgres', 'mariadb', 'firebird'] as const) {
    const below = createTableStatements(dbms, BIGINT_SCALE - 1).join('\n');
    const at = createTableStatements(dbms, BIGINT_SCALE).join('\n');
    assert.doesNotMatch(below, /bigint/i, dbms);
    assert.match(at, /pgbench_accounts \(aid bigint NOT NULL/i, dbms);
    assert.match(at, /pgbench_history \(tid \w+, bid \w+, aid bigint,/i, dbms);
  }
  // SQLite's INTEGER is 64 bits at every scale.
  assert.match(createTableStatements('sqlite', OVER_32_BITS).join('\n'), /aid INTEGER PRIMARY KEY/);
});

for (const dbms of DBMS_UNDER_TEST) {
  test(`tpcb on ${dbms}: the tables of a scale above 21,474 take an aid beyond 2^31 - 1`, async (t) => {
    const fresh = await connectFresh(t, dbms);
    if (!fresh) return;
    const { conn } = fresh;
    for (const sql of [...dropStatements(dbms), ...createTableStatements(dbms, OVER_32_BITS)]) await conn.query(sql);
    await conn.query('INSERT INTO pgbench_accounts (aid, bid, abalance, filler) VALUES (?, ?, ?, ?)', [BIG_AID, OVER_32_BITS, 0, '']);
    await conn.query('INSERT INTO pgbench_history (tid, bid, aid, delta) VALUES (?, ?, ?, ?)', [1, 1, BIG_AID, 5]);
    await conn.query('UPDATE pgbench_accounts SET abalance = abalance + ? WHERE aid = ?', [5, BIG_AID]);
    const [[aid, balance]] = (await conn.query('SELECT aid, abalance FROM pgbench_accounts WHERE aid = ?', [BIG_AID])) as [[unknown, unknown]];
    assert.equal(String(aid), String(BIG_AID));
    assert.equal(Number(balance), 5);
    for (const sql of dropStatements(dbms)) await conn.query(sql);
  });
}

test('init tpcb --pgbench -I dt on MariaDB creates bigint aid at scale 20,000 (tables only, no data)', async (t) => {
  const db = await freshDatabase(t, 'mariadb');
  if (!db) return;
  t.after(() => db.dispose());
  const run = await runCli(['init', 'tpcb', '--pgbench', '-I', 'dt', '-s', String(BIGINT_SCALE), '--db', db.url]);
  assert.equal(run.code, 0, run.stderr);
  const driver = createDriver(db.target);
  const conn = await driver.connect();
  try {
    const rows = await conn.query(
      "SELECT table_name, data_type FROM information_schema.columns WHERE table_schema = DATABASE() AND column_name = 'aid' ORDER BY table_name",
    );
    assert.deepEqual(
      rows.map((r) => r.map(String)),
      [
        ['pgbench_accounts', 'bigint'],
        ['pgbench_history', 'bigint'],
      ],
    );
  } finally {
    await conn.close();
    await driver.close();
  }
});
