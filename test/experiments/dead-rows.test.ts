import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../helpers/cli.js';
import { DBMS_UNDER_TEST, connectFresh } from '../helpers/databases.js';
import type { ExperimentResult } from '../../src/result/experiment-result.js';
import type { DeadRowsMaintenanceRow, DeadRowsRow, DeadRowsRunRow } from '../../src/result/experiment-rows.js';

function scratch(t: { after(fn: () => void): void }): string {
  const folder = mkdtempSync(path.join(tmpdir(), 'headroom-experiment-'));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  return path.join(folder, 'dead-rows.json');
}

test('postgres: experiment dead-rows loads kv, reads, updates, reads, vacuums and reads, with the dead rows PostgreSQL counts', async (t) => {
  const fresh = await connectFresh(t, 'postgres');
  if (!fresh) return;
  const file = scratch(t);
  const run = await runCli(['experiment', 'dead-rows', '--db', fresh.db.url, '-s', '100k', '-c', '2', '-T', '3', '--seed', '7', '-o', file]);
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(readFileSync(file, 'utf8')) as ExperimentResult<DeadRowsRow>;
  assert.equal(result.schema, 'headroom.experiment/1');
  assert.equal(result.experiment, 'dead-rows');
  assert.equal(result.status, 'completed');
  assert.deepEqual(
    result.rows.map((r) => [r.step, r.name, r.kind]),
    [
      [1, 'read', 'run'],
      [2, 'update', 'run'],
      [3, 'read after update', 'run'],
      [4, 'vacuum', 'maintenance'],
      [5, 'read after vacuum', 'run'],
    ],
  );
  // runs holds the run steps' results only, in the order of their rows.
  const runRows = result.rows.filter((r): r is DeadRowsRunRow => r.kind === 'run');
  assert.equal(result.runs.length, 4);
  for (const [i, run] of result.runs.entries()) {
    const row = runRows[i]!;
    assert.equal(run.status, 'completed', row.name);
    assert.ok(run.summary.transactions > 0 && run.summary.failed === 0, `${row.name}: ${JSON.stringify(run.summary)}`);
    assert.equal(run.config.workload, 'kv');
    assert.equal(run.config.scale, 100_000);
    assert.equal(run.config.workloadOptions['test'], row.test);
    assert.equal(run.summary.tps, row.tps, `${row.name}: the row's tps is its run's`);
    assert.equal(run.summary.latencyMs.p99, row.p99Ms);
  }
  assert.deepEqual(
    runRows.map((r) => r.test),
    ['read', 'update', 'read', 'read'],
  );
  assert.deepEqual(
    result.runs.map((r) => r.config.seed),
    [7, 8, 9, 11],
    'every run draws its own keys',
  );
  assert.deepEqual(result.serverSettings.asked, []);

  const [read, update, , vacuum] = result.rows as [DeadRowsRunRow, DeadRowsRunRow, DeadRowsRunRow, DeadRowsMaintenanceRow];
  assert.equal(read.sizesAfter.deadRows, 0, 'a read test leaves no dead rows');
  assert.ok(update.sizesAfter.deadRows! > 0, `n_dead_tup after the update test: ${update.sizesAfter.deadRows}`);
  // After COPY every page is full, so the first update of a row on each page cannot stay on it
  // (no HOT update): its new version goes to the end of the table. 100,000 rows fill about 540
  // pages; a few hundred updates touch more pages than the last page has room for new versions.
  const updates = result.runs[1]!.summary.transactions;
  assert.ok(updates >= 400, `the update test made ${updates} updates, too few to say whether the table grows`);
  assert.ok(
    update.sizesAfter.tableBytes! > update.sizesBefore.tableBytes!,
    `${updates} updates; table bytes ${update.sizesBefore.tableBytes} -> ${update.sizesAfter.tableBytes}`,
  );
  assert.deepEqual(vacuum.statements, ['VACUUM numbers']);
  assert.ok(vacuum.sizesBefore.deadRows! > 0 && vacuum.sizesAfter.deadRows === 0, `n_dead_tup ${vacuum.sizesBefore.deadRows} -> ${vacuum.sizesAfter.deadRows}`);
  assert.ok(vacuum.sizesAfter.tableBytes! <= vacuum.sizesBefore.tableBytes!, 'VACUUM never grows the table');
  assert.equal(vacuum.sizesAfter.liveRows, 100_000);

  // The table is as the user left it: autovacuum's per-table setting was reset.
  const [[options]] = (await fresh.conn.query("SELECT COALESCE(array_to_string(reloptions, ','), '') FROM pg_class WHERE relname = 'numbers'")) as [[string]];
  assert.equal(options, '');

  const lines = run.stdout.split('\n');
  assert.match(lines[1]!, /^step +tps +p50 ms +p99 ms +failed +vs 1st read +table MB +index MB +total MB +database MB +live rows +dead rows$/);
  assert.deepEqual(
    lines.slice(2, 8).map((l) => l.split(/ {2,}/)[0]),
    ['before', 'read', 'update', 'read after update', `vacuum (${vacuum.seconds.toFixed(2)} s)`, 'read after vacuum'],
  );
  assert.match(run.stdout, /note: autovacuum held off for numbers/);
  assert.ok(
    result.notes?.some((n) => n.startsWith('autovacuum held off for numbers')),
    JSON.stringify(result.notes),
  );

  // compare lines the steps up by name, maintenance without a tps; report names each run by its step.
  const again = await runCli(['compare', file, file]);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /^read after update +\d+\.\d +\d+\.\d +x1\.00$/m);
  assert.match(again.stdout, /^vacuum +- +-\s*$/m);
  const html = path.join(path.dirname(file), 'report.html');
  const report = await runCli(['report', file, '-o', html]);
  assert.equal(report.code, 0, report.stderr);
  assert.match(readFileSync(html, 'utf8'), /dead-rows:read after vacuum/);
});

