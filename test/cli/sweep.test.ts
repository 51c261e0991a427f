import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { SweepResult } from '../../src/result/sweep.js';
import { runCli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';
import { startThrowawayPostgres, throwawayPostgresUnavailable } from '../helpers/throwaway-postgres.js';
import { skipOrFail } from '../helpers/skip-or-fail.js';

const read = (file: string): SweepResult => JSON.parse(readFileSync(file, 'utf8')) as SweepResult;

function workDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-sweep-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The table's rows as cells: terminals first. */
function tableRows(stdout: string): string[][] {
  return stdout
    .split('\n')
    .filter((l) => /^ {2}\d+ /.test(l))
    .map((l) => l.trim().split(/\s{2,}/));
}

for (const dbms of ['sqlite', 'postgres'] as const) {
  test(`${dbms}: -c 1,2 -T 1 sweeps two steps on data loaded once into one sweep file`, async (t) => {
    const db = await freshDatabase(t, dbms);
    if (!db) return;
    t.after(() => db.dispose());
    const out = path.join(workDir(t), 'sweep.json');
    const run = await runCli(['run', 'tpcb', '--db', db.url, '-c', '1,2', '-T', '1', '-P', '0', '-o', out]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal((run.stderr.match(/^loading tpcb/gm) ?? []).length, 1, 'loaded once');
    assert.match(run.stderr, /step 1 of 2: 1 clients, [\d.]+ tps/);
    assert.match(run.stderr, /step 2 of 2: 2 clients, [\d.]+ tps/);
    const sweep = read(out);
    assert.equal(sweep.schema, 'headroom.sweep/1');
    assert.equal(sweep.status, 'completed');
    assert.deepEqual(sweep.clients, [1, 2]);
    assert.deepEqual(
      sweep.steps.map((s) => [s.schema, s.config.clients, s.status]),
      [
        ['headroom.result/1', 1, 'completed'],
        ['headroom.result/1', 2, 'completed'],
      ],
    );
    assert.deepEqual([sweep.accepted, sweep.refusedAt], [2, null]);
    for (const step of sweep.steps) {
      assert.ok(step.summary.transactions > 0, `step ${step.config.clients} ran transactions`);
      assert.ok(step.summary.measuredSeconds >= 0.9 && step.summary.measuredSeconds < 2, `${step.summary.measuredSeconds} s measured`);
    }
    assert.equal(sweep.steps[1]!.data.loadedBy, 'this-run', 'the data of the sweep');
    assert.match(run.stdout, /^ {2}terminals\s+tps\s+p50 ms\s+p99 ms\s+max ms\s+failed\s+CPU us\/txn\s+note$/m);
    const rows = tableRows(run.stdout);
    assert.deepEqual(
      rows.map((r) => [r[0], Number(r[1])]),
      sweep.steps.map((s) => [String(s.config.clients), Number(s.summary.tps.toFixed(1))]),
    );
    assert.match(run.stdout, /^knee: /m);
    assert.match(run.stdout, new RegExp(`result: ${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  });
}

/**
 * A cluster of our own with max_connections 10 (none reserved) and a role limited to 4
 * connections: the superuser's sweep is refused by max_connections, the role's by its own
 * CONNECTION LIMIT, each before the step; under --force the role's step runs with what connects.
 */
test('postgres: the server refusing a step ends the sweep with "accepted N, refused at M", exit 0, file written', async (t) => {
  if (skipOrFail(t, throwawayPostgresUnavailable())) return;
  const cluster = await startThrowawayPostgres(
    ['host all all 127.0.0.1/32 trust'],
    ['CREATE ROLE limited LOGIN CONNECTION LIMIT 4', 'CREATE DATABASE limited OWNER limited'],
    ['max_connections = 10', 'superuser_reserved_connections = 0'],
  );
  t.after(() => cluster.stop());
  const dir = workDir(t);

  // With the sweep's own session, 1 + 8 fits in 10 and 1 + 16 does not: the budget says so before the step.
  const budget = path.join(dir, 'budget.json');
  const byBudget = await runCli([
    'run',
    'tpcb',
    '--db',
    `postgres://postgres@127.0.0.1:${cluster.port}/postgres`,
    '-c',
    '2,4,8,16,32',
    '-T',
    '1',
    '-P',
    '0',
    '-o',
    budget,
  ]);
  assert.equal(byBudget.code, 0, byBudget.stderr);
  assert.match(byBudget.stdout, /^accepted 8, refused at 16 \(the server accepts \d+ more connections \(max_connections 10/m);
  const swept = read(budget);
  assert.deepEqual([swept.status, swept.accepted, swept.refusedAt], ['completed', 8, 16]);
  assert.deepEqual(
    swept.steps.map((s) => s.config.clients),
    [2, 4, 8],
  );
  assert.deepEqual(tableRows(byBudget.stdout).at(-1), ['16', '-', '-', '-', '-', '-', '-', 'refused by the server']);

  // The role's own session takes one of its 4: steps of 1 and 2 fit, 4 is refused by the role's limit.
  const connect = path.join(dir, 'connect.json');
  const byConnect = await runCli([
    'run',
    'tpcb',
    '--db',
    `postgres://limited@127.0.0.1:${cluster.port}/limited`,
    '-c',
    '1,2,4',
    '-T',
    '1',
    '-P',
    '0',
    '-o',
    connect,
  ]);
  assert.equal(byConnect.code, 0, byConnect.stderr);
  assert.match(byConnect.stdout, /^accepted 2, refused at 4 \(the server accepts 3 more connections \(CONNECTION LIMIT of role limited 4, 1 in use\)/m);
  assert.deepEqual([read(connect).accepted, read(connect).refusedAt, read(connect).steps.length], [2, 4, 2]);

  // --force runs the refused step with what the server accepts, and the sweep goes on.
  const forced = path.join(dir, 'forced.json');
  const withForce = await runCli([
    'run',
    'tpcb',
    '--db',
    `postgres://limited@127.0.0.1:${cluster.port}/limited`,
    '-c',
    '2,4',
    '-T',
    '1',
    '-P',
    '0',
    '--force',
    '-o',
    forced,
  ]);
  assert.equal(withForce.code, 0, withForce.stderr);
  const f = read(forced);
  assert.deepEqual(
    f.steps.map((s) => [s.config.clients, s.summary.connections.accepted, s.summary.connections.refused]),
    [
      [2, 2, 0],
      [4, 3, 1],
    ],
  );
  assert.deepEqual([f.accepted, f.refusedAt], [2, 4]);
  assert.match(withForce.stdout, /^ {2}4 .*server accepted 3$/m);
});

test('Ctrl-C during a sweep writes the steps done so far, marked interrupted', async (t) => {
  const dir = workDir(t);
  const out = path.join(dir, 'sweep.json');
  const run = await runCli(['run', 'tpcb', '--db', `sqlite:${path.join(dir, 'b.db')}`, '-c', '1,2,3', '-T', '2', '-P', '0', '-o', out], {
    whenStderr: [/running tpcb .* step 2 of 3/, (pid) => setTimeout(() => process.kill(pid, 'SIGINT'), 500)],
  });
  assert.equal(run.code, 130, run.stderr);
  assert.ok(existsSync(out), 'the file is written');
  const sweep = read(out);
  assert.equal(sweep.status, 'interrupted');
  assert.deepEqual(
    sweep.steps.map((s) => [s.config.clients, s.status]),
    [
      [1, 'completed'],
      [2, 'interrupted'],
    ],
  );
  assert.equal(sweep.accepted, 1);
  assert.match(run.stdout, /^sweep: interrupted/m);
});
