import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type { RunResult } from '../../src/result/result.js';
import { runCli } from '../helpers/cli.js';
import { allowedCpus } from '../helpers/cpus.js';

/**
 * The result says how long the job thread was ready to run but waited for a CPU while measuring
 * (summary.clientCpu.runQueue, from the kernel's run-queue delay), and the summary gives it as a
 * share of the measured time. A closed-loop SQLite run pinned to one CPU beside a busy loop pinned
 * there too has to share that CPU, so it waits a large part of the time; the same run pinned alone
 * waits far less.
 */
test('the result gives the job thread’s wait for a CPU: large beside a busy loop on its CPU, small without', async (t) => {
  if (!existsSync('/proc/thread-self/schedstat')) {
    t.skip('this kernel keeps no run-queue delay (/proc/thread-self/schedstat)');
    return;
  }
  const cwd = mkdtempSync(path.join(tmpdir(), 'headroom-run-queue-'));
  t.after(() => rmSync(cwd, { recursive: true, force: true }));
  const init = await runCli(['init', '-s', '1'], { cwd });
  assert.equal(init.code, 0, init.stderr);

  // Every thread of the run on one CPU, the first this process may use: the ones node has started
  // by now, and those it starts later inherit it.
  const cpu = String(allowedCpus()[0]);
  const pinned = (pid: number): void => void execFileSync('taskset', ['-a', '-p', '-c', cpu, String(pid)], { stdio: 'ignore' });
  const run = async (out: string): Promise<{ summary: RunResult['summary']; stdout: string }> => {
    const result = await runCli(['run', '-c', '1', '-T', '3', '-P', '0', '-o', out], { cwd, onSpawn: pinned });
    assert.equal(result.code, 0, result.stderr);
    return { summary: (JSON.parse(readFileSync(path.join(cwd, out), 'utf8')) as RunResult).summary, stdout: result.stdout };
  };
  const share = (summary: RunResult['summary']): number => {
    const queue = summary.clientCpu.runQueue;
    assert.ok(queue, 'a run on Linux records its job thread’s wait for a CPU');
    assert.equal(queue.threads, 1);
    return queue.waitedMs / (summary.measuredSeconds * 1000);
  };

  const alone = await run('alone.json');
  const busy = spawn('taskset', ['-c', cpu, process.execPath, '-e', 'for (;;);'], { stdio: 'ignore' });
  t.after(() => busy.kill('SIGKILL'));
  const beside = await run('beside.json');
  busy.kill('SIGKILL');

  const aloneShare = share(alone.summary);
  const besideShare = share(beside.summary);
  t.diagnostic(`waited for a CPU: alone ${(aloneShare * 100).toFixed(1)}%, beside a busy loop ${(besideShare * 100).toFixed(1)}%`);
  // Two runnable threads of equal weight on one CPU: each waits about half the time.
  assert.ok(besideShare > 0.2, `beside a busy loop on its CPU the job thread waited only ${(besideShare * 100).toFixed(1)}% of the time`);
  assert.ok(aloneShare < besideShare / 2, `alone ${(aloneShare * 100).toFixed(1)}%, beside a busy loop ${(besideShare * 100).toFixed(1)}%`);
  assert.match(beside.stdout, /the job thread waited for a CPU \d+\.\d% of the measured time \(\d+ ms\)/);
});
