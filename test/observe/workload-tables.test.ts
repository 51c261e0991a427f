import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ExperimentResult } from '../../src/result/experiment-result.js';
import type { GrowthRow } from '../../src/result/experiment-rows.js';
import { createDriver } from '../helpers/drivers.js';
import { runCli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';

const MB = 1048576;

test("postgres: the run's dead rows and the growth experiment's size are of the workload's tables, not another workload's in the same database", async (t) => {
  const db = await freshDatabase(t, 'postgres');
  if (!db) return;
  const folder = mkdtempSync(path.join(tmpdir(), 'headroom-tables-'));
  t.after(async () => {
    rmSync(folder, { recursive: true, force: true });
    await db.dispose();
  });
  const driver = createDriver(db.target);
  const other = await driver.connect();
  // Another workload's table in the same database: 20 MB, with dead rows autovacuum leaves alone.
  await other.query('CREATE TABLE other_workload (id int, pad text) WITH (autovacuum_enabled = false)');
  await other.query("INSERT INTO other_workload SELECT g, repeat('x', 200) FROM generate_series(1, 80000) g");
  await other.query('DELETE FROM other_workload WHERE id % 2 = 0');
  await other.close(); // its statistics are flushed when the session ends

  const file = path.join(folder, 'growth.json');
  const growth = await runCli(['experiment', 'growth', '--db', db.url, '--workload', 'tpcb', '-s', '1', '-c', '1', '-T', '1', '-o', file]);
  assert.equal(growth.code, 0, growth.stderr);
  const [row] = (JSON.parse(readFileSync(file, 'utf8')) as ExperimentResult<GrowthRow>).rows as [GrowthRow];
  const check = await driver.connect();
  t.after(() => check.close());
  const [[pgbench, others]] = (await check.query(
    "SELECT sum(pg_total_relation_size(relid)) FILTER (WHERE relname LIKE 'pgbench\\_%'), sum(pg_total_relation_size(relid)) FILTER (WHERE relname = 'other_workload') FROM pg_stat_user_tables",
  )) as [[unknown, unknown]];
  assert.ok(Number(others) > 15 * MB, `the other table is large: ${others}`);
  // The load's size is the four pgbench tables (give or take what the run added), not the database.
  assert.ok(row.tablesBytes! > 0.9 * Number(pgbench) && row.tablesBytes! <= Number(pgbench), `tablesBytes ${row.tablesBytes}, pgbench tables now ${pgbench}`);
  assert.ok(row.databaseBytes! > row.tablesBytes! + Number(others) * 0.9, `the database holds both: ${row.databaseBytes}`);
  assert.ok(Math.abs(row.loadMBps! - row.tablesBytes! / MB / row.loadSeconds) < 0.02 * row.loadMBps!, JSON.stringify(row));
  assert.match(growth.stdout, /size: the tpcb tables with their indexes after the load/);

  const out = path.join(folder, 'run.json');
  const run = await runCli(['run', 'tpcb', '--db', db.url, '-c', '1', '-T', '2', '-P', '0', '--out', out]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^tpcb's tables: [\d.]+ MB before/m);
  assert.doesNotMatch(run.stdout, /other_workload/);
  const names = JSON.parse(readFileSync(out, 'utf8'))
    .server.sizesAfter.tables.map((t: { name: string }) => t.name)
    .sort();
  assert.deepEqual(names, ['pgbench_accounts', 'pgbench_branches', 'pgbench_history', 'pgbench_tellers']);
});
