import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ServerTarget } from '../../src/config/target.js';
import type { Connection } from '../../src/drivers/driver.js';
import { DbError } from '../../src/drivers/errors.js';
import type { FirebirdConnection } from '../../src/drivers/firebird/connection.js';
import type { RunResult } from '../../src/result/result.js';
import { runCli } from '../helpers/cli.js';
import { connectFresh } from '../helpers/databases.js';

/** MON$TRANSACTIONS of the statement's own transaction: read-only flag and isolation (2: read committed, record version). */
async function ownTransaction(conn: Connection): Promise<{ readOnly: number; isolation: number }> {
  const rows = await conn.query('SELECT mon$read_only, mon$isolation_mode FROM mon$transactions WHERE mon$transaction_id = CURRENT_TRANSACTION');
  const [[readOnly, isolation]] = rows as [[number, number]];
  return { readOnly: Number(readOnly), isolation: Number(isolation) };
}

test('firebird: a connection told its transactions are read-only starts them read-only, read committed, and refuses writes in them', async (t) => {
  const fresh = await connectFresh(t, 'firebird');
  if (!fresh) return;
  const { conn } = fresh;
  await conn.query('CREATE TABLE ro_probe (id INTEGER)');
  assert.deepEqual(await ownTransaction(conn), { readOnly: 0, isolation: 2 }, 'undeclared: read-write');

  conn.declareReadOnly!(true);
  assert.deepEqual(await ownTransaction(conn), { readOnly: 1, isolation: 2 }, 'a statement in its own transaction');
  await conn.begin();
  assert.deepEqual(await ownTransaction(conn), { readOnly: 1, isolation: 2 }, 'begin()');
  await conn.commit();
  await assert.rejects(conn.query('INSERT INTO ro_probe (id) VALUES (1)'), (error: unknown) => {
    assert.ok(error instanceof DbError);
    assert.equal(error.errorClass, 'bad_request');
    assert.match(error.message, /read\s*-\s*only transaction/i);
    return true;
  });

  conn.declareReadOnly!(false);
  assert.deepEqual(await ownTransaction(conn), { readOnly: 0, isolation: 2 });
  await conn.query('INSERT INTO ro_probe (id) VALUES (1)');
  assert.deepEqual(await conn.query('SELECT COUNT(*) FROM ro_probe'), [[1]]);
});

/**
 * An autocommit read-only SELECT goes to the server in one write (the transaction's start, the
 * execute, the first fetch, the close and the commit), whether its rows are kept (all()) or only
 * counted (run(): pgbench's select-only, which stores nothing); run() took three round trips.
 */
test('firebird: an autocommit read-only SELECT is one write to the server, by all() and by run()', async (t) => {
  const fresh = await connectFresh(t, 'firebird');
  if (!fresh) return;
  const conn = fresh.conn as FirebirdConnection;
  await conn.query('CREATE TABLE rt_probe (id INTEGER NOT NULL PRIMARY KEY, v INTEGER)');
  await conn.query('INSERT INTO rt_probe (id, v) VALUES (1, 10)');
  conn.declareReadOnly(true);
  const select = await conn.prepare('SELECT v FROM rt_probe WHERE id = ?');
  assert.deepEqual(await select.all([1]), [[10]], 'the first learns the handle the server hands out again');
  const before = conn.wire.writes;
  for (let i = 0; i < 5; i++) {
    assert.deepEqual(await select.all([1]), [[10]]);
    assert.equal(await select.run([1]), 1, 'run() counts the rows of a SELECT');
    assert.equal(await select.run([2]), 0);
  }
  assert.equal(conn.wire.writes - before, 15, 'one write per statement');
  assert.equal(conn.mispredicted, 0);
  assert.deepEqual(await ownTransaction(conn), { readOnly: 1, isolation: 2 }, 'and they were read-only transactions');
});

/**
 * The one-write read's ways to fail: a parameter that does not fit (nothing but the start is
 * sent; the started transaction is rolled back), an error while fetching (after the execute
 * succeeded), and a start that returns another handle than predicted (the rest failed on a handle
 * of no transaction: the read runs again the slow way). Each answers correctly and leaves no
 * transaction open.
 */
