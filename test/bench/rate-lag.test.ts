import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freshDatabase } from '../helpers/databases.js';

const BENCH = fileURLToPath(new URL('../../../bench/rate-lag.mjs', import.meta.url));

/** Not a benchmark: a short run proving the -R comparison still works end to end. */
test('bench/rate-lag.mjs runs pgbench and headroom under -R and prints lag and latency percentiles from both logs, their CPU per transaction and the timer', async (t) => {
  const db = await freshDatabase(t, 'postgres');
  if (!db) return;
  // The script creates and drops a database of its own; the fresh one only names it.
  await db.dispose();
  const child = spawnSync(process.execPath, [BENCH, '--db', `${db.url}_rate`, '--time', '1', '--rates', '200', '--rounds', '1', '--clients', '2'], {
    encoding: 'utf8',
  });
  assert.equal(child.status, 0, child.stderr);
  for (const tool of ['pgbench', 'headroom']) {
    for (const figure of ['lag', 'lag-idle', 'latency']) {
      const row = new RegExp(`^${tool} +${figure} +(\\d+) +([\\d.]+) +([\\d.]+) +([\\d.]+) +([\\d.]+) +([\\d.]+) +(\\d+)$`, 'm').exec(child.stdout);
      assert.ok(row, `no ${tool} ${figure} row in:\n${child.stdout}`);
      const [n, min, p50, p90, p99, max, negative] = row.slice(1).map(Number);
      assert.ok(n! > 50, `about 200 transactions in 1 s: ${row[0]}`);
      assert.ok(min! <= p50! && p50! <= p90! && p90! <= p99! && p99! <= max!, `percentiles in order: ${row[0]}`);
      assert.equal(negative, 0, `no transaction starts before its schedule: ${row[0]}`);
    }
  }
  assert.match(child.stdout, /^-R 200: medians over 1 round\(s\)$/m);
  assert.match(child.stdout, /^client CPU us\/transaction: pgbench \d+\.\d \(whole process; .*\), headroom \d+\.\d \(in-run; .*\)$/m);
  assert.match(child.stdout, /^headroom paced by: (reactor|node)$/m);
  // Each round's ratio of the two tools' lag (NaN where pgbench's was 0), and the median of those.
  for (const p of ['p50', 'p99']) assert.match(child.stdout, new RegExp(`^lag ${p} headroom / pgbench: median ([\\d.]+|NaN) \\(rounds ([\\d.]+|NaN)\\)$`, 'm'));
  assert.match(child.stdout, /^headroom's job thread waited for a CPU: median \d+\.\d\d% of the measured time \(rounds \d+\.\d\)$/m);
  assert.match(child.stdout, /^load average before: .*\n[^]*^load average after: /m);
});