for (const dbms of DBMS_UNDER_TEST.filter((d) => d !== 'postgres')) {
  test(`${dbms}: experiment dead-rows runs its five steps with the DBMS's own maintenance`, async (t) => {
    const fresh = await connectFresh(t, dbms);
    if (!fresh) return;
    const file = scratch(t);
    const run = await runCli(['experiment', 'dead-rows', '--db', fresh.db.url, '-s', '5000', '-c', '2', '-T', '1', '--max-tries', '5', '-o', file]);
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(readFileSync(file, 'utf8')) as ExperimentResult<DeadRowsRow>;
    assert.equal(result.status, 'completed');
    assert.equal(result.rows.length, 5);
    assert.equal(result.runs.length, 4);
    for (const run of result.runs) assert.ok(run.summary.transactions > 0 && run.summary.failed === 0, JSON.stringify(run.summary));
    const maintenance = result.rows[3] as DeadRowsMaintenanceRow;
    assert.equal(maintenance.kind, 'maintenance');
    assert.deepEqual(
      maintenance.statements,
      { sqlite: ['VACUUM'], mariadb: ['OPTIMIZE TABLE numbers'], firebird: ['SELECT COUNT(*) FROM numbers'] }[dbms as string],
    );
    assert.ok(maintenance.sizesAfter.databaseBytes! > 0);
  });
}

test('experiment: an unknown or missing experiment name is one line and exit 2', async () => {
  const unknown = await runCli(['experiment', 'dead-row']);
  assert.equal(unknown.code, 2);
  assert.equal(
    unknown.stderr,
    'headroom: unknown experiment "dead-row" (experiments: peak, growth, chain-study, dead-rows (headroom experiment NAME --help))\n',
  );
  const missing = await runCli(['experiment']);
  assert.equal(missing.code, 2);
  assert.match(missing.stdout, /^ {2}dead-rows +the kv read test/m);
  const scale = await runCli(['experiment', 'dead-rows', '-s', '2e10']);
  assert.equal(scale.code, 2);
  assert.match(scale.stderr, /^headroom: --scale for kv is a row count from 1 to 1,000,000,000/);
});
