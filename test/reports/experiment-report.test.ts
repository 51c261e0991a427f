import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChartSpec } from '../../src/reports/html/charts.js';
import { runCli } from '../helpers/cli.js';

test("report of experiment files shows each experiment's own table and chart, not ratios between its steps", async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-exreport-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const growth = path.join(dir, 'growth.json');
  const peak = path.join(dir, 'peak.json');
  for (const args of [
    ['experiment', 'growth', '--db', `sqlite:${path.join(dir, 'g.db')}`, '--workload', 'tpcb', '-s', '1,2', '-c', '1', '-T', '1', '-o', growth],
    ['experiment', 'peak', '--db', `sqlite:${path.join(dir, 'p.db')}`, '--queries', '1,2', '-c', '1', '-T', '1', '-o', peak],
  ]) {
    const run = await runCli(args);
    assert.equal(run.code, 0, run.stderr);
  }
  const html = path.join(dir, 'report.html');
  const report = await runCli(['report', growth, peak, '-o', html]);
  assert.equal(report.code, 0, report.stderr);
  const page = readFileSync(html, 'utf8');
  assert.match(page, /<h2>Experiment growth: growth<\/h2>/);
  assert.match(page, /<h2>Experiment peak: peak<\/h2>/);
  // The experiments' own tables, as headroom experiment printed them.
  assert.match(page, /step +scale +size MB +load s +load MB\/s +tps/);
  assert.match(page, /# query +clients +peak q\/s/);
  assert.doesNotMatch(page, /<h2>Comparison<\/h2>/, 'no ratios between the steps of experiments');
  const charts = (JSON.parse(/<script type="application\/json" id="headroom-data">(.*?)<\/script>/s.exec(page)![1]!) as { charts: ChartSpec[] }).charts;
  const sizes = charts.find((c) => c.title === 'Throughput against the data size')!;
  assert.ok(sizes, 'growth: tps against size');
  const rows = (JSON.parse(readFileSync(growth, 'utf8')) as { rows: { tablesBytes: number; tps: number }[] }).rows;
  assert.deepEqual(
    sizes.x,
    rows.map((r) => Math.round((r.tablesBytes / 1048576) * 10) / 10),
  );
  assert.deepEqual(
    sizes.lines[0]!.values,
    rows.map((r) => r.tps),
  );
  const queries = charts.find((c) => c.title === 'Peak queries per second, per query')!;
  assert.deepEqual(queries.categories, ['1 constant', '2 reference']);

  const markdown = await runCli(['report', growth, '--markdown']);
  assert.doesNotMatch(markdown.stdout, /Ratios \(xN\)|\(x\d/);
  assert.match(markdown.stdout, /```\ngrowth of tpcb/);
});
