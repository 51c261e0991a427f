import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { runEngine } from '../../src/engine/engine.js';
import type { RunResult } from '../../src/result/result.js';
import { runCli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';
import { engineConfig } from '../helpers/engine-config.js';

/** Fails the test instead of letting a run that never ends hang it. */
function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not end within ${ms} ms`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

test('a worker thread that dies mid-run ends the run: failed, with the error, and what the other job measured', async (t) => {
  const db = await freshDatabase(t, 'sqlite');
  if (!db) return;
  t.after(() => db.dispose());
  // Node announces every worker thread it starts: the test takes the first job's and ends it
  // from outside, as a crash of that thread would, without anything in the engine knowing.
  const workers: Worker[] = [];
  const onWorker = (worker: Worker): void => void workers.push(worker);
  process.on('worker', onWorker);
  t.after(() => process.off('worker', onWorker));
  const config = engineConfig(db.target, 'peak', { options: { query: 'constant', 'join-rows': 1 }, clients: 2, jobs: 2, durationSeconds: 20 });
  const started = performance.now();
  const run = runEngine(config, new AbortController().signal, () => {
    if (workers.length === 2 && performance.now() - started > 1500) void workers.shift()!.terminate();
  });
  const outcome = await within(15_000, 'the run with a dead worker', run);
  assert.ok(performance.now() - started < 10_000, 'the run stopped when the thread died, not at -T 20');
  assert.equal(outcome.status, 'failed');
  assert.match(outcome.jobFailure?.message ?? '', /worker thread ended/);
  assert.equal(outcome.lostJobs, 1);
  const measured = outcome.totals.types.reduce((n, type) => n + type.count, 0);
  assert.ok(measured > 0, 'the surviving job kept its totals');
  assert.deepEqual(
    outcome.totals.terminals.map((terminal) => terminal.terminal),
    [1],
    "the totals hold the surviving job's terminal only",
  );
});

test('a job whose -l file hits a full disk ends the run: exit 1, the result written, the error in it', async (t) => {
  const db = await freshDatabase(t, 'sqlite');
  if (!db) return;
  t.after(() => db.dispose());
  const cwd = mkdtempSync(path.join(tmpdir(), 'headroom-jobfail-'));
  t.after(() => rmSync(cwd, { recursive: true, force: true }));
  const init = await runCli(['init', 'tpcb', '-s', '1', '--db', db.url], { cwd });
  assert.equal(init.code, 0, init.stderr);
  // The second job's log (PREFIX.PID.1) is /dev/full: every write to it fails with ENOSPC, a real
  // full disk. The link is made as the process starts, long before its jobs open their logs.
  const args = [
    'run',
    'tpcb',
    '-b',
    'select-only',
    '-c',
    '2',
    '-j',
    '2',
    '-T',
    '30',
    '-P',
    '0',
    '--observe=false',
    '-l',
    '--log-prefix',
    'txlog',
    '--db',
    db.url,
    '-o',
    'r.json',
  ];
  const started = performance.now();
  const run = await within(
    25_000,
    'the run with a full log disk',
    runCli(args, { cwd, onSpawn: (pid) => symlinkSync('/dev/full', path.join(cwd, `txlog.${pid}.1`)) }),
  );
  assert.equal(run.code, 1, run.stderr);
  assert.ok(performance.now() - started < 20_000, 'stopped when the log failed, not at -T 30');
  const result = JSON.parse(readFileSync(path.join(cwd, 'r.json'), 'utf8')) as RunResult;
  assert.equal(result.status, 'failed');
  assert.match(result.statusReason ?? '', /a job failed mid-run, the run was stopped: writing the transaction log failed: ENOSPC/);
  assert.ok(result.summary.transactions > 0, 'what was measured is in the result');
  // The worker thread stayed alive and gave its totals: both terminals are in them.
  assert.deepEqual(
    result.terminals.map((terminal) => terminal.terminal),
    [0, 1],
  );
  assert.match(run.stdout, /status: failed \(a job failed mid-run/);
});
