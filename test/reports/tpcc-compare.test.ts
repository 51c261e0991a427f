import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RunResult } from '../../src/result/result.js';
import { runCli } from '../helpers/cli.js';

test("tpcc runs: compare and the HTML comparison show NOPM and TPM beside tps; counts print whole; the study's lines stay chain's", async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-tpcc-compare-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const db = `sqlite:${path.join(dir, 'tpcc.db')}`;
  const files = [path.join(dir, 'one.json'), path.join(dir, 'two.json')];
  const outputs: string[] = [];
  for (const [i, file] of files.entries()) {
    const run = await runCli(['run', 'tpcc', '--db', db, '-s', '1', '-c', String(i + 1), '-T', '2', '-P', '0', '--max-tries', '10', '-o', file]);
    assert.equal(run.code, 0, run.stderr);
    outputs.push(run.stdout);
  }
  const results = files.map((file) => JSON.parse(readFileSync(file, 'utf8')) as RunResult);
  const figure = (r: RunResult, name: string): number => r.summary.workloadMetrics!.find((m) => m.name === name)!.value;

  // A count is a count: "skipped districts = 0", not "0.0".
  const skipped = figure(results[0]!, 'skipped districts');
  assert.match(outputs[0]!, new RegExp(`^skipped districts = ${skipped} \\(`, 'm'));
  assert.match(outputs[0]!, new RegExp(`^NOPM = ${figure(results[0]!, 'NOPM').toFixed(1)} \\(`, 'm'));
  // The chain study's Total time and per-terminal lines are not a tpcc run's.
  assert.doesNotMatch(outputs[0]!, /^Total time|^terminal \d+: finished/m);

  const compare = await runCli(['compare', ...files]);
  assert.equal(compare.code, 0, compare.stderr);
  const lines = compare.stdout.split('\n');
  const header = lines
    .find((l) => l.startsWith('run '))!
    .trim()
    .split(/\s{2,}/);
  assert.deepEqual(header.slice(-6), ['NOPM', 'diff', 'ratio', 'TPM', 'diff', 'ratio']);
  const second = lines
    .find((l) => l.startsWith('2 '))!
    .trim()
    .split(/\s+/);
  const [nopm1, nopm2, tpm1, tpm2] = [figure(results[0]!, 'NOPM'), figure(results[1]!, 'NOPM'), figure(results[0]!, 'TPM'), figure(results[1]!, 'TPM')];
  assert.deepEqual(second.slice(-6), [
    nopm2.toFixed(1),
    `${nopm2 - nopm1 >= 0 ? '+' : ''}${(nopm2 - nopm1).toFixed(1)}`,
    `x${(nopm2 / nopm1).toFixed(2)}`,
    tpm2.toFixed(1),
    `${tpm2 - tpm1 >= 0 ? '+' : ''}${(tpm2 - tpm1).toFixed(1)}`,
    `x${(tpm2 / tpm1).toFixed(2)}`,
  ]);
  assert.match(compare.stdout, /lower is better except tps, NOPM, TPM\./);
  assert.doesNotMatch(compare.stdout, /tpmC/);

  const html = path.join(dir, 'report.html');
  const report = await runCli(['report', ...files, '-o', html]);
  assert.equal(report.code, 0, report.stderr);
  const page = readFileSync(html, 'utf8');
  const comparison = /<section class="compare">([\s\S]*?)<\/section>/.exec(page)![1]!;
  assert.match(comparison, /<th[^>]*>NOPM<\/th><th[^>]*>vs first<\/th><th[^>]*>TPM<\/th><th[^>]*>vs first<\/th>/);
  assert.ok(comparison.includes(`>${nopm2.toFixed(1)}<`) && comparison.includes(`x${(nopm2 / nopm1).toFixed(2)}`), 'NOPM of run 2 and its ratio');
  assert.ok(page.includes(`<div class="value">${skipped}</div><div class="name">skipped districts</div>`), 'a whole number in the run section');
});
