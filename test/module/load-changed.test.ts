import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'node:test';
import type { DbmsName } from '../../src/drivers/driver.js';
import type { RunResult } from '../../src/result/result.js';
import { runCli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';

/** load() fills the table through a helper outside it, as the starter module's rows() does. */
const MODULE = `import { defineWorkload } from 'headroom-oltp';

function* rows(n: number) {
  for (let id = 1; id <= n; id++) yield [id, BALANCE];
}

export default defineWorkload({
  name: 'ledger',
  description: 'accounts read by id',
  tables: { ledger_account: { create: 'CREATE TABLE ledger_account (id INTEGER PRIMARY KEY, balance BIGINT NOT NULL)' } },
  async load(ctx) {
    await ctx.bulkInsert('ledger_account', ['id', 'balance'], rows(10), 10);
  },
  transactions: {
    read: {
      weight: 1,
      async prepare(conn, t) {
        const read = await conn.prepare('SELECT balance FROM ledger_account WHERE id = ?');
        return async () => {
          await read.all([t.random.int(1, READ_UP_TO)]);
        };
      },
    },
  },
});
`;

const NOTE =
  /^note: the load\(\) of (\S+) has changed since it loaded the ledger data in \S+ \(load sha256 [0-9a-f]{12} then, [0-9a-f]{12} now\): the data may not be what it loads now; load it again: headroom init (\S+) -s 1$/m;

const ON: readonly DbmsName[] = ['sqlite', 'postgres'];

for (const dbms of ON) {
  test(`${dbms}: a run on data an earlier load() made says so, and how to reload; an edit of a transaction does not`, async (t) => {
    const db = await freshDatabase(t, dbms);
    if (!db) return;
    const folder = mkdtempSync(path.join(tmpdir(), 'headroom-load-changed-'));
    t.after(async () => {
      rmSync(folder, { recursive: true, force: true });
      await db.dispose();
    });
    const file = path.join(folder, 'ledger.ts');
    const write = (balance: number, readUpTo: number) =>
      writeFileSync(file, MODULE.replace('BALANCE', String(balance)).replace('READ_UP_TO', String(readUpTo)));
    const cli = (args: string[]) => runCli([...args, '--db', db.url], { cwd: folder });
    const run = async (out: string) => {
      const outcome = await cli(['run', './ledger.ts', '-c', '1', '-t', '20', '-P', '0', '-o', out]);
      assert.equal(outcome.code, 0, outcome.stderr);
      return { ...outcome, result: JSON.parse(readFileSync(path.join(folder, out), 'utf8')) as RunResult };
    };

    write(100, 10);
    assert.equal((await cli(['init', './ledger.ts'])).code, 0);
    const same = await run('same.json');
    assert.doesNotMatch(same.stderr, /has changed/);
    assert.equal(same.result.data.loadSha256, same.result.config.module?.loadSha256);

    // A transaction's body changed: the data is still what load() makes.
    write(100, 5);
    const edited = await run('edited.json');
    assert.doesNotMatch(edited.stderr, /has changed/, edited.stderr);
    assert.notEqual(edited.result.config.module?.sha256, same.result.config.module?.sha256);
    assert.equal(edited.result.config.module?.loadSha256, same.result.config.module?.loadSha256);

    // The helper load() calls changed: the data is not what load() makes now.
    write(250, 5);
    const changed = await run('changed.json');
    const note = NOTE.exec(changed.stderr);
    assert.ok(note, changed.stderr);
    assert.equal(note[1], file);
    assert.equal(note[2], file);
    assert.equal(changed.result.data.loadSha256, same.result.data.loadSha256);
    assert.notEqual(changed.result.config.module?.loadSha256, changed.result.data.loadSha256);
    assert.match(changed.stdout, /^data: loaded by an earlier load\(\) \(load sha256 [0-9a-f]{12}\), not the module's now/m);

    // Loaded again as the note says: nothing more to say.
    assert.equal((await cli(['init', './ledger.ts'])).code, 0);
    const reloaded = await run('reloaded.json');
    assert.doesNotMatch(reloaded.stderr, /has changed/);
    assert.equal(reloaded.result.data.loadSha256, reloaded.result.config.module?.loadSha256);
  });
}
