import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ServerTarget } from '../../src/config/target.js';
import { createDriver } from '../helpers/drivers.js';
import type { Connection } from '../../src/drivers/driver.js';
import { openSession } from '../../src/session/session.js';
import { diskSpaceLines } from '../../src/session/disk-space.js';
import { tpcb } from '../../src/workloads/tpcb/index.js';
import { kv } from '../../src/workloads/kv/index.js';
import { runCli } from '../helpers/cli.js';
import { freshDatabase, type TestDatabase } from '../helpers/databases.js';

async function withConnection<T>(db: TestDatabase, work: (conn: Connection) => Promise<T>): Promise<T> {
  const driver = createDriver(db.target);
  const conn = await driver.connect();
  try {
    return await work(conn);
  } finally {
    await conn.close();
    await driver.close();
  }
}

async function count(db: TestDatabase, sql: string): Promise<number> {
  return withConnection(db, async (conn) => Number((await conn.query(sql))[0]![0]));
}

test('Ctrl-C during init tpcc -s 2: says what it stopped and what to do; run and check refuse the data with exit 2', async (t) => {
  const db = await freshDatabase(t, 'postgres');
  if (!db) return;
  t.after(() => db.dispose());
  // Half a second into the warehouses, which load on two connections at once.
  const init = await runCli(['init', 'tpcc', '-s', '2', '--db', db.url], {
    whenStderr: [/items: /, (pid) => setTimeout(() => process.kill(pid, 'SIGINT'), 500)],
  });
  assert.equal(init.code, 130, init.stderr);
  assert.match(init.stderr, /interrupted: stopping the load/);
  assert.match(init.stderr, /the load of tpcc at scale 2 stopped (after items|in warehouses)/);
  assert.match(
    init.stderr,
    /headroom: tpcc in .* is incomplete: run and check refuse it \(load it again: headroom init tpcc -s 2, or remove it: headroom drop tpcc\)/,
  );
  // new_order is each warehouse's last table (stock its first, which two loaders can finish within the half second): 2 x 9,000 rows complete.
  assert.ok((await count(db, 'SELECT COUNT(*) FROM new_order')) < 18_000, 'the load really stopped part way');

  const run = await runCli(['run', 'tpcc', '-T', '1', '--db', db.url]);
  assert.equal(run.code, 2, run.stderr);
  assert.match(
    run.stderr,
    /^headroom: the tpcc data in .* is incomplete: its load at scale 2, started .*, did not finish \(load it again: headroom init tpcc -s 2/,
  );
  assert.doesNotMatch(run.stdout, /tps/, 'nothing was measured');
  const check = await runCli(['check', 'tpcc', '--db', db.url]);
  assert.equal(check.code, 2, check.stderr);
  assert.match(check.stderr, /is incomplete: its load at scale 2/);

  // drop removes the record with the tables: the next run loads afresh.
  assert.equal((await runCli(['drop', 'tpcc', '--db', db.url])).code, 0);
  assert.equal(await count(db, "SELECT COUNT(*) FROM headroom_load WHERE workload = 'tpcc'"), 0);
});

test('Ctrl-C during init kv on MariaDB: the rows it reports kept are the rows there, and no statement commits after the report', async (t) => {
  const db = await freshDatabase(t, 'mariadb');
  if (!db) return;
  t.after(() => db.dispose());
  // MariaDB finishes a statement whose client has gone: the loader must not leave one in flight.
  const init = await runCli(['init', 'kv', '-s', '3M', '--db', db.url], {
    whenStderr: [/create table: /, (pid) => setTimeout(() => process.kill(pid, 'SIGINT'), 300)],
  });
  assert.equal(init.code, 130, init.stderr);
  const reported = /numbers keeps ([\d,]+) rows/.exec(init.stderr)?.[1];
  assert.ok(reported !== undefined, init.stderr);
  const atExit = await count(db, 'SELECT COUNT(*) FROM numbers');
  assert.equal(atExit.toLocaleString('en-US'), reported);
  assert.ok(atExit < 3_000_000, 'the load stopped part way');
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  assert.equal(await count(db, 'SELECT COUNT(*) FROM numbers'), atExit, 'nothing committed after the process said it stopped');
  const run = await runCli(['run', 'kv', '-T', '1', '--db', db.url]);
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /the kv data in .* is incomplete/);
});

