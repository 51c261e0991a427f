import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runEngine } from '../../src/engine/engine.js';
import { engineConfig } from '../helpers/engine-config.js';
import { kv } from '../../src/workloads/kv/index.js';
import { loadKv, tableState } from '../../src/workloads/kv/load.js';
import { readLoadMark } from '../../src/workloads/load-marker.js';
import { loadedOperator, loadedRegion } from '../../src/workloads/kv/values.js';
import { UserError } from '../../src/errors.js';
import type { Connection } from '../../src/drivers/driver.js';
import type { DataContext, LoadProgress } from '../../src/workloads/workload.js';
import { DBMS_UNDER_TEST, connectFresh } from '../helpers/databases.js';
import { runCli } from '../helpers/cli.js';

test('kv: -s takes a row count with k, M, G/B suffixes or an exponent, up to a billion', () => {
  const cases: [string, number][] = [
    ['10M', 10_000_000],
    ['1000000000', 1e9],
    ['1e9', 1e9],
    ['2.5k', 2500],
    ['1G', 1e9],
    ['1b', 1e9],
    ['25000', 25_000],
    ['10_000', 10_000],
  ];
  for (const [text, rows] of cases) assert.equal(kv.parseScale(text), rows, text);
  for (const bad of ['0', '-5', '1.5', '2e9', '1001M', 'ten', '', '10X', '0.0001k']) {
    assert.throws(
      () => kv.parseScale(bad),
      (error: unknown) => error instanceof UserError && /row count from 1 to 1,000,000,000/.test(error.message),
      bad,
    );
  }
});

/** Rows whose operator and region are not what the load wrote (values.ts). */
async function changedRows(conn: Connection): Promise<number> {
  const rows = await conn.query('SELECT number, operator, region FROM numbers');
  return rows.filter(([n, op, region]) => Number(op) !== loadedOperator(Number(n)) || Number(region) !== loadedRegion(Number(n))).length;
}

for (const dbms of DBMS_UNDER_TEST) {
  test(`${dbms}: kv loads 10,000 rows, extends to 25,000, resumes an interrupted load, and its read and update tests run`, async (t) => {
    const fresh = await connectFresh(t, dbms);
    if (!fresh) return;
    const { db, driver, conn } = fresh;
    const progress: LoadProgress[] = [];
    const ctx = (scale: number, onProgress?: (p: LoadProgress) => void): DataContext => ({
      conn,
      driver,
      dbms,
      scale,
      options: { test: 'read' },
      log: () => {},
      progress: onProgress ?? ((p) => progress.push(p)),
    });
    assert.equal(await kv.detectScale(ctx(1)), undefined);

    const first = await kv.load(ctx(10_000));
    assert.deepEqual(first.find((p) => p.name === 'numbers')?.rows, 10_000);
    assert.ok(first.some((p) => p.name === 'create table'));
    assert.equal(await kv.detectScale(ctx(1)), 10_000);
    assert.ok((await kv.check(ctx(10_000))).every((o) => o.ok));
    assert.equal(await changedRows(conn), 0, 'every row holds the values the generator gives its number');
    const last = progress.at(-1)!;
    assert.deepEqual([last.phase, last.rowsDone, last.rowsTotal], ['numbers', 10_000, 10_000]);
    assert.ok(last.bytesDone > 10_000 * 6, `bytes ${last.bytesDone}`);

    const extended = await kv.load(ctx(25_000));
    assert.equal(extended.find((p) => p.name === 'numbers')?.rows, 15_000, 'only the missing rows are appended');
    assert.ok(!extended.some((p) => p.name === 'create table' || p.name === 'drop table'));
    assert.equal(await kv.detectScale(ctx(1)), 25_000);
    const checked = await kv.check(ctx(25_000));
    assert.ok(
      checked.every((o) => o.ok),
      JSON.stringify(checked),
    );
    assert.equal((await kv.check(ctx(25_001))).find((o) => o.name === 'rows')?.ok, false, 'the check fails on a wrong row count');

    await assert.rejects(kv.load(ctx(20_000)), /numbers holds 25,000 rows, more than the 20,000 asked/, 'a larger table is not shrunk without --force');
    assert.equal(await kv.detectScale(ctx(1)), 25_000, 'the refused load left the table as it was');
    assert.equal((await readLoadMark(ctx(1), 'kv'))?.completed !== undefined, true, 'and its record finished');
    const smaller = await kv.load({ ...ctx(20_000), replaceLarger: true });
    assert.ok(
      smaller.some((p) => p.name === 'drop table'),
      'with --force a table larger than asked is loaded anew',
    );
    assert.equal(await kv.detectScale(ctx(1)), 20_000);

    // Interrupted after four committed chunks of 1,000: the fifth fails while being sent.
    await kv.drop(ctx(1));
    const interrupted = loadKv(
      ctx(10_000, (p) => {
        if (p.rowsDone >= 5_000) throw new Error('interrupted');
      }),
      1_000,
    );
    await assert.rejects(interrupted, /interrupted/);
    const state = await tableState(ctx(1));
    assert.equal(state.rows, 4_000, 'the finished chunks stay');
    assert.equal(await kv.detectScale(ctx(1)), dbms === 'postgres' || dbms === 'firebird' ? undefined : 4_000, 'a load without its key yet is unfinished');
    const resumed = await kv.load(ctx(10_000));
    assert.equal(resumed.find((p) => p.name === 'numbers')?.rows, 6_000, 'the load continues from max(number) + 1');
    assert.ok((await kv.check(ctx(10_000))).every((o) => o.ok));

    const options = { test: 'read' };
    const read = await runEngine(
      engineConfig(db.target, 'kv', { options, scale: 10_000, clients: 2, transactionsPerClient: 300, seed: 3 }),
      new AbortController().signal,
      () => {},
    );
    assert.equal(read.status, 'completed');
    assert.deepEqual(
      read.totals.types.map((x) => [x.name, x.count, x.failed]),
      [['read', 600, 0]],
    );
    assert.equal(await changedRows(conn), 0, 'the read test changes nothing');

    const update = await runEngine(
      engineConfig(db.target, 'kv', {
        options: { test: 'update' },
        scale: 10_000,
        clients: 2,
        transactionsPerClient: 300,
        seed: 4,
        maxTries: dbms === 'firebird' ? 5 : 1,
      }),
      new AbortController().signal,
      () => {},
    );
    assert.equal(update.status, 'completed');
    assert.deepEqual(
      update.totals.types.map((x) => [x.name, x.count, x.failed]),
      [['update', 600, 0]],
    );
    // 600 updates of random keys among 10,000 touch about 580 rows; 1 in 10,000 draws the loaded values again.
    const changed = await changedRows(conn);
    assert.ok(changed > 450 && changed <= 600, `${changed} rows changed`);
    assert.ok(
      (await kv.check(ctx(10_000))).every((o) => o.ok),
      'updates keep the values in range',
    );

    await conn.query('UPDATE numbers SET operator = 0 WHERE number = 1');
    assert.equal((await kv.check(ctx(10_000))).find((o) => o.name === 'values in range')?.ok, false, 'the check sees a value out of range');

    await kv.drop(ctx(1));
    assert.equal(await kv.detectScale(ctx(1)), undefined);
  });
}

