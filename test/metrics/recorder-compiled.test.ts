import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

/*
 * The recorder runs inside the terminal loop's compiled code (V8 inlines it there), and whatever
 * makes V8 throw that code away mid-run costs the client a recompile of the whole loop: 50-170 ms
 * of CPU on a 2-core machine shared with the server, each time. These are the three found in
 * every run traced (see common/double-zero.ts): a sum outgrowing a small integer, a squared latency
 * overflowing an integer multiply, and the first per-second reset of a figure that had not
 * changed. The child below compiles a transaction's recording with V8's test functions and checks
 * after each of them that the compiled code is still the one in use.
 */
const RECORDER = new URL('../../src/metrics/recorder.js', import.meta.url).href;

const CHILD = `
const { Recorder } = await import(${JSON.stringify(RECORDER)});
const recorder = new Recorder(['t'], Infinity, undefined, false);
recorder.measuring = true;
const tallies = [recorder.tally(0), recorder.tally(1)];
let now = 0.5;
function commit(latencyUs, tally) {
  now += 0.25;
  recorder.success(0, latencyUs, 0, tally, now, 1, false);
}
const compiled = () => (%GetOptimizationStatus(commit) & 16) !== 0;
%PrepareFunctionForOptimization(commit);
// As the first second of a closed-loop run: latencies from 0.1 to 20 ms, no lag, no interval yet.
let seed = 12345;
for (let i = 0; i < 3000; i++) {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  commit(100 + (seed % 20000), tallies[i % 2]);
}
%OptimizeFunctionOnNextCall(commit);
commit(300, tallies[0]);
const kept = { compiled: compiled() };
recorder.takeInterval();
for (let i = 0; i < 10; i++) commit(301 + i * 37, tallies[i % 2]);
kept.afterInterval = compiled();
commit(47_000, tallies[0]);
kept.afterSquareOutgrowsInt32 = compiled();
// 150,000 transactions of 30 ms: the run's and each terminal's latency sums pass 2^31.
kept.afterSumsOutgrowInt32 = true;
for (let i = 0; i < 150_000 && kept.afterSumsOutgrowInt32; i++) {
  commit(30_000, tallies[i % 2]);
  kept.afterSumsOutgrowInt32 = compiled();
}
console.log(JSON.stringify(kept));
`;

test("a transaction's recording stays compiled through the interval reset, a 47 ms latency and sums past 2^31", () => {
  const child = spawnSync(process.execPath, ['--allow-natives-syntax', '--no-concurrent-recompilation', '--input-type=module', '-e', CHILD], {
    encoding: 'utf8',
  });
  assert.equal(child.status, 0, child.stderr);
  assert.deepEqual(JSON.parse(child.stdout), {
    compiled: true,
    afterInterval: true,
    afterSquareOutgrowsInt32: true,
    afterSumsOutgrowInt32: true,
  });
});
