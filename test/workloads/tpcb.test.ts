import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runEngine } from '../../src/engine/engine.js';
import { engineConfig } from '../helpers/engine-config.js';
import { tpcb } from '../../src/workloads/tpcb/index.js';
import type { DataContext } from '../../src/workloads/workload.js';
import { DBMS_UNDER_TEST, connectFresh } from '../helpers/databases.js';

for (const dbms of DBMS_UNDER_TEST) {
  test(`${dbms}: tpcb loads pgbench's rows, runs, keeps its balances, and a corrupted teller fails the check`, async (t) => {
    const fresh = await connectFresh(t, dbms);
    if (!fresh) return;
    const { db, driver, conn } = fresh;
    const options = { builtin: ['tpcb-like@3', 'select-only@1'] };
    const ctx: DataContext = { conn, driver, dbms, scale: 1, options, log: () => {} };
    assert.equal(await tpcb.detectScale(ctx), undefined);
    const phases = await tpcb.load(ctx);
    assert.deepEqual(
      phases.filter((p) => p.rows > 0).map((p) => [p.name, p.rows]),
      [
        ['branches', 1],
        ['tellers', 10],
        ['accounts', 100_000],
      ],
    );
    assert.equal(await tpcb.detectScale(ctx), 1);
    assert.ok((await tpcb.check(ctx)).every((o) => o.ok));

    const config = engineConfig(db.target, 'tpcb', { options, clients: 3, jobs: dbms === 'mariadb' ? 1 : 2, transactionsPerClient: 80, maxTries: 3, seed: 11 });
    const outcome = await runEngine(config, new AbortController().signal, () => {});
    assert.equal(outcome.status, 'completed');
    const done = outcome.totals.types.reduce((n, type) => n + type.count + type.failed, 0);
    assert.equal(done, 3 * 80, 'every client ran exactly -t transactions');
    assert.deepEqual(
      outcome.totals.terminals.map((t) => [t.terminal, t.transactions + t.failed]),
      [
        [0, 80],
        [1, 80],
        [2, 80],
      ],
      'each terminal counts its own transactions, across jobs',
    );
    const byName = Object.fromEntries(outcome.totals.types.map((type) => [type.name, type.count]));
    // The deck holds the 3:1 mix exactly per deck of 4; 80 per client is 20 whole decks.
    assert.equal(byName['tpcb-like']! + outcome.totals.types[0]!.failed, 180);
    assert.equal(byName['select-only'], 60);
    assert.equal(
      outcome.totals.all.totalCount,
      outcome.totals.types.reduce((n, type) => n + type.count, 0),
    );
    assert.ok(outcome.clientCpu.userUs > 0);

    const [[history]] = (await conn.query('SELECT COUNT(*) FROM pgbench_history')) as [[unknown]];
    assert.equal(Number(history), byName['tpcb-like'], 'one history row per committed tpcb-like transaction');
    const outcomes = await tpcb.check(ctx);
    assert.ok(
      outcomes.every((o) => o.ok),
      JSON.stringify(outcomes),
    );

    await conn.query('UPDATE pgbench_tellers SET tbalance = tbalance + 1 WHERE tid = 1');
    const broken = await tpcb.check(ctx);
    assert.equal(broken.find((o) => o.name === 'balances agree')?.ok, false);
    assert.match(broken.find((o) => o.name === 'balances agree')!.detail, /sum\(tbalance\) = -?\d+/);

    await tpcb.drop(ctx);
    assert.equal(await tpcb.detectScale(ctx), undefined);
  });
}

test('sqlite: --rate runs an open loop near the asked rate and reports the schedule lag', async (t) => {
  const fresh = await connectFresh(t, 'sqlite');
  if (!fresh) return;
  const { db, driver, conn } = fresh;
  const options = { builtin: ['select-only'] };
  await tpcb.load({ conn, driver, dbms: 'sqlite', scale: 1, options, log: () => {} });
  const outcome = await runEngine(
    engineConfig(db.target, 'tpcb', { options, clients: 2, durationSeconds: 2, rate: 200, warmupSeconds: 1, seed: 5 }),
    new AbortController().signal,
    () => {},
  );
  const tps = outcome.totals.all.totalCount / outcome.measuredSeconds;
  assert.ok(tps > 140 && tps < 260, `asked 200 tps, measured ${tps.toFixed(1)}`);
  assert.ok(outcome.series.some((p) => p.phase === 'warmup') && outcome.series.some((p) => p.phase === 'measure'));
  assert.ok(outcome.series.every((p) => p.lagMs !== undefined));
  assert.ok(outcome.measuredSeconds >= 1.9 && outcome.measuredSeconds < 2.5, `measured ${outcome.measuredSeconds} s`);
});
