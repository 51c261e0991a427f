import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RunResult } from '../../src/result/result.js';
import { runCli } from '../helpers/cli.js';

/** The starter module (`headroom new workload`), its demand rewritten: 8:2 weights, so an event of 4 transfers and 1 balance is its mix. */
async function module(dir: string, demand: string): Promise<string> {
  const made = await runCli(['new', 'workload', 'mini', '-o', path.join(dir, 'mini.ts')]);
  assert.equal(made.code, 0, made.stderr);
  const file = path.join(dir, 'mini.ts');
  const text = readFileSync(file, 'utf8');
  assert.match(text, /weight: 8,[\s\S]*weight: 2,/);
  const rewritten = text.replace(/demand: \{[^}]*\}[^}]*\},/, `demand: ${demand},`);
  assert.notEqual(rewritten, text);
  writeFileSync(file, rewritten);
  return file;
}

test("plan of a module run: a mix in the demand's ratios is measured, not estimated; data far smaller than the demand's is warned of; machines say what they assume", async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-plan-events-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = await module(dir, "{ event: 'payment', transactionsPerEvent: { transfer: 4, balance: 1 }, eventsPerDay: 5_000_000, peakFactor: 4, scale: 100 }");
  const out = path.join(dir, 'mini.json');
  const run = await runCli(['run', file, '--db', `sqlite:${path.join(dir, 'm.db')}`, '-c', '2', '-t', '50', '-P', '0', '-o', out], { cwd: dir });
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(readFileSync(out, 'utf8')) as RunResult;

  const plan = await runCli(['plan', out], { cwd: dir });
  assert.equal(plan.code, 0, plan.stderr);
  const tps = result.transactions.reduce((sum, type) => sum + type.tps, 0);
  const perSecond = (tps / 5).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  assert.match(
    plan.stdout,
    new RegExp(
      `^one payment costs 4 transfer \\+ 1 balance: ${perSecond} payments/s measured \\(the run's mix is in the demand's ratios: measured as it ran, not estimated\\)$`,
      'm',
    ),
  );
  assert.doesNotMatch(plan.stdout, /estimated:/);
  assert.match(
    plan.stdout,
    /^warning: the run's data is at scale 1, the business's at 100: .*likely too high; measure at a scale nearer the business's \(-s\)$/m,
  );
  assert.match(plan.stdout, /^machines assume reads and writes both scale out over them .*caps the writes at [\d,.]+ payments\/s \(one machine at 70%\)/m);
  // Near the business's size: no warning; --demand-scale stands for a demand without one.
  const near = await runCli(['plan', out, '--demand-scale', '5'], { cwd: dir });
  assert.doesNotMatch(near.stdout, /warning/);

  // Another mix than the demand's: still the re-weighed estimate.
  writeFileSync(file, readFileSync(file, 'utf8').replace('transfer: 4, balance: 1', 'transfer: 1, balance: 2'));
  const other = path.join(dir, 'other.json');
  const again = await runCli(['run', file, '--db', `sqlite:${path.join(dir, 'm.db')}`, '-c', '2', '-t', '50', '-P', '0', '-o', other], { cwd: dir });
  assert.equal(again.code, 0, again.stderr);
  const estimated = await runCli(['plan', other], { cwd: dir });
  assert.match(estimated.stdout, /\(estimated: the run's types weighed by their average latency/);
});

test('plan --preset bank states its peak factor', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-plan-bank-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const out = path.join(dir, 'chain.json');
  const run = await runCli(['run', 'chain', '--db', `sqlite:${path.join(dir, 'c.db')}`, '-s', '1/5000', '-c', '1', '-t', '20', '-P', '0', '--out', out]);
  assert.equal(run.code, 0, run.stderr);
  const bank = await runCli(['plan', out, '--preset', 'bank']);
  assert.equal(bank.code, 0, bank.stderr);
  assert.match(
    bank.stdout,
    /^required: 231\.5 units\/s \(bank: 10,000,000 clients x 2 operations a day, spread evenly over 24 hours; peak factor 1: the average is the peak/m,
  );
  assert.match(bank.stdout, /^machines assume reads and writes both scale out/m);
  const peak = await runCli(['plan', out, '--peak-factor', '3']);
  assert.match(peak.stdout, /^required: 231\.5 units\/s \(bank: .*; peak factor 3 \(--peak-factor\)\)$/m);
  const refused = await runCli(['plan', out, '--demand-scale', '2']);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /--demand-scale applies to plans in events/);
});
