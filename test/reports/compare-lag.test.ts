import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RunResult } from '../../src/result/result.js';
import { runCli } from '../helpers/cli.js';

/**
 * headroom compare shows the schedule lag's p99 where a run was paced (-R): whether the client kept
 * the schedule is the first thing to compare between two open-loop runs. A run without -R has none.
 */
test('compare: a lag p99 column where any run was paced, its value from the result, - for a closed-loop run', async (t) => {
  const cwd = mkdtempSync(path.join(tmpdir(), 'headroom-compare-lag-'));
  t.after(() => rmSync(cwd, { recursive: true, force: true }));
  const run = async (out: string, extra: string[]): Promise<RunResult> => {
    const r = await runCli(['run', 'tpcb', '-b', 'select-only', '-c', '1', '-T', '1', '-P', '0', '--observe=false', ...extra, '-o', out], { cwd });
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(readFileSync(path.join(cwd, out), 'utf8')) as RunResult;
  };
  const paced = await run('paced.json', ['-R', '100']);
  const closed = await run('closed.json', []);
  assert.equal(closed.summary.scheduleLagMs, null);

  const both = await runCli(['compare', 'paced.json', 'closed.json'], { cwd });
  assert.equal(both.code, 0, both.stderr);
  // The table's cells line up under the header: the lag column is read where its title starts.
  const lines = both.stdout.split('\n');
  const header = lines.find((l) => l.startsWith('run'))!;
  const at = header.indexOf('lag p99 ms');
  assert.ok(at > 0, `no lag p99 column in ${header}`);
  const cell = (n: string): string =>
    lines
      .find((l) => l.startsWith(`${n} `))!
      .slice(at)
      .trim()
      .split(/\s+/)[0]!;
  assert.equal(cell('1'), paced.summary.scheduleLagMs!.p99!.toFixed(3), both.stdout);
  assert.equal(cell('2'), '-', `the closed-loop run has no lag:\n${both.stdout}`);

  const closedOnly = await runCli(['compare', 'closed.json', 'closed.json'], { cwd });
  assert.equal(closedOnly.code, 0, closedOnly.stderr);
  assert.doesNotMatch(closedOnly.stdout, /lag p99/, 'no column where no run was paced');
});