test('postgres: init kv stopped by Ctrl-C keeps its committed chunks, and the same init continues from max(number) + 1', async (t) => {
  const fresh = await connectFresh(t, 'postgres');
  if (!fresh) return;
  const { db, conn } = fresh;
  let pid = 0;
  const first = runCli(['init', 'kv', '--db', db.url, '-s', '2500000'], { whenStderr: [/loading kv/, (p) => (pid = p)] });
  // Ctrl-C once the first million rows are committed (COPY shows nothing before its commit).
  const committed = async (): Promise<number> => {
    if (!(await fresh.driver.tableExists(conn, 'numbers'))) return 0;
    const [[rows]] = (await conn.query('SELECT count(*) FROM numbers')) as [[unknown]];
    return Number(rows);
  };
  for (let waited = 0; ; waited += 50) {
    if (pid !== 0 && (await committed()) >= 1_000_000) break;
    assert.ok(waited < 60_000, 'the first chunk never arrived');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  process.kill(pid, 'SIGINT');
  const stopped = await first;
  assert.equal(stopped.code, 130, `the load was interrupted: ${stopped.stderr}`);
  const [[count, max]] = (await conn.query('SELECT count(*), max(number) FROM numbers')) as [[unknown, unknown]];
  const kept = Number(count);
  assert.ok(kept % 1_000_000 === 0 && kept >= 1_000_000 && kept < 2_500_000 && Number(max) === kept, `kept ${kept} rows up to ${max}`);
  // What it reported is what is there, and stays so: nothing committed after the report.
  assert.match(stopped.stderr, /interrupted: stopping the load/);
  assert.match(stopped.stderr, new RegExp(`numbers keeps ${kept.toLocaleString('en-US')} rows`));
  assert.match(stopped.stderr, /headroom: kv in .* is incomplete: run and check refuse it \(finish it with headroom init kv -s 2500000/);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const [[later]] = (await conn.query('SELECT count(*) FROM numbers')) as [[unknown]];
  assert.equal(Number(later), kept, 'no chunk committed after the process said it stopped');
  for (const verb of [
    ['run', 'kv', '-T', '1'],
    ['check', 'kv'],
  ]) {
    const refused = await runCli([...verb, '--db', db.url]);
    assert.equal(refused.code, 2, `${verb[0]} refuses the unfinished load: ${refused.stderr}`);
    assert.match(
      refused.stderr,
      /^headroom: the kv data in .* is incomplete: its load at scale 2500000, started .*, did not finish \(finish it with headroom init kv -s 2500000/,
    );
  }

  const resumed = await runCli(['init', 'kv', '--db', db.url, '-s', '2500000']);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stderr, new RegExp(`appending ${(kept + 1).toLocaleString('en-US')}\\.\\.2,500,000`));
  assert.match(resumed.stderr, new RegExp(`numbers: ${(2_500_000 - kept).toLocaleString('en-US')} rows in`));
  const check = await runCli(['check', 'kv', '--db', db.url]);
  assert.equal(check.code, 0, check.stdout);
  assert.match(check.stdout, /rows: 2500000 rows, numbers 1\.\.2500000/);
});
