import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RunResult } from '../../src/result/result.js';
import { createDriver } from '../helpers/drivers.js';
import { resolveTarget } from '../../src/config/target.js';
import { runCli } from '../helpers/cli.js';

test('run tpcc reports NOPM and TPM, checks consistency after the run, and fails the run when a district is corrupted', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-tpcc-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const db = `sqlite:${path.join(dir, 'c.db')}`;
  const out = path.join(dir, 'r.json');
  const run = await runCli(['run', 'tpcc', '--db', db, '-c', '2', '-T', '2', '--warmup', '1', '-P', '0', '-o', out]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /warehouses: [\d,]+ rows in/);
  assert.match(run.stdout, /NOPM = [\d.]+ \(New-Order commits per minute\)/);
  assert.match(run.stdout, /check ok {3}condition 4: sum\(O_OL_CNT\) = count\(ORDER_LINE\)/);
  const result = JSON.parse(readFileSync(out, 'utf8')) as RunResult;
  assert.equal(result.status, 'completed');
  const newOrder = result.transactions.find((x) => x.name === 'new-order')!;
  const nopm = result.summary.workloadMetrics!.find((m) => m.name === 'NOPM')!;
  assert.ok(Math.abs(nopm.value - ((newOrder.count - newOrder.rolledBack!) / result.summary.measuredSeconds) * 60) < 0.1);
  const tpm = result.summary.workloadMetrics!.find((m) => m.name === 'TPM')!;
  const committed = result.transactions.reduce((n, x) => n + x.count - (x.rolledBack ?? 0), 0);
  assert.ok(Math.abs(tpm.value - (committed / result.summary.measuredSeconds) * 60) < 0.1);
  assert.deepEqual(
    result.checks!.map((c) => c.ok),
    [true, true, true, true, true],
  );
  // Delivery's skipped districts (none while every district has new-orders), in the summary and per type.
  const skipped = result.summary.workloadMetrics!.find((m) => m.name === 'skipped districts')!;
  const deliveries = result.transactions.find((x) => x.name === 'delivery')!;
  assert.equal(skipped.value, deliveries.counters?.['skippedDistricts'] ?? 0);
  assert.equal(skipped.value, 0);
  assert.match(
    run.stdout,
    new RegExp(`skipped districts = 0 \\(Delivery districts without a new-order to deliver \\(2\\.7\\.4\\.2\\), in 0 of ${deliveries.count} Delivery`),
  );
  // The reports carry the workload's headline figures and its checks too.
  const markdown = await runCli(['report', out, '--markdown']);
  assert.equal(markdown.code, 0, markdown.stderr);
  assert.match(markdown.stdout, new RegExp(`: NOPM ${nopm.value.toFixed(1)}; TPM ${tpm.value.toFixed(1)}; skipped districts 0; checks: all 5 ok$`, 'm'));
  const html = path.join(dir, 'r.html');
  assert.equal((await runCli(['report', out, '-o', html])).code, 0);
  const page = readFileSync(html, 'utf8');
  assert.ok(page.includes(`<div class="value">${nopm.value.toFixed(1)}</div><div class="name">NOPM</div>`), 'NOPM is a headline figure');
  assert.match(page, /<h3>Checks after the run<\/h3>/);
  // The column is there exactly when some New-Orders were rolled back (about 1%).
  if (newOrder.rolledBack! > 0) assert.match(page, /<th[^>]*>rolled back<\/th>/);
  else assert.doesNotMatch(page, /rolled back<\/th>/);

  const driver = createDriver(resolveTarget(db));
  const conn = await driver.connect();
  await conn.query('UPDATE district SET d_ytd = d_ytd + 1 WHERE d_w_id = 1 AND d_id = 3');
  // A delivery counted to a customer with no order leaving the new-orders: only condition 11 sees it.
  await conn.query('UPDATE customer SET c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = 1 AND c_d_id = 5 AND c_id = 7');
  await conn.close();
  await driver.close();
  const check = await runCli(['check', 'tpcc', '--db', db, '--check-all']);
  assert.equal(check.code, 1);
  assert.match(check.stdout, /FAIL {2}condition 9: D_YTD = sum\(H_AMOUNT\): fails for 1 districts; first: warehouse 1 district 3: d_ytd/);
  assert.match(
    check.stdout,
    /FAIL {2}condition 11: count\(ORDER\) - count\(NEW-ORDER\) = 2100 \+ sum\(C_DELIVERY_CNT\): fails for 1 districts; first: warehouse 1 district 5: \d+ orders, \d+ new-orders, sum\(c_delivery_cnt\) \d+/,
  );
  assert.match(check.stdout, /ok {4}condition 5:/, 'the new-orders and carriers still agree: only condition 11 sees the miscount');
  const broken = await runCli(['run', 'tpcc', '--db', db, '-c', '1', '-T', '1', '-P', '0', '-o', out]);
  assert.equal(broken.code, 1, broken.stdout);
  assert.match(broken.stdout, /status: failed \(consistency check failed after the run: condition 1: W_YTD = sum\(D_YTD\)\)/);
  assert.match(broken.stdout, /check FAIL condition 1: W_YTD = sum\(D_YTD\): fails for 1 warehouses; first: warehouse 1: w_ytd/);
  assert.equal((JSON.parse(readFileSync(out, 'utf8')) as RunResult).status, 'failed');
});
