import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'node:test';
import type { DbmsName } from '../../src/drivers/driver.js';
import { createDriver } from '../helpers/drivers.js';
import { runCli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';

/** A module whose tables are named as two of tpcc's. */
const SHOP = `import { defineWorkload } from 'headroom-oltp';

export default defineWorkload({
  name: 'shop',
  description: 'orders and their lines',
  tables: {
    orders: { create: 'CREATE TABLE orders (id INTEGER PRIMARY KEY, total BIGINT NOT NULL)' },
    order_line: { create: 'CREATE TABLE order_line (order_id INTEGER NOT NULL, line INTEGER NOT NULL, PRIMARY KEY (order_id, line))' },
  },
  async load(ctx) {
    await ctx.bulkInsert('orders', ['id', 'total'], [[1, 10]], 1);
  },
  transactions: {
    browse: {
      weight: 1,
      async prepare(conn) {
        const read = await conn.prepare('SELECT total FROM orders WHERE id = ?');
        return async () => void (await read.all([1]));
      },
    },
  },
});
`;

const ON: readonly DbmsName[] = ['mariadb', 'postgres'];

for (const dbms of ON) {
  test(`${dbms}: init of a workload whose tables are another's names them and needs --force (exit 2 without)`, async (t) => {
    const db = await freshDatabase(t, dbms);
    if (!db) return;
    const folder = mkdtempSync(path.join(tmpdir(), 'headroom-init-replaces-'));
    t.after(async () => {
      rmSync(folder, { recursive: true, force: true });
      await db.dispose();
    });
    writeFileSync(path.join(folder, 'shop.ts'), SHOP);
    const shop = path.join(folder, 'shop.ts');
    const cli = (args: string[]) => runCli([...args, '--db', db.url], { cwd: folder });
    const orders = async (): Promise<number> => {
      const driver = createDriver(db.target);
      const conn = await driver.connect();
      try {
        return Number((await conn.query('SELECT COUNT(*) FROM orders'))[0]![0]);
      } finally {
        await conn.close();
      }
    };
    const refusal = (verb: string, owner: string) =>
      new RegExp(
        `^headroom: ${verb} would drop tables orders, order_line of ${owner} \\(loaded at \\d{4}-[^)]+\\) in \\S+ \\(add --force to drop them and load \\S+, or use another database\\)$`,
      );

    assert.equal((await cli(['init', 'tpcc', '-s', '1'])).code, 0);
    const tpccOrders = await orders();
    assert.ok(tpccOrders > 1000, `tpcc loaded its orders: ${tpccOrders}`);

    const refused = await cli(['init', './shop.ts']);
    assert.equal(refused.code, 2, refused.stderr);
    const lines = refused.stderr.trim().split('\n');
    assert.match(lines[lines.length - 1]!, refusal('init shop', 'tpcc'));
    assert.equal(lines.filter((l) => l.startsWith('headroom:')).length, 1, refused.stderr);
    assert.equal(await orders(), tpccOrders, "tpcc's orders are still there");

    // run loads only over nothing of another's: it points at init --force.
    const run = await cli(['run', './shop.ts', '-T', '1', '-P', '0', '-o', 'r.json']);
    assert.equal(run.code, 2, run.stderr);
    assert.match(
      run.stderr,
      new RegExp(
        `^headroom: run would load shop over tables orders, order_line of tpcc .*\\(load it over them with headroom init ${shop} --force, or use another database\\)$`,
        'm',
      ),
    );
    assert.equal(await orders(), tpccOrders);

    const forced = await cli(['init', './shop.ts', '--force']);
    assert.equal(forced.code, 0, forced.stderr);
    assert.match(forced.stderr, /^replacing tables orders, order_line of tpcc \(loaded at [^)]+\) in \S+ with shop's \(--force\)$/m);
    assert.equal(await orders(), 1);

    // And the reverse: tpcc over the module's tables.
    const back = await cli(['init', 'tpcc', '-s', '1']);
    assert.equal(back.code, 2, back.stderr);
    assert.match(back.stderr.trim().split('\n').pop()!, refusal('init tpcc', 'shop'));
    assert.equal(await orders(), 1);
  });
}

test("sqlite: where no claim says whose a table is, the tables present do: a built-in workload's by its table names, else none of headroom's", async (t) => {
  const db = await freshDatabase(t, 'sqlite');
  if (!db) return;
  const folder = mkdtempSync(path.join(tmpdir(), 'headroom-init-replaces-'));
  t.after(async () => {
    rmSync(folder, { recursive: true, force: true });
    await db.dispose();
  });
  writeFileSync(path.join(folder, 'shop.ts'), SHOP);
  const cli = (args: string[]) => runCli([...args, '--db', db.url], { cwd: folder });
  const sql = async (text: string) => {
    const conn = await createDriver(db.target).connect();
    try {
      await conn.query(text);
    } finally {
      await conn.close();
    }
  };

  // A table of the database's own, which no headroom load made.
  await sql('CREATE TABLE orders (id INTEGER PRIMARY KEY)');
  const own = await cli(['init', './shop.ts']);
  assert.equal(own.code, 2, own.stderr);
  assert.match(own.stderr, /^headroom: init shop would drop table orders that no headroom load made in \S+ \(add --force/m);
  await sql('DROP TABLE orders');

  // tpcc loaded before claims were kept: its table names say whose the tables are.
  assert.equal((await cli(['init', 'tpcc', '-s', '1'])).code, 0);
  await sql('DROP TABLE headroom_load_tables');
  const unclaimed = await cli(['init', './shop.ts']);
  assert.equal(unclaimed.code, 2, unclaimed.stderr);
  assert.match(unclaimed.stderr, /^headroom: init shop would drop tables orders, order_line of tpcc in \S+ \(add --force/m);
  // tpcc's own tables without claims are its own: init tpcc goes on without --force.
  assert.equal((await cli(['init', 'tpcc', '-s', '1'])).code, 0);
});
