import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../helpers/cli.js';

test('compare and report warn when the runs are of different scales or workloads, and not when they are alike', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-unlike-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const runs: Record<string, string[]> = {
    small: ['run', 'tpcb', '--db', `sqlite:${path.join(dir, 'a.db')}`, '-s', '1'],
    large: ['run', 'tpcb', '--db', `sqlite:${path.join(dir, 'b.db')}`, '-s', '2'],
    select: ['run', 'tpcb', '--db', `sqlite:${path.join(dir, 'a.db')}`, '-s', '1', '-b', 'select-only'],
    unsynced: ['run', 'tpcb', '--db', `sqlite:${path.join(dir, 'a.db')}`, '-s', '1', '--set', 'synchronous=OFF'],
  };
  for (const [name, args] of Object.entries(runs)) {
    const run = await runCli([...args, '-c', '1', '-T', '1', '-P', '0', '--out', path.join(dir, `${name}.json`)]);
    assert.equal(run.code, 0, run.stderr);
  }
  const file = (name: string): string => path.join(dir, `${name}.json`);
  copyFileSync(file('small'), file('again'));

  const alike = await runCli(['compare', file('small'), file('again')]);
  assert.equal(alike.code, 0, alike.stderr);
  assert.doesNotMatch(alike.stdout, /warning/);

  const scales = await runCli(['compare', file('small'), file('large')]);
  assert.match(scales.stdout, /^warning: these runs differ in scale \(1: 1, 2: 2\): the ratios compare unlike things$/m);
  const workloads = await runCli(['compare', file('small'), file('select')]);
  assert.match(workloads.stdout, /^warning: these runs differ in workload \(1: tpcb.*, 2: tpcb.*select-only.*\): the ratios compare unlike things$/m);

  const settings = await runCli(['compare', file('small'), file('unsynced')]);
  assert.match(settings.stdout, /^warning: these runs differ in durability \(1: durable, 2: non-durable \(synchronous=OFF\)\), sqlite server settings/m);

  // A run whose client ran under chrt -b 0 beside one that did not; an older file, which recorded no
  // scheduling, beside either is compared without the warning.
  const recorded = JSON.parse(readFileSync(file('small'), 'utf8')) as { summary: { clientCpu: { scheduling?: unknown } } };
  const written = (name: string, scheduling: unknown): string => {
    recorded.summary.clientCpu.scheduling = scheduling;
    writeFileSync(file(name), JSON.stringify(recorded));
    return file(name);
  };
  const plain = written('plain', { policy: 'other', nice: 0 });
  const batched = written('batched', { policy: 'batch', nice: 0 });
  const older = written('older', undefined);
  const scheduled = await runCli(['compare', plain, batched]);
  assert.match(scheduled.stdout, /^warning: these runs differ in client scheduling \(1: default, 2: SCHED_BATCH\): the ratios compare unlike things$/m);
  assert.doesNotMatch((await runCli(['compare', plain, older])).stdout, /warning/);
  assert.doesNotMatch((await runCli(['compare', batched, older])).stdout, /warning/);

  const markdown = await runCli(['report', file('small'), file('large'), '--markdown']);
  assert.match(markdown.stdout, /\*\*warning: these runs differ in scale/);
  const html = path.join(dir, 'report.html');
  const report = await runCli(['report', file('small'), file('large'), '-o', html]);
  assert.equal(report.code, 0, report.stderr);
  assert.match(readFileSync(html, 'utf8'), /<p class="warning">warning: these runs differ in scale \(1: 1, 2: 2\)/);
});
