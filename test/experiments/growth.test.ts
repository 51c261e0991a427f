import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ExperimentResult } from '../../src/result/experiment-result.js';
import type { GrowthRow } from '../../src/result/experiment-rows.js';
import { runCli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';

for (const dbms of ['sqlite', 'postgres'] as const) {
  test(`${dbms}: experiment growth loads two growing sizes, runs the same load at each, and the file compares`, async (t) => {
    const db = await freshDatabase(t, dbms);
    if (!db) return;
    const folder = mkdtempSync(path.join(tmpdir(), 'headroom-growth-'));
    t.after(async () => {
      rmSync(folder, { recursive: true, force: true });
      await db.dispose();
    });
    const file = path.join(folder, 'growth.json');
    const run = await runCli(['experiment', 'growth', '--db', db.url, '--workload', 'tpcb', '-s', '1,2', '-c', '2', '-T', '1', '--observe=false', '-o', file]);
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(readFileSync(file, 'utf8')) as ExperimentResult<GrowthRow>;
    assert.equal(result.status, 'completed');
    assert.deepEqual(
      result.rows.map((r) => r.scale),
      [1, 2],
    );
    const [small, large] = result.rows as [GrowthRow, GrowthRow];
    assert.ok(small.databaseBytes! > 1_000_000, `scale 1 holds 100,000 accounts: ${small.databaseBytes} bytes`);
    assert.ok(large.databaseBytes! > small.databaseBytes! * 1.4, `scale 2 is larger: ${small.databaseBytes} then ${large.databaseBytes}`);
    for (const row of result.rows) {
      assert.ok(row.loadSeconds > 0 && row.loadMBps! > 0, JSON.stringify(row));
      assert.ok(row.tps > 0 && row.failed === 0, JSON.stringify(row));
      assert.equal(row.clients, 2);
      // Both servers under test run on this machine, whose RAM is far above a few MB.
      assert.equal(row.largerThanRam, false);
    }
    assert.ok(result.host.memTotalBytes > 100 * 1048576);
    assert.deepEqual(
      result.runs.map((r) => r.config.scale),
      [1, 2],
    );
    assert.match(run.stdout, /^step +scale +size MB +load s +load MB\/s +tps/m);

    const again = path.join(folder, 'growth-again.json');
    copyFileSync(file, again);
    const compared = await runCli(['compare', file, again]);
    assert.equal(compared.code, 0, compared.stderr);
    assert.match(compared.stdout, /scale 2 +[\d.]+ +[\d.]+ +x1\.00/);
    const report = await runCli(['report', file, '--markdown']);
    assert.equal(report.code, 0, report.stderr);
    assert.match(report.stdout, /`growth:scale 1` \| tpcb/);
    assert.match(report.stdout, /`growth:scale 2` \| tpcb/);
    // One of its runs on its own is a run result, which does not compare with an experiment file.
    const single = path.join(folder, 'single.json');
    writeFileSync(single, JSON.stringify(result.runs[0]));
    const mixed = await runCli(['compare', file, single]);
    assert.equal(mixed.code, 2);
    assert.match(mixed.stderr, /^headroom: .*growth\.json is an experiment file and .*single\.json is not: they do not compare/);
  });
}

test('growth: a scale list the workload cannot read, and a foreign option, are one line each', async () => {
  const scale = await runCli(['experiment', 'growth', '-s', '1,x']);
  assert.equal(scale.code, 2);
  assert.match(scale.stderr, /^headroom: --scale needs a whole number of warehouses, not "x"/);
  const foreign = await runCli(['experiment', 'growth', '--workload', 'tpcb', '--load', 'bulk']);
  assert.equal(foreign.code, 2);
  assert.match(foreign.stderr, /^headroom: --load is not an option of workload tpcb/);
  const unknown = await runCli(['experiment', 'nosuch']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /^headroom: unknown experiment "nosuch" \(experiments: peak, growth/);
});
