import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RunResult } from '../../src/result/result.js';
import { FAITHFUL_PHASES } from '../../src/workloads/chain/load-faithful.js';
import { runCli } from '../helpers/cli.js';

test('run chain -s 1/5000 --load faithful records the phases and load mode; plan reads the result', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-chain-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const out = path.join(dir, 'r.json');
  const run = await runCli([
    'run',
    'chain',
    '--db',
    `sqlite:${path.join(dir, 'c.db')}`,
    '-s',
    '1/5000',
    '--load',
    'faithful',
    '-c',
    '2',
    '-t',
    '40',
    '-P',
    '0',
    '-o',
    out,
  ]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /data: faithful load, by this run/);
  const [, total, perTr, perSec] = /Total time: (\d+) ms = ([\d.]+) ms\/tr = ([\d.]+) tr\/sec/.exec(run.stdout) ?? [];
  assert.ok(total !== undefined, run.stdout);
  assert.ok(Math.abs(Number(perTr) - Number(total) / 80) < 0.01, `${perTr} ms/tr over 80 units in ${total} ms`);
  // The printed total is whole milliseconds: at a few tens of them its rounding alone moves tr/sec by up to 1/total.
  assert.ok(Math.abs(Number(perSec) - 80 / (Number(total) / 1000)) < 0.2 + Number(perSec) * (0.01 + 1 / Number(total)), `${perSec} tr/sec`);
  assert.match(run.stderr, /Altering table: /);
  const result = JSON.parse(readFileSync(out, 'utf8')) as RunResult;
  assert.equal(result.config.scale, 0.0002);
  assert.equal(result.data.loadMode, 'faithful');
  assert.deepEqual(
    result.data.phases.map((p) => p.name),
    [...FAITHFUL_PHASES],
  );
  assert.equal(result.summary.transactions, 80);

  const plan = await runCli(['plan', out, '--preset', 'shop', '--peak-factor', '2', '--target-utilisation', '0.5']);
  assert.equal(plan.code, 0, plan.stderr);
  assert.match(plan.stdout, /required: 6,048\.0 units\/s \(shop: 27 orders\/s of 3 items; peak factor 2 \(--peak-factor\)\)/);
  const machines = Math.max(1, Math.ceil((6_048 * 2) / (result.summary.tps * 0.5)));
  assert.match(plan.stdout, new RegExp(`machines at 50% utilisation: ${machines}\\n`));
  assert.match(plan.stdout, new RegExp(`headroom: ${(result.summary.tps / 6_048).toFixed(2)}x`));

  const wrongScale = await runCli(['run', 'chain', '--db', `sqlite:${path.join(dir, 'c.db')}`, '-s', 'half', '-t', '1']);
  assert.equal(wrongScale.code, 2);
  assert.match(wrongScale.stderr, /^headroom: --scale "half" is not a chain scale/);
});