test('Ctrl-C during a SQLite load ends it at once (a table loads in one synchronous call); run refuses what it left', async (t) => {
  const folder = mkdtempSync(path.join(tmpdir(), 'headroom-sqlite-stop-'));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  const url = `sqlite:${path.join(folder, 'stop.db')}`;
  const init = await runCli(['init', 'tpcb', '-s', '50', '--db', url], { whenStderr: [/tellers: /, (pid) => process.kill(pid, 'SIGINT')] });
  assert.ok(init.signal === 'SIGINT' || init.code === 130, `stopped by Ctrl-C, not finished: ${init.code} ${init.signal} ${init.stderr}`);
  const run = await runCli(['run', 'tpcb', '-T', '1', '--db', url]);
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /^headroom: the tpcb data in .* is incomplete: its load at scale 50, started .*, did not finish/);
});

test('a larger dataset is not dropped for a smaller one without --force; a load says what it replaces before it starts', async (t) => {
  const db = await freshDatabase(t, 'postgres');
  if (!db) return;
  t.after(() => db.dispose());
  assert.equal((await runCli(['init', 'kv', '-s', '300k', '--db', db.url])).code, 0);
  // The case: the experiment would have dropped the table to reload 100 k rows.
  const experiment = await runCli(['experiment', 'dead-rows', '-s', '100k', '-c', '1', '-T', '1', '--db', db.url]);
  assert.equal(experiment.code, 2, experiment.stderr);
  assert.match(
    experiment.stderr,
    /headroom: the database holds kv at scale 300000, larger than the 100000 asked: experiment dead-rows would drop it to load the smaller one \(add --force/,
  );
  assert.equal(await count(db, 'SELECT COUNT(*) FROM numbers'), 300_000, 'the table is untouched');
  const init = await runCli(['init', 'kv', '-s', '100k', '--db', db.url]);
  assert.equal(init.code, 2, init.stderr);
  assert.equal(await count(db, 'SELECT COUNT(*) FROM numbers'), 300_000);
  const forced = await runCli(['init', 'kv', '-s', '100k', '--force', '--db', db.url]);
  assert.equal(forced.code, 0, forced.stderr);
  assert.match(forced.stderr, /the database holds kv at scale 300000: init drops it and loads scale 100000 \(--force\)/);
  assert.equal(await count(db, 'SELECT COUNT(*) FROM numbers'), 100_000);

  assert.equal((await runCli(['init', 'tpcb', '-s', '1', '--db', db.url])).code, 0);
  const grow = await runCli(['init', 'tpcb', '-s', '2', '--db', db.url]);
  assert.equal(grow.code, 0, grow.stderr);
  assert.ok(
    grow.stderr.indexOf('the database holds tpcb at scale 1: init drops it and loads scale 2') < grow.stderr.indexOf('drop and create tables'),
    grow.stderr,
  );
  const shrink = await runCli(['init', 'tpcb', '-s', '1', '--db', db.url]);
  assert.equal(shrink.code, 2);
  assert.match(shrink.stderr, /the database holds tpcb at scale 2, larger than the 1 asked/);
  assert.equal(await count(db, 'SELECT COUNT(*) FROM pgbench_branches'), 2);
});

/** Real pgbench against a test database (installed with the PostgreSQL server packages). */
function pgbench(db: TestDatabase, args: readonly string[]): void {
  const target = db.target as ServerTarget;
  const child = spawnSync('pgbench', ['-h', target.host, '-p', String(target.port), '-U', target.user, ...args, target.database], { encoding: 'utf8' });
  assert.equal(child.error, undefined, 'pgbench must be installed (bash scripts/services.sh installs PostgreSQL with it)');
  assert.equal(child.status, 0, child.stderr);
}

test("tpcb made by pgbench -i (no record of headroom's) runs when its rows match the scale, and is refused when they do not", async (t) => {
  const db = await freshDatabase(t, 'postgres');
  if (!db) return;
  t.after(() => db.dispose());
  pgbench(db, ['-i', '-q', '-s', '2']);
  const run = await runCli([
    'run',
    'tpcb',
    '-T',
    '1',
    '-P',
    '0',
    '--live=false',
    '--observe=false',
    '-o',
    path.join(tmpdir(), `headroom-i19-${process.pid}.json`),
    '--db',
    db.url,
  ]);
  assert.equal(run.code, 0, run.stderr);
  rmSync(path.join(tmpdir(), `headroom-i19-${process.pid}.json`), { force: true });
  // pgbench -i stopped after branches and tellers: no accounts.
  pgbench(db, ['-i', '-q', '-s', '2', '-I', 'dtg']);
  await withConnection(db, (conn) => conn.query('DELETE FROM pgbench_accounts WHERE aid > 150000'));
  const partial = await runCli(['run', 'tpcb', '-T', '1', '--db', db.url]);
  assert.equal(partial.code, 2, partial.stderr);
  assert.match(
    partial.stderr,
    /^headroom: the tpcb data in .* is not a complete load: pgbench_branches says scale 2, but there are 20 tellers \(expected 20\) and the highest aid is 150000 \(expected 200000\)/,
  );
  // headroom's own pgbench -i records its load: tables only is not a dataset, with data it is.
  const tables = await runCli(['init', 'tpcb', '--pgbench', '-I', 'dt', '-s', '2', '--db', db.url]);
  assert.equal(tables.code, 0, tables.stderr);
  const empty = await runCli(['check', 'tpcb', '--db', db.url]);
  assert.equal(empty.code, 2, empty.stderr);
  assert.match(empty.stderr, /incomplete: its load at scale 2/);
  assert.equal((await runCli(['init', 'tpcb', '--pgbench', '-s', '1', '--db', db.url])).code, 0);
  const check = await runCli(['check', 'tpcb', '--db', db.url]);
  assert.equal(check.code, 0, check.stderr);
});

test('before a load: its estimated size against the free space where a local server keeps its data', async (t) => {
  const folder = mkdtempSync(path.join(tmpdir(), 'headroom-space-'));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  const session = await openSession({ db: `sqlite:${path.join(folder, 'space.db')}` });
  try {
    assert.deepEqual(await diskSpaceLines(session, tpcb, 1), [], 'a small load that fits says nothing');
    // 10 M scale units of tpcb: about 144 TB, more than any test machine's disk.
    const [huge] = await diskSpaceLines(session, tpcb, 10_000_000);
    assert.match(
      huge ?? '',
      new RegExp(
        `^warning: tpcb at scale 10000000 needs about [\\d.]+ GB \\(as measured on PostgreSQL; other DBMSs differ\\), but ${folder} has [\\d.]+ (GB|MB) free: the load may fill the disk$`,
      ),
    );
    const [large] = await diskSpaceLines(session, kv, 20_000_000);
    assert.match(large ?? '', /^(warning: )?kv at scale 20000000 needs about 1\.2 GB/, 'a load of a gigabyte or more is announced');
  } finally {
    await session.close();
  }
  const cli = await runCli(['init', 'tpcb', '-s', '10000000', '--pgbench', '-I', 'dt', '--db', `sqlite:${path.join(folder, 'cli.db')}`]);
  assert.equal(cli.code, 0, cli.stderr);
  assert.doesNotMatch(cli.stderr, /needs about/, 'creating the tables alone writes no data');
});
