import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ExperimentResult } from '../../src/result/experiment-result.js';
import type { PeakRow } from '../../src/result/experiment-rows.js';
import { runCli } from '../helpers/cli.js';
import { DBMS_UNDER_TEST, freshDatabase } from '../helpers/databases.js';

for (const dbms of DBMS_UNDER_TEST) {
  test(`${dbms}: experiment peak runs the seven queries, each without a failure, and writes the study's table`, async (t) => {
    const db = await freshDatabase(t, dbms);
    if (!db) return;
    const folder = mkdtempSync(path.join(tmpdir(), 'headroom-peak-'));
    t.after(async () => {
      rmSync(folder, { recursive: true, force: true });
      await db.dispose();
    });
    const file = path.join(folder, 'peak.json');
    // describeTarget leaves the password out of the URL; Firebird's comes from ISC_PASSWORD.
    const env = { ...process.env, DATABASE_URL: undefined, ISC_PASSWORD: 'masterkey' };
    const run = await runCli(['experiment', 'peak', '--db', db.url, '-T', '1', '-c', '2', '--observe=false', '-o', file], { env });
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(readFileSync(file, 'utf8')) as ExperimentResult<PeakRow>;
    assert.equal(result.schema, 'headroom.experiment/1');
    assert.equal(result.status, 'completed');
    assert.deepEqual(
      result.rows.map((r) => r.number),
      [1, 2, 3, 4, 5, 6, 7],
    );
    for (const row of result.rows) {
      assert.equal(row.failed, 0, `query ${row.query}: ${JSON.stringify(result.runs[row.number - 1]!.errors)}`);
      assert.ok(row.meanQps > 0, `query ${row.query} ran`);
      assert.ok(row.peakQps >= row.meanQps * 0.98, `query ${row.query}: peak ${row.peakQps} >= mean ${row.meanQps}`);
      assert.equal(row.clients, 2);
    }
    assert.equal(result.runs.length, 7);
    assert.deepEqual(
      result.runs.map((r) => r.config.workloadOptions['query']),
      ['constant', 'reference', 'temp-table', 'temp-index', 'full-join', 'left-join', 'cross-join'],
    );
    assert.match(run.stdout, /1 SELECT 1\+1 +2 +\d+/);
    assert.match(run.stdout, /7 cartesian product of it with itself/);
  });
}

test('peak: a bad query name, and -j above the clients, are one line each', async () => {
  const bad = await runCli(['run', 'peak', '--query', 'nosuch', '--db', 'sqlite::memory:']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^headroom: unknown peak query "nosuch" \(use a number 1-7/);
  const list = await runCli(['experiment', 'peak', '--queries', '1,9']);
  assert.equal(list.code, 2);
  assert.match(list.stderr, /^headroom: --queries: unknown query "9"/);
  const jobs = await runCli(['experiment', 'peak', '-c', '2', '-j', '3']);
  assert.equal(jobs.code, 2);
  assert.match(jobs.stderr, /-j 3 is more than the 2 clients/);
  assert.equal(jobs.stderr.split('\n').filter(Boolean).length, 1);
});

test('sqlite: Ctrl-C during experiment peak writes the queries measured so far, marked interrupted', async (t) => {
  const folder = mkdtempSync(path.join(tmpdir(), 'headroom-peak-'));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  const file = path.join(folder, 'peak.json');
  const run = await runCli(
    ['experiment', 'peak', '--db', `sqlite:${path.join(folder, 'p.db')}`, '-T', '30', '-c', '1', '--queries', '1,2', '--observe=false', '-o', file],
    {
      whenStderr: [/query 1 \(constant\)/, (pid) => setTimeout(() => process.kill(pid, 'SIGINT'), 1500)],
    },
  );
  assert.equal(run.code, 130, run.stderr);
  const result = JSON.parse(readFileSync(file, 'utf8')) as ExperimentResult<PeakRow>;
  assert.equal(result.status, 'interrupted');
  assert.deepEqual(
    result.rows.map((r) => r.query),
    ['constant'],
    'query 2 never started',
  );
  assert.ok(result.rows[0]!.meanQps > 0 && result.rows[0]!.measuredSeconds < 10);
  assert.match(run.stdout, /interrupted/);
});
