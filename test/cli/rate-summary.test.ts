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

/**
 * The summary of a -R run: the schedule lag's average, p50, p99 and maximum, and one line naming
 * what kept the schedule, the native reactor's timer where the connections ride the reactor (in
 * each worker thread of -j too), Node's timers with HEADROOM_TRANSPORT=node.
 */
test('-R: the summary gives the schedule lag p50, p99 and max, and names the timer that kept the schedule (run and pgbench)', async (t) => {
  if (!loadReactor() && skipOrFail(t, 'the native reactor is not built: npm run build:native (Linux, python3, make, a C compiler)')) return;
  const db = await freshDatabase(t, 'postgres');
  if (!db) return;
  t.after(() => db.dispose());
  const cwd = mkdtempSync(path.join(tmpdir(), 'headroom-rate-summary-'));
  t.after(() => rmSync(cwd, { recursive: true, force: true }));
  const init = await runCli(['init', 'tpcb', '--pgbench', '-s', '1', '--db', db.url], { cwd });
  assert.equal(init.code, 0, init.stderr);

  const run = async (transport: 'native' | 'node', jobs: string): Promise<{ stdout: string; lag: NonNullable<RunResult['summary']['scheduleLagMs']> }> => {
    const out = `result-${transport}.json`;
    const args = ['run', 'tpcb', '-b', 'select-only', '-R', '200', '-c', '2', '-j', jobs, '-T', '2', '-P', '0', '--observe=false', '--db', db.url, '-o', out];
    const result = await runCli(args, { cwd, env: { ...process.env, DATABASE_URL: undefined, HEADROOM_TRANSPORT: transport } });
    assert.equal(result.code, 0, result.stderr);
    const lag = (JSON.parse(readFileSync(path.join(cwd, out), 'utf8')) as RunResult).summary.scheduleLagMs;
    assert.ok(lag, 'a -R run records its schedule lag');
    return { stdout: result.stdout, lag };
  };

  // Two worker threads, each with its own reactor and timer.
  const native = await run('native', '2');
  const figures = /^schedule lag ms: avg (\d+\.\d{3}) p50 (\d+\.\d{3}) p99 (\d+\.\d{3}) max (\d+\.\d{3}) \(latency counts from the scheduled start\)$/m.exec(
    native.stdout,
  );
  assert.ok(figures, `no lag percentiles in:\n${native.stdout}`);
  const [avg, p50, p99, max] = figures.slice(1).map(Number) as [number, number, number, number];
  assert.ok(p50 <= p99 && p99 <= max && avg <= max, figures[0]);
  assert.deepEqual([native.lag.avg, native.lag.p50, native.lag.p99, native.lag.max], [avg, p50, p99, max], 'the line gives the result file figures');
  assert.equal(native.lag.timer, 'reactor');
  assert.match(native.stdout, /^schedule kept by the native reactor's timer \(timerfd, to the microsecond\)$/m);

  const node = await run('node', '1');
  assert.equal(node.lag.timer, 'node');
  assert.match(node.stdout, /^schedule lag ms: avg \d+\.\d{3} p50 \d+\.\d{3} p99 \d+\.\d{3} max \d+\.\d{3} /m);
  assert.match(node.stdout, /^schedule kept by Node's timers \(whole milliseconds: .*HEADROOM_TRANSPORT=node.*\)$/m);
  assert.doesNotMatch(node.stdout, /native reactor's timer \(timerfd/);

  // headroom pgbench prints pgbench's block, and after its lag line one of its own: the
  // percentiles and the timer, which pgbench's block has no room for.
  for (const transport of ['native', 'node'] as const) {
    const args = ['pgbench', '-b', 'select-only', '-R', '200', '-c', '2', '-T', '2', db.url];
    const result = await runCli(args, { cwd, env: { ...process.env, DATABASE_URL: undefined, HEADROOM_TRANSPORT: transport } });
    assert.equal(result.code, 0, result.stderr);
    const lines =
      /^rate limit schedule lag: avg \d+\.\d{3} \(max (\d+\.\d{3})\) ms\nschedule lag percentiles \(headroom\): p50 (\S+) p99 (\S+) max (\S+) ms; schedule kept by (.*)$/m.exec(
        result.stdout,
      );
    assert.ok(lines, `${transport}: no percentiles line after the lag line in:\n${result.stdout}`);
    const [p50, p99, max] = lines.slice(2, 5).map(Number) as [number, number, number];
    assert.ok(p50 <= p99 && p99 <= max && lines[4] === lines[1], lines[0]);
    assert.match(
      lines[5]!,
      transport === 'native'
        ? /^the native reactor's timer \(timerfd, to the microsecond\)$/
        : /^Node's timers \(whole milliseconds: .*HEADROOM_TRANSPORT=node.*\)$/,
    );
  }
});

/**
 * Node's event-loop delay sampler records the time between its timer's calls, its period included
 * (an idle loop read 10.6 ms at Node's 10 ms): the figure a run reports is the lateness beyond it.
 */
test('the event-loop delay of a client that mostly waits is its lateness, not the sampler period', async (t) => {
  const cwd = mkdtempSync(path.join(tmpdir(), 'headroom-loop-delay-'));
  t.after(() => rmSync(cwd, { recursive: true, force: true }));
  const run = await runCli(['run', 'tpcb', '-b', 'select-only', '-R', '20', '-c', '1', '-T', '2', '-P', '0', '--observe=false', '-o', 'r.json'], { cwd });
  assert.equal(run.code, 0, run.stderr);
  const { eventLoopDelayMs } = (JSON.parse(readFileSync(path.join(cwd, 'r.json'), 'utf8')) as RunResult).summary;
  // Read with the period in, the p99 of an idle loop is never below the period (20 ms).
  assert.ok(eventLoopDelayMs.p99 >= 0 && eventLoopDelayMs.p99 < 10, `event-loop delay p99 ${eventLoopDelayMs.p99} ms`);
  assert.ok(eventLoopDelayMs.max >= eventLoopDelayMs.p99);
  assert.match(run.stdout, new RegExp(`event-loop delay p99 ${eventLoopDelayMs.p99.toFixed(3)} ms`));
});
