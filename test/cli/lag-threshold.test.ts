import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RunResult } from '../../src/result/result.js';
import { THRESHOLD_EXIT_CODE } from '../../src/thresholds/threshold.js';
import { runCli } from '../helpers/cli.js';

/**
 * --threshold on the schedule lag (lag-p50, lag-p99, lag-max): whether a paced run kept its
 * schedule, judged like any threshold; refused before anything runs where there is no -R.
 */
test('--threshold lag-p99 and lag-max judge a paced run on its schedule lag; without -R they are refused', async (t) => {
  const cwd = mkdtempSync(path.join(tmpdir(), 'headroom-lag-threshold-'));
  t.after(() => rmSync(cwd, { recursive: true, force: true }));
  const base = ['run', 'tpcb', '-b', 'select-only', '-c', '1', '-T', '1', '-P', '0', '--observe=false'];

  // The lag is never negative (no transaction starts early): lag-max<0ms cannot pass, lag-p99<60s cannot fail in a 1-s run.
  const run = await runCli([...base, '-R', '100', '--threshold', 'lag-p99<60s', '--threshold', 'lag-max<0ms', '-o', 'r.json'], { cwd });
  assert.equal(run.code, THRESHOLD_EXIT_CODE, run.stderr);
  const result = JSON.parse(readFileSync(path.join(cwd, 'r.json'), 'utf8')) as RunResult;
  const lag = result.summary.scheduleLagMs!;
  assert.deepEqual(
    result.thresholds!.map((o) => [o.threshold, o.ok, o.actual, o.unit]),
    [
      ['lag-p99<60s', true, lag.p99, 'ms'],
      ['lag-max<0ms', false, lag.max, 'ms'],
    ],
  );
  assert.match(run.stdout, /^ {2}pass lag-p99<60s \(measured [\d.]+ ms\)$/m);
  assert.match(run.stdout, /^ {2}FAIL lag-max<0ms \(measured [\d.]+ ms\)$/m);

  const closed = await runCli([...base, '--threshold', 'lag-p99<1ms'], { cwd });
  assert.equal(closed.code, 2, closed.stderr);
  assert.equal(closed.stderr.trim().split('\n').length, 1, closed.stderr);
  assert.match(closed.stderr, /^headroom: --threshold 'lag-p99<1ms': only a run paced with -R has a schedule lag \(add -R TPS/);
});
