import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { resolveTarget } from '../../src/config/target.js';
import type { Connection } from '../../src/drivers/driver.js';
import { RoutedConnector } from '../../src/engine/routing/routed-connector.js';
import type { RunResult } from '../../src/result/result.js';
import { runCli } from '../helpers/cli.js';
import { startCluster, type Cluster, type ClusterKind } from '../helpers/clusters.js';

for (const kind of ['postgres', 'galera'] as const satisfies readonly ClusterKind[]) {
  describe(`routing over a ${kind} cluster`, () => {
    let cluster: Cluster | undefined;
    let skipped: string | undefined;
    const folder = mkdtempSync(path.join(tmpdir(), 'headroom-routing-'));
    before(() => {
      cluster = startCluster(kind, { skip: (m: string) => (skipped = m) } as never);
    });
    after(() => {
      cluster?.down();
      rmSync(folder, { recursive: true, force: true });
    });

    /**
     * Outside a transaction a split read may go to a replica that has not replayed the last
     * autocommitted write yet (the table may not even be there): wait until both replicas have it.
     */
    async function waitUntil(check: () => Promise<boolean>): Promise<void> {
      let seen = 0;
      for (let i = 0; i < 100 && seen < 2; i++) {
        seen = (await check().catch(() => false)) ? seen + 1 : 0;
        await new Promise((r) => setTimeout(r, 100));
      }
    }

    test('split: a read before the first write goes to a replica; a read after it goes to the primary and sees the write', async (t) => {
      if (!cluster) return t.skip(skipped);
      const router = await RoutedConnector.open(resolveTarget(cluster.url), { route: 'split', balance: 'round-robin' });
      router.stats.measuring = true;
      const conn: Connection = await router.connect(0);
      try {
        await conn.query('DROP TABLE IF EXISTS routing_probe');
        await conn.query('CREATE TABLE routing_probe (id INTEGER PRIMARY KEY, v INTEGER)');
        await conn.query('INSERT INTO routing_probe (id, v) VALUES (1, 10)');
        const select = await conn.prepare('SELECT v FROM routing_probe WHERE id = ?');
        const update = await conn.prepare('UPDATE routing_probe SET v = ? WHERE id = ?');
        await waitUntil(async () => (await select.all([1])).length === 1);
        const before = router.stats.totals();
        await conn.begin();
        const early = await select.all([1]);
        await update.run([20, 1]);
        const late = await select.all([1]);
        await conn.commit();
        const after = router.stats.totals();
        const grew = (node: number): number => after[node]!.reads - before[node]!.reads;
        assert.deepEqual(
          early.map((r) => Number(r[0])),
          [10],
        );
        // Its own write is visible: the read went to the primary inside the same transaction.
        assert.deepEqual(
          late.map((r) => Number(r[0])),
          [20],
        );
        assert.equal(grew(0), 1, 'the read after the write ran on the primary');
        assert.equal(grew(1) + grew(2), 1, 'the read before the write ran on a replica');
        assert.equal(after[0]!.transactions - before[0]!.transactions, 1);
        await conn.query('DROP TABLE routing_probe');
      } finally {
        await conn.close();
        await router.close();
      }
    });

    test('read-only-transactions: a declared read-only transaction runs whole on one replica, any other on the primary', async (t) => {
      if (!cluster) return t.skip(skipped);
      const router = await RoutedConnector.open(resolveTarget(cluster.url), { route: 'read-only-transactions', balance: 'round-robin' });
      router.stats.measuring = true;
      const conn = await router.connect(0);
      try {
        const select = await conn.prepare('SELECT 1');
        conn.declareReadOnly!(true);
        await conn.begin();
        await select.all();
        await select.all();
        await conn.commit();
        conn.declareReadOnly!(false);
        await conn.begin();
        await select.all();
        await conn.commit();
        const totals = router.stats.totals();
        const onReplicas = totals.slice(1).filter((n) => n.statements > 0);
        assert.equal(onReplicas.length, 1, 'one replica ran the whole read-only transaction');
        assert.deepEqual([onReplicas[0]!.statements, onReplicas[0]!.transactions], [2, 1]);
        assert.deepEqual([totals[0]!.statements, totals[0]!.transactions], [1, 1]);
      } finally {
        await conn.close();
        await router.close();
      }
    });

    test('headroom run with --route split and read-only-transactions: reads spread over the replicas, lag sampled, the check holds on the primary', async (t) => {
      if (!cluster) return t.skip(skipped);
      const init = await runCli(['init', 'tpcb', '--db', cluster.url, '-s', '1']);
      assert.equal(init.code, 0, init.stderr);
      const out = path.join(folder, `${kind}-split.json`);
      const run = await runCli(['run', 'tpcb', '-b', 'three-reads', '--db', cluster.url, '--route', 'split', '-c', '2', '-T', '2', '-P', '0', '--out', out]);
      assert.equal(run.code, 0, run.stderr + run.stdout);
      const result = JSON.parse(readFileSync(out, 'utf8')) as RunResult;
      const r = result.replication!;
      assert.equal(r.route, 'split');
      assert.deepEqual(
        r.nodes.map((n) => n.node),
        ['primary', 'replica1', 'replica2'],
      );
      const [primary, ...replicas] = r.nodes;
      // three-reads reads three accounts before its first write: all of them on replicas.
      assert.equal(primary!.reads, 0);
      for (const replica of replicas) assert.ok(replica.reads > 0, `${replica.node} took reads`);
      // Three per transaction, give or take the transactions in flight when measuring began and ended.
      const reads = replicas.reduce((n, x) => n + x.reads, 0);
      assert.ok(Math.abs(reads - 3 * result.summary.transactions) <= 3 * 2 * 2, `${reads} replica reads for ${result.summary.transactions} transactions`);
      assert.ok(r.lag && r.lag.series.length >= 1, 'lag was sampled');
      assert.ok(r.check && r.check.length > 0 && r.check.every((c) => c.ok), JSON.stringify(r.check));
      assert.match(run.stdout, /routing: split/);
      assert.match(run.stdout, /^lag replica2 \(\d+ samples\): /m);

      const readOnly = await runCli([
        'run',
        'tpcb',
        '-b',
        'select-only',
        '-b',
        'tpcb-like',
        '--db',
        cluster.url,
        '--route',
        'read-only-transactions',
        '--balance',
        'least-busy',
        '-c',
        '2',
        '-T',
        '2',
        '-P',
        '0',
        '--out',
        out,
      ]);
      assert.equal(readOnly.code, 0, readOnly.stderr);
      const nodes = (JSON.parse(readFileSync(out, 'utf8')) as RunResult).replication!.nodes;
      // select-only declares itself read-only; tpcb-like's read follows its first write.
      assert.ok(Math.abs(nodes[0]!.reads - nodes[0]!.transactions) <= 2 * 2, 'the primary read once per tpcb-like transaction');
      assert.ok(nodes[1]!.reads + nodes[2]!.reads > 0);
    });
  });
}
