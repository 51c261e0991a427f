import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadReactor } from '../../src/drivers/transport/native-transport.js';
import type { RunResult } from '../../src/result/result.js';
import { runCli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';
import { skipOrFail } from '../helpers/skip-or-fail.js';

/** Events an auto reactor handles before its first trial has ended: four epochs left out, four tried (spin.c). */
const FIRST_TRIAL_EVENTS = 8 * 2048;

/**
 * The result says how the client waited between answers (summary.clientCpu.waits): the mode
 * HEADROOM_SPIN asked for, and in auto the trials of polling against sleeping that ended during the
 * run, every worker thread's added up; nothing where no connection rode the reactor.
 */
test('the result records how the native reactor waited: auto with its trials, off, and nothing on Node sockets', async (t) => {
  if (!loadReactor() && skipOrFail(t, 'the native reactor is not built: npm run build:native (Linux, python3, make, a C compiler)')) return;
  const db = await freshDatabase(t, 'postgres');
  if (!db) return;
  t.after(() => db.dispose());
  const cwd = mkdtempSync(path.join(tmpdir(), 'headroom-reactor-waits-'));
  t.after(() => rmSync(cwd, { recursive: true, force: true }));
  const init = await runCli(['init', 'tpcb', '--pgbench', '-s', '1', '--db', db.url], { cwd });
  assert.equal(init.code, 0, init.stderr);

  const run = async (env: Record<string, string>, jobs: string): Promise<RunResult['summary']> => {
    const out = `result-${Object.values(env).join('-')}-${jobs}.json`;
    const args = ['run', 'tpcb', '-b', 'select-only', '-c', '4', '-j', jobs, '-T', '3', '-P', '0', '--observe=false', '--db', db.url, '-o', out];
    const result = await runCli(args, { cwd, env: { ...process.env, DATABASE_URL: undefined, ...env } });
    assert.equal(result.code, 0, result.stderr);
    return (JSON.parse(readFileSync(path.join(cwd, out), 'utf8')) as RunResult).summary;
  };

  // Two worker threads, each with its reactor and its own trials.
  const auto = await run({ HEADROOM_TRANSPORT: 'native', HEADROOM_SPIN: 'auto' }, '2');
  const waits = auto.clientCpu.waits;
  t.diagnostic(`auto: ${auto.transactions} transactions, ${JSON.stringify(waits)}`);
  assert.ok(waits, 'a run on the reactor records its waits');
  assert.equal(waits.mode, 'auto');
  assert.ok(Number.isInteger(waits.trials) && waits.pollingWon >= 0 && waits.pollingWon <= waits.trials, JSON.stringify(waits));
  // Every answer is at least one event: a job that answered this many had ended a trial.
  if (auto.transactions >= 2 * (FIRST_TRIAL_EVENTS + 1000))
    assert.ok(waits.trials >= 1, `${auto.transactions} transactions and no trial: ${JSON.stringify(waits)}`);

  const off = await run({ HEADROOM_TRANSPORT: 'native', HEADROOM_SPIN: 'off' }, '1');
  assert.deepEqual(off.clientCpu.waits, { mode: 'off', trials: 0, pollingWon: 0 });

  const node = await run({ HEADROOM_TRANSPORT: 'node', HEADROOM_SPIN: 'auto' }, '1');
  assert.equal(node.clientCpu.transport, 'node');
  assert.equal(node.clientCpu.waits, undefined, 'no connection rode the reactor');
});
