import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { test, type TestContext } from 'node:test';
import { Worker } from 'node:worker_threads';
import { NodeWakeTimer, type WakeTimer } from '../../src/common/wake-timer.js';
import { loadReactor, reactorWakeTimer } from '../../src/drivers/transport/native-transport.js';
import { skipOrFail } from '../helpers/skip-or-fail.js';

/**
 * The native reactor's timer, which keeps -R's schedule: never before the time asked, and on a
 * machine with a core to spare within a small fraction of Node's millisecond steps. Only what holds
 * on a busy shared machine is asserted: no wake-up is early, and over many wake-ups taken turn
 * about with Node's timers (so both see the same load) the reactor's median lateness is well under
 * a millisecond and below Node's.
 */

function reactorTimer(t: TestContext): WakeTimer | undefined {
  if (!loadReactor() && skipOrFail(t, 'the native reactor is not built: npm run build:native (Linux, python3, make, a C compiler)')) return undefined;
  const timer = reactorWakeTimer();
  assert.ok(timer, 'the reactor is built, so its timer is there');
  assert.equal(timer.kind, 'reactor');
  return timer;
}

/** How late `timer` woke for `at`, in milliseconds (negative: early). */
async function lateness(timer: WakeTimer, at: number): Promise<number> {
  await new Promise<void>((resolve) => timer.wakeAt(at, resolve));
  return performance.now() - at;
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

test("the reactor's timer never wakes before its time, and its median lateness is well under Node's millisecond steps", async (t) => {
  const reactor = reactorTimer(t);
  if (!reactor) return;
  const node = new NodeWakeTimer();
  const late: Record<'reactor' | 'node', number[]> = { reactor: [], node: [] };
  for (let i = 0; i < 200; i++) {
    // Due times off the millisecond grid, 0.2 to 2.2 ms ahead, as Poisson gaps land.
    const ahead = 0.2 + ((i * 0.618) % 1) * 2;
    late.reactor.push(await lateness(reactor, performance.now() + ahead));
    late.node.push(await lateness(node, performance.now() + ahead));
  }
  for (const [kind, values] of Object.entries(late)) {
    const early = values.filter((v) => v < 0);
    assert.deepEqual(early, [], `${kind}: woken before the time asked`);
  }
  const [reactorMedian, nodeMedian] = [median(late.reactor), median(late.node)];
  const said = `median lateness: reactor ${reactorMedian.toFixed(3)} ms, Node's timers ${nodeMedian.toFixed(3)} ms`;
  assert.ok(reactorMedian < 0.5, said);
  assert.ok(reactorMedian < nodeMedian, said);
});

test("one timer serves many due times at once, each woken at or after its own, and wakeAll() wakes a job's at once, not another's", async (t) => {
  const first = reactorTimer(t);
  if (!first) return;
  const second = reactorWakeTimer()!;
  const start = performance.now();
  const dues = Array.from({ length: 40 }, (_, i) => start + 1 + ((i * 7) % 40) * 0.25);
  const woken = await Promise.all(dues.map((at, i) => lateness(i % 2 === 0 ? first : second, at)));
  assert.deepEqual(
    woken.filter((v) => v < 0),
    [],
    'none before its time',
  );
  // Two jobs' timers share the thread's timerfd: stopping one leaves the other's schedule alone.
  let stopped = false;
  let other = false;
  second.wakeAt(performance.now() + 60_000, () => (stopped = true));
  const kept = new Promise<number>((resolve) => {
    const at = performance.now() + 30;
    first.wakeAt(at, () => {
      other = true;
      resolve(performance.now() - at);
    });
  });
  second.wakeAll();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(stopped, true, 'woken by wakeAll(), a minute early');
  assert.equal(other, false, "the other job's wake-up is still to come");
  assert.ok((await kept) >= 0);
});

test("in a worker thread (-j) the timer is that thread's own reactor's, alongside this thread's", async (t) => {
  const main = reactorTimer(t);
  if (!main) return;
  const module = new URL('../../src/drivers/transport/native-transport.js', import.meta.url).href;
  const source = `
    const { parentPort, workerData } = require('node:worker_threads');
    const { performance } = require('node:perf_hooks');
    import(workerData.module).then(async ({ reactorWakeTimer }) => {
      const timer = reactorWakeTimer();
      const late = [];
      for (let i = 0; i < 50; i++) {
        const at = performance.now() + 0.5 + (i % 5) * 0.3;
        await new Promise((resolve) => timer.wakeAt(at, resolve));
        late.push(performance.now() - at);
      }
      parentPort.postMessage({ kind: timer.kind, late });
    });`;
  const worker = new Worker(source, { eval: true, workerData: { module } });
  t.after(() => worker.terminate());
  const answer = new Promise<{ kind: string; late: number[] }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  const here: number[] = [];
  for (let i = 0; i < 50; i++) here.push(await lateness(main, performance.now() + 0.4 + (i % 3) * 0.5));
  const { kind, late } = await answer;
  assert.equal(kind, 'reactor');
  assert.equal(late.length, 50);
  assert.deepEqual(
    [...late, ...here].filter((v) => v < 0),
    [],
    'none before its time, in either thread',
  );
});

/** Runs `code` (an ES module importing the timer) in a child process; its exit code, output and how long it took. */
function child(code: string): Promise<{ code: number | null; stdout: string; ms: number }> {
  const started = performance.now();
  const run = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  run.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  const killer = setTimeout(() => run.kill(), 20_000);
  return new Promise((resolve) => {
    run.on('close', (exit) => {
      clearTimeout(killer);
      resolve({ code: exit, stdout, ms: performance.now() - started });
    });
  });
}

test('a pending wake-up keeps the process alive as a setTimeout does; with none pending it exits', async (t) => {
  if (!reactorTimer(t)) return;
  const module = new URL('../../src/drivers/transport/native-transport.js', import.meta.url).href;
  const waits = await child(
    `import { reactorWakeTimer } from ${JSON.stringify(module)};
     const timer = reactorWakeTimer();
     timer.wakeAt(performance.now() + 300, () => console.log('woke'));`,
  );
  assert.deepEqual([waits.code, waits.stdout.trim()], [0, 'woke']);
  const stops = await child(
    `import { reactorWakeTimer } from ${JSON.stringify(module)};
     const timer = reactorWakeTimer();
     timer.wakeAt(performance.now() + 60_000, () => console.log('woken by wakeAll'));
     setTimeout(() => timer.wakeAll(), 50);`,
  );
  assert.deepEqual([stops.code, stops.stdout.trim()], [0, 'woken by wakeAll']);
  assert.ok(stops.ms < 15_000, `the process ended once nothing was pending (${Math.round(stops.ms)} ms), not a minute later`);
});