test('firebird: the one-write read reports a bad parameter and a fetch error, runs a mispredicted read again, and leaves nothing open', async (t) => {
  const fresh = await connectFresh(t, 'firebird');
  if (!fresh) return;
  const conn = fresh.conn as FirebirdConnection;
  await conn.query('CREATE TABLE rt_fail (id INTEGER NOT NULL PRIMARY KEY, v INTEGER)');
  await conn.query('INSERT INTO rt_fail (id, v) VALUES (1, 0)');
  await conn.query('INSERT INTO rt_fail (id, v) VALUES (2, 5)');
  conn.declareReadOnly(true);
  const select = await conn.prepare('SELECT 10 / v FROM rt_fail WHERE id = ?');
  assert.deepEqual(await select.all([2]), [[2]]);

  await assert.rejects(select.all(['not a number']), (error: unknown) => error instanceof DbError && error.errorClass === 'bad_request');
  await assert.rejects(select.run([1]), (error: unknown) => error instanceof DbError && /divi/i.test(error.message));
  assert.equal(await select.run([2]), 1, 'the connection goes on after both');

  conn.wire.lastTransaction += 1000;
  assert.deepEqual(await select.all([2]), [[2]], 'a mispredicted handle: read again');
  assert.equal(conn.mispredicted, 1);
  assert.deepEqual(await select.all([2]), [[2]]);
  assert.equal(conn.mispredicted, 1, 'the next prediction holds');

  conn.declareReadOnly(false);
  const [[open]] = (await conn.query('SELECT COUNT(*) FROM mon$transactions WHERE mon$attachment_id = CURRENT_CONNECTION')) as [[number]];
  assert.equal(Number(open), 1, 'only the transaction of the count itself is open');
});

/**
 * Every read-write transaction start writes the header page (the next transaction number), and
 * with forced writes on that is a page write of its own; a read-only read-committed transaction
 * starts pre-committed and writes nothing. So a select-only run writes far fewer pages than it
 * starts transactions: without read-only transactions it wrote one page per transaction.
 */
test('firebird: a select-only run starts read-only transactions and writes no page per transaction', async (t) => {
  const fresh = await connectFresh(t, 'firebird');
  if (!fresh) return;
  const { db, conn } = fresh;
  const cwd = mkdtempSync(path.join(tmpdir(), 'headroom-fb-ro-'));
  t.after(() => rmSync(cwd, { recursive: true, force: true }));
  const env = { ...process.env, DATABASE_URL: undefined, ISC_PASSWORD: (db.target as ServerTarget).password ?? '' };
  const cli = (args: string[]) => runCli(args, { cwd, env });

  const [[forcedWrites]] = (await conn.query('SELECT mon$forced_writes FROM mon$database')) as [[number]];
  assert.equal(Number(forcedWrites), 1, 'a new database has forced writes on: the case where each header page write is synchronous');
  const init = await cli(['init', 'tpcb', '--db', db.url, '-s', '1']);
  assert.equal(init.code, 0, init.stderr);

  // This open attachment keeps the database open, so MON$IO_STATS counts from before the run to after it.
  const counters = async (): Promise<{ started: number; pageWrites: number }> => {
    const rows = await conn.query('SELECT d.mon$next_transaction, i.mon$page_writes FROM mon$database d JOIN mon$io_stats i ON i.mon$stat_id = d.mon$stat_id');
    const [[next, writes]] = rows as [[number, number]];
    return { started: Number(next), pageWrites: Number(writes) };
  };
  const before = await counters();
  const run = await cli(['run', 'tpcb', '-b', 'select-only', '--db', db.url, '-c', '2', '-t', '300', '-P', '0', '--out', 'r.json']);
  assert.equal(run.code, 0, run.stderr);
  const after = await counters();
  const result = JSON.parse(readFileSync(path.join(cwd, 'r.json'), 'utf8')) as RunResult;
  assert.equal(result.summary.transactions, 600);
  const started = after.started - before.started;
  const pageWrites = after.pageWrites - before.pageWrites;
  assert.ok(started >= 600, `each of the 600 transactions started one on the server (${started})`);
  assert.ok(pageWrites < started / 10, `${pageWrites} page writes for ${started} transactions started: read-only transactions write no header page`);

  // The result's own before/after of the same counters lies within the test's, which starts earlier and ends later.
  const activity = result.server?.activity;
  assert.ok(activity, 'the result carries the server activity');
  assert.ok(activity['transactions_started']! >= 600 && activity['transactions_started']! <= started, JSON.stringify(activity));
  assert.ok(activity['page_writes']! >= 0 && activity['page_writes']! <= pageWrites, JSON.stringify(activity));
  assert.ok(activity['page_fetches']! >= 600, 'each select fetches pages from the cache');
  assert.match(
    run.stdout,
    /^server activity \(this database, every session, over the run\): transactions started [\d,]+ \(1\.\d per transaction\), page reads /m,
  );
});
