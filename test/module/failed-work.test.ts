import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'node:test';
import type { DbmsName } from '../../src/drivers/driver.js';
import type { RunResult } from '../../src/result/result.js';
import type { SweepResult } from '../../src/result/sweep.js';
import { runCli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';

/** A shop whose place-order throws in every call, beside a read that works, and a cancel that always rolls back as the model asks. */
const SHOP = `import { defineWorkload } from 'headroom-oltp';

export default defineWorkload({
  name: 'shop',
  description: 'orders that never go through',
  tables: { product: { create: 'CREATE TABLE product (id INTEGER PRIMARY KEY, stock INTEGER NOT NULL)' } },
  async load(ctx) {
    await ctx.bulkInsert('product', ['id', 'stock'], [[1, 10], [2, 0]], 2);
  },
  transactions: {
    browse: {
      weight: 2,
      async prepare(conn) {
        const read = await conn.prepare('SELECT stock FROM product WHERE id = ?');
        return async () => {
          await read.all([1]);
        };
      },
    },
    cancel: {
      weight: 1,
      async prepare(conn) {
        return async () => {
          await conn.begin();
          await conn.rollback();
          return 'rolled-back';
        };
      },
    },
    'place-order': {
      weight: 1,
      async prepare() {
        return async () => {
          throw new Error('no such product');
        };
      },
    },
  },
});
`;

const ON: readonly DbmsName[] = ['sqlite', 'postgres'];

for (const dbms of ON) {
  test(`${dbms}: a module whose transaction type fails in every call fails the run, naming the type and its first error`, async (t) => {
    const db = await freshDatabase(t, dbms);
    if (!db) return;
    const folder = mkdtempSync(path.join(tmpdir(), 'headroom-failed-work-'));
    t.after(async () => {
      rmSync(folder, { recursive: true, force: true });
      await db.dispose();
    });
    writeFileSync(path.join(folder, 'shop.ts'), SHOP);
    const cli = (args: string[]) => runCli([...args, '--db', db.url], { cwd: folder });
    const read = <T>(file: string): T => JSON.parse(readFileSync(path.join(folder, file), 'utf8')) as T;

    const run = await cli(['run', './shop.ts', '-c', '2', '-T', '2', '-P', '0', '-o', 'failed.json']);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    const result = read<RunResult>('failed.json');
    assert.equal(result.status, 'failed');
    assert.equal(result.config.maxFailedPercent, 5);
    const line = /^run failed: (.*)$/m.exec(run.stdout)?.[1];
    assert.ok(line, run.stdout);
    assert.equal(line, result.statusReason);
    assert.match(
      line,
      /^transaction type place-order: all \d+ of its tries failed, above --max-failed 5%; first error: \(other\) no such product \[in place-order, at shop\.ts:\d+:\d+\]$/,
    );
    assert.equal(result.failedWork?.length, 1, 'only place-order failed: the rolled-back cancels are no failures');
    assert.equal(result.failedWork![0]!.type, 'place-order');
    assert.equal(result.failedWork![0]!.failedPercent, 100);
    const cancel = result.transactions.find((x) => x.name === 'cancel')!;
    assert.ok(cancel.count > 0 && cancel.rolledBack === cancel.count && cancel.failed === 0, JSON.stringify(cancel));
    const verdict = /^verdict: .*$/m.exec(run.stdout)?.[0] ?? '';
    assert.doesNotMatch(verdict, /saturated|could do more/, verdict);
    assert.match(verdict, /100% of place-order's tries failed: .* says nothing about saturation/);

    // --max-failed 100% accepts any failures: the same run completes.
    const accepted = await cli(['run', './shop.ts', '-c', '2', '-T', '1', '-P', '0', '--max-failed', '100%', '-o', 'accepted.json']);
    assert.equal(accepted.code, 0, accepted.stdout + accepted.stderr);
    const ok = read<RunResult>('accepted.json');
    assert.equal(ok.status, 'completed');
    assert.equal(ok.failedWork, undefined);
    assert.equal(ok.config.maxFailedPercent, 100);
    assert.ok(ok.summary.failed > 0);

    // A sweep: the first step fails this way, is marked so in the table, and the sweep stops there.
    const sweep = await cli(['run', './shop.ts', '-c', '1,2', '-T', '1', '-P', '0', '-o', 'sweep.json']);
    assert.equal(sweep.code, 1, sweep.stdout + sweep.stderr);
    const swept = read<SweepResult>('sweep.json');
    assert.equal(swept.status, 'failed');
    assert.equal(swept.steps.length, 1, 'the sweep stopped at the failed step');
    assert.match(swept.statusReason ?? '', /^step 1: transaction type place-order: all \d+ of its tries failed/);
    assert.match(sweep.stdout, /^\s+1 .*failed: 100% of place-order failed$/m);

    assert.equal((await cli(['run', './shop.ts', '--max-failed', 'lots'])).code, 2);
  });
}
