import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'node:test';
import type { DbmsName } from '../../src/drivers/driver.js';
import type { RunResult } from '../../src/result/result.js';
import { runCli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';

/** A helper in a file of its own, bundled with the module: its line is named as its own file's. */
const LIB = `export function reserve(stock: number): number {
  if (stock < 5) {
    throw new RangeError('not enough stock');
  }
  return stock - 5;
}
`;

/** reserve() throws on every call; duplicate inserts the same key twice (a SQL error naming its statement). */
const SHOP = `import { defineWorkload } from 'headroom-oltp';
import { reserve } from './lib/stock.js';

export default defineWorkload({
  name: 'shop',
  description: 'an order that throws, an insert that collides',
  options: { collide: { type: 'boolean', help: 'run the colliding insert instead', default: false } },
  tables: { item: { create: 'CREATE TABLE item (id INTEGER PRIMARY KEY, stock INTEGER NOT NULL)' } },
  async load(ctx) {
    await ctx.bulkInsert('item', ['id', 'stock'], [[1, 1]], 1);
  },
  transactions: {
    'place-order': {
      weight: 1,
      async prepare(conn, t) {
        const insert = await conn.prepare('INSERT INTO item (id, stock) VALUES (?, ?)');
        return async () => {
          if (t.options.collide) {
            await conn.begin();
            await insert.run([1, 0]);
            await conn.commit();
            return;
          }
          const left = reserve(1);
          await insert.run([2, left]);
        };
      },
    },
  },
});
`;

/** line:column (1-based) of `text`'s first occurrence of `what`, plus `offset` columns. */
function position(text: string, what: string, offset = 0): string {
  const before = text.slice(0, text.indexOf(what));
  const line = before.split('\n').length;
  return `${line}:${before.length - before.lastIndexOf('\n') + offset}`;
}

const ON: readonly DbmsName[] = ['sqlite', 'postgres'];

for (const dbms of ON) {
  test(`${dbms}: a module's errors name its own file and line, the transaction, and a SQL error's statement`, async (t) => {
    const db = await freshDatabase(t, dbms);
    if (!db) return;
    const folder = mkdtempSync(path.join(tmpdir(), 'headroom-error-origin-'));
    t.after(async () => {
      rmSync(folder, { recursive: true, force: true });
      await db.dispose();
    });
    mkdirSync(path.join(folder, 'lib'));
    writeFileSync(path.join(folder, 'lib', 'stock.ts'), LIB);
    writeFileSync(path.join(folder, 'shop.ts'), SHOP);
    const cli = (args: string[]) => runCli([...args, '--db', db.url], { cwd: folder });
    const read = (file: string): RunResult => JSON.parse(readFileSync(path.join(folder, file), 'utf8')) as RunResult;

    // Two jobs: each worker thread maps its own bundle's frames.
    const thrown = await cli(['run', './shop.ts', '-c', '2', '-j', '2', '-T', '1', '-P', '0', '-o', 'thrown.json']);
    assert.equal(thrown.code, 1, thrown.stderr);
    const at = `lib/stock.ts:${position(LIB, 'new RangeError')}`;
    const first = read('thrown.json').transactions[0]!.firstError;
    assert.deepEqual(first, { errorClass: 'other', message: 'not enough stock', transaction: 'place-order', at });
    assert.match(thrown.stdout, new RegExp(`^error \\(other\\) x\\d+: not enough stock \\[in place-order, at ${at}\\]$`, 'm'));
    assert.doesNotMatch(thrown.stdout + thrown.stderr + readFileSync(path.join(folder, 'thrown.json'), 'utf8'), /headroom\.mjs/);

    // A duplicate key: the driver's error names the statement as the module wrote it; SQLite
    // raises it within the module's own call, so its line is known too.
    const sql = await cli(['run', './shop.ts', '--collide', '-c', '1', '-T', '1', '-P', '0', '-o', 'sql.json']);
    assert.equal(sql.code, 1, sql.stderr);
    const reason = read('sql.json').statusReason ?? '';
    const where = dbms === 'sqlite' ? `at shop.ts:${position(SHOP, 'insert.run([1, 0])', 'insert.'.length)}, ` : '';
    assert.match(
      reason,
      new RegExp(
        `^1 of 1 client\\(s\\) aborted: .*(UNIQUE|duplicate key).* \\[in place-order, ${where}statement: INSERT INTO item \\(id, stock\\) VALUES \\(\\?, \\?\\)\\]$`,
      ),
    );
    assert.match(sql.stdout, /^run failed: 1 of 1 client\(s\) aborted: /m);
  });
}
