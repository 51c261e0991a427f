import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../helpers/cli.js';
import { DBMS_UNDER_TEST, connectFresh } from '../helpers/databases.js';
import type { ExperimentResult } from '../../src/experiments/experiment.js';

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
  const result = JSON.parse(readFileSync(file, 'utf8')) as ExperimentResult;
  assert.equal(result.schema, 'headroom.experiment/1');
  assert.equal(result.status, 'completed');
  assert.equal(result.config.rows, 100_000);
  assert.deepEqual(result.steps.map((s) => [s.name, s.kind]), [['read', 'run'], ['update', 'run'], ['read after update', 'run'], ['vacuum', 'maintenance'], ['read after vacuum', 'run']]);
  for (const step of result.steps.filter((s) => s.kind === 'run')) {
    assert.equal(step.result?.status, 'completed', step.name);
    assert.ok(step.result!.summary.transactions > 0 && step.result!.summary.failed === 0, `${step.name}: ${JSON.stringify(step.result!.summary)}`);
    assert.equal(step.result!.config.workload, 'kv');
  }
  assert.deepEqual(result.steps.map((s) => s.result?.config.workloadOptions['test'] ?? null), ['read', 'update', 'read', null, 'read']);
  assert.deepEqual(result.steps.map((s) => s.result?.config.seed ?? null), [7, 8, 9, null, 11], 'every run draws its own keys');

  const [read, update, , vacuum] = result.steps;
  assert.equal(read!.sizesAfter.deadRows, 0, 'a read test leaves no dead rows');
  assert.ok(update!.sizesAfter.deadRows! > 0, `n_dead_tup after the update test: ${update!.sizesAfter.deadRows}`);
  // After COPY every page is full, so the first update of a row on each page cannot stay on it
  // (no HOT update): its new version goes to the end of the table. 100,000 rows fill about 540
  // pages; a few hundred updates touch more pages than the last page has room for new versions.
  const updates = update!.result!.summary.transactions;
  assert.ok(updates >= 400, `the update test made ${updates} updates, too few to say whether the table grows`);
  assert.ok(update!.sizesAfter.tableBytes! > update!.sizesBefore.tableBytes!, `${updates} updates; table bytes ${update!.sizesBefore.tableBytes} -> ${update!.sizesAfter.tableBytes}`);
  assert.deepEqual(vacuum!.statements, ['VACUUM numbers']);
  assert.ok(vacuum!.sizesBefore.deadRows! > 0 && vacuum!.sizesAfter.deadRows === 0, `n_dead_tup ${vacuum!.sizesBefore.deadRows} -> ${vacuum!.sizesAfter.deadRows}`);
  assert.ok(vacuum!.sizesAfter.tableBytes! <= vacuum!.sizesBefore.tableBytes!, 'VACUUM never grows the table');
  assert.equal(vacuum!.sizesAfter.liveRows, 100_000);

  // The table is as the user left it: autovacuum's per-table setting was reset.
  const [[options]] = (await fresh.conn.query("SELECT COALESCE(array_to_string(reloptions, ','), '') FROM pg_class WHERE relname = 'numbers'")) as [[string]];
  assert.equal(options, '');

  const lines = run.stdout.split('\n');
  assert.match(lines[1]!, /^step +tps +p50 ms +p99 ms +failed +vs 1st read +table MB +index MB +total MB +database MB +live rows +dead rows$/);
  assert.deepEqual(lines.slice(2, 8).map((l) => l.split(/ {2,}/)[0]), ['before', 'read', 'update', 'read after update', `vacuum (${vacuum!.seconds.toFixed(2)} s)`, 'read after vacuum']);
  assert.match(run.stdout, /note: autovacuum held off for numbers/);
});

for (const dbms of DBMS_UNDER_TEST.filter((d) => d !== 'postgres')) {
  test(`${dbms}: experiment dead-rows runs its five steps with the DBMS's own maintenance`, async (t) => {
    const fresh = await connectFresh(t, dbms);
    if (!fresh) return;
    const file = scratch(t);
    const run = await runCli(['experiment', 'dead-rows', '--db', fresh.db.url, '-s', '5000', '-c', '2', '-T', '1', '--max-tries', '5', '-o', file]);
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(readFileSync(file, 'utf8')) as ExperimentResult;
    assert.equal(result.status, 'completed');
    assert.equal(result.steps.length, 5);
    for (const step of result.steps.filter((s) => s.kind === 'run')) assert.ok(step.result!.summary.transactions > 0 && step.result!.summary.failed === 0, step.name);
    const maintenance = result.steps[3]!;
    assert.deepEqual(maintenance.statements, { sqlite: ['VACUUM'], mariadb: ['OPTIMIZE TABLE numbers'], firebird: ['SELECT COUNT(*) FROM numbers'] }[dbms as string]);
    assert.ok(maintenance.sizesAfter.databaseBytes! > 0);
  });
}

test('experiment: an unknown or missing experiment name is one line and exit 2', async () => {
  const unknown = await runCli(['experiment', 'dead-row']);
  assert.equal(unknown.code, 2);
  assert.equal(unknown.stderr, 'headroom: unknown experiment "dead-row" (experiments: dead-rows (e.g. headroom experiment dead-rows -s 1M))\n');
  const missing = await runCli(['experiment']);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /^headroom: name the experiment to run \(experiments: dead-rows/);
  const scale = await runCli(['experiment', 'dead-rows', '-s', '2e10']);
  assert.equal(scale.code, 2);
  assert.match(scale.stderr, /^headroom: --scale for kv is a row count from 1 to 1,000,000,000/);
});
