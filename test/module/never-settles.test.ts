import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'node:test';
import type { RunResult } from '../../src/result/result.js';
import { runCli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';

/**
 * A module whose load(), prepare() or one transaction (terminal 1's) returns a promise that never
 * settles, as HANG says. Terminal 0 keeps running its transactions where its driver lets it.
 */
const HANGING = `import { defineWorkload } from 'headroom-oltp';
const hang = process.env['HANG'];
const never = () => new Promise(() => {});
export default defineWorkload({
  name: 'hanging',
  description: 'promises that never settle',
  tables: { hanging_t: { create: 'CREATE TABLE hanging_t (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)' } },
  async load(ctx) {
    await ctx.bulkInsert('hanging_t', ['id', 'v'], [[1, 0], [2, 0]]);
    if (hang === 'load') await never();
  },
  transactions: {
    read: {
      weight: 1,
      async prepare(conn, t) {
        if (hang === 'prepare') await never();
        const s = await conn.prepare('SELECT v FROM hanging_t WHERE id = ?');
        return async () => {
          await s.all([1]);
          if (hang === 'transaction' && t.terminal === 1) await never();
        };
      },
    },
  },
});
`;

/**
 * A workload module's promise that never settles must not hang the run nor end it with Node's silent
 * exit code 13: a transaction's is counted unfinished and the run ends on time, failed, naming the
 * stuck terminal and where it was; a prepare()'s and a load()'s end the command once nothing has
 * moved for 15 s, in one line, exit 1.
 */
for (const dbms of ['sqlite', 'postgres'] as const) {
  test(`${dbms}: a module's transaction, prepare() or load() that never settles ends the command with exit 1, naming where`, async (t) => {
    const db = await freshDatabase(t, dbms);
    if (!db) return;
    const folder = mkdtempSync(path.join(tmpdir(), 'headroom-hanging-'));
    t.after(async () => {
      rmSync(folder, { recursive: true, force: true });
      await db.dispose();
    });
    writeFileSync(path.join(folder, 'hanging.ts'), HANGING);
    const cli = (hang: string, args: string[]) =>
      runCli(['run', './hanging.ts', '--db', db.url, '-c', '2', '-T', '3', '--live=false', ...args], {
        cwd: folder,
        env: { ...process.env, DATABASE_URL: undefined, HANG: hang },
      });

    const out = path.join(folder, 'transaction.json');
    const started = performance.now();
    const stuck = await cli('transaction', ['--out', out]);
    const seconds = (performance.now() - started) / 1000;
    assert.equal(stuck.code, 1, stuck.stderr);
    // Loading, then 3 s and the stop's 3 s grace.
    assert.ok(seconds < 20, `took ${seconds.toFixed(1)} s`);
    const result = JSON.parse(readFileSync(out, 'utf8')) as RunResult;
    assert.equal(result.status, 'failed');
    assert.match(result.statusReason ?? '', /terminal 1 in read in the workload's own code with no statement pending \(a promise that never settles\)/);
    assert.ok(result.stuck?.some((s) => s.terminal === 1 && s.place === 'workload'));
    assert.match(stuck.stdout, /^run failed: .*terminal 1 in read in the workload's own code/m);

    for (const hang of ['prepare', 'load']) {
      const began = performance.now();
      const run = await cli(hang, ['--out', path.join(folder, `${hang}.json`)]);
      const took = (performance.now() - began) / 1000;
      assert.equal(run.code, 1, `${hang}: ${run.stderr}`);
      assert.ok(took < 40, `${hang}: took ${took.toFixed(1)} s`);
      const last = run.stderr.trim().split('\n').at(-1)!;
      assert.match(
        last,
        hang === 'prepare'
          ? /^headroom: the terminals did not get ready: nothing moved for 15 s; terminal 0 in prepare\(\) of read, in the workload's own code with no statement pending/
          : /^headroom: the load of hanging did not end: nothing was sent to the database for 15 s and no statement is pending/,
      );
      assert.ok(!existsSync(path.join(folder, `${hang}.json`)), `${hang}: nothing was measured, so no result`);
      // The data is loaded now; the next load is the one that hangs.
      if (hang === 'prepare') assert.equal((await runCli(['drop', './hanging.ts', '--db', db.url], { cwd: folder })).code, 0);
    }
  });
}
