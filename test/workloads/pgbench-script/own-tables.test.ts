import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../../helpers/cli.js';
import { connectFresh } from '../../helpers/databases.js';
import type { RunResult } from '../../../src/result/result.js';

const folder = mkdtempSync(path.join(tmpdir(), 'headroom-own-tables-'));
test.after(() => rmSync(folder, { recursive: true, force: true }));

for (const dbms of ['sqlite', 'postgres'] as const) {
  test(`${dbms}: a script that names no pgbench_ table runs on its own tables; nothing is loaded and :scale is -s`, async (t) => {
    const fresh = await connectFresh(t, dbms);
    if (!fresh) return;
    const { conn, driver, db } = fresh;
    await conn.query('CREATE TABLE own_counter (id INTEGER PRIMARY KEY, hits INTEGER NOT NULL)');
    for (let id = 1; id <= 40; id++) await conn.query(`INSERT INTO own_counter VALUES (${id}, 0)`);
    const script = path.join(folder, `${dbms}.sql`);
    // ids beyond 30 would mean :scale was not 3.
    writeFileSync(script, '\\set id random(1, 10 * :scale)\nUPDATE own_counter SET hits = hits + 1 WHERE id = :id;\n');
    const out = path.join(folder, `${dbms}.json`);
    const run = await runCli(['run', 'tpcb', '--db', db.url, '-f', script, '-s', '3', '-c', '2', '-t', '25', '-P', '0', '--observe=false', '--out', out]);
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(readFileSync(out, 'utf8')) as RunResult;
    assert.equal(result.data.loadedBy, 'none');
    assert.equal(result.summary.transactions, 50);
    assert.equal(await driver.tableExists(conn, 'pgbench_accounts'), false, 'pgbench tables were created for a script that never uses them');
    const [[hits, beyond]] = (await conn.query('SELECT SUM(hits), SUM(CASE WHEN id > 30 THEN hits ELSE 0 END) FROM own_counter')) as [[unknown, unknown]];
    assert.equal(Number(hits), 50);
    assert.equal(Number(beyond), 0);
  });
}
