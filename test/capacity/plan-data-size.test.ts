import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { smallDataWarning } from '../../src/capacity/data-size.js';
import { runCli } from '../helpers/cli.js';

test('a chain run far smaller than the business it plans for is said to be so; one near its size is not', () => {
  assert.match(smallDataWarning(1 / 1000, 10_000_000) ?? '', /holds 9,999 clients \(scale 0\.001\), the bank 10,000,000/);
  assert.equal(smallDataWarning(1, 10_000_000), undefined);
  assert.equal(smallDataWarning(1 / 1000, 5_000), undefined);
  assert.match(smallDataWarning(1 / 100, undefined) ?? '', /0\.01 of the study's full size/);
  assert.equal(smallDataWarning(0.5, undefined), undefined);
});

test('headroom plan of a 1/1000 chain run for the 10 M-client bank warns that its data is far smaller', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-plan-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const out = path.join(dir, 'chain.json');
  const run = await runCli(['run', 'chain', '--db', `sqlite:${path.join(dir, 'c.db')}`, '-s', '1/1000', '-c', '1', '-T', '1', '-P', '0', '--out', out]);
  assert.equal(run.code, 0, run.stderr);
  const plan = await runCli(['plan', out]);
  assert.equal(plan.code, 0, plan.stderr);
  assert.match(plan.stdout, /^warning: the run's data holds 9,999 clients \(scale 0\.001\), the bank 10,000,000: .*likely too high/m);
  const small = await runCli(['plan', out, '--clients', '20000']);
  assert.doesNotMatch(small.stdout, /warning/);
});
