import assert from 'node:assert/strict';
import test from 'node:test';
import { eventCapacity } from '../../src/capacity/event-demand.js';
import { UserError } from '../../src/errors.js';
import type { RunResult } from '../../src/result/result.js';
import { evaluateThresholds, parseThreshold, thresholdLines } from '../../src/thresholds/threshold.js';

const latency = (p99: number) => ({ avg: p99 / 2, stddev: 0, p50: p99 / 3, p95: p99 * 0.9, p99, p99_9: p99 * 1.1, max: p99 * 2 });

test('thresholds: the documented forms parse, units convert, and each is judged on the run or its type', () => {
  assert.deepEqual(parseThreshold('p99<50ms'), { text: 'p99<50ms', type: undefined, metric: 'p99', op: '<', limit: 50, percent: false });
  assert.equal(parseThreshold('p95 <= 0.5s').limit, 500);
  assert.deepEqual(parseThreshold('new-order:p95<20ms').type, 'new-order');
  assert.equal(parseThreshold('failed<0.1%').percent, true);
  for (const bad of ['p99<<5', 'p98<5ms', 'tps>5ms', 'p99<5%', 'tps>1000%', '', 'failed<']) assert.throws(() => parseThreshold(bad), UserError, bad);
  const result = {
    summary: { transactions: 998, failed: 2, retried: 0, tps: 1200, latencyMs: latency(40) },
    transactions: [{ name: 'book', count: 498, failed: 2, retried: 5, tps: 600, latencyMs: latency(80) }],
  } as unknown as RunResult;
  const judged = evaluateThresholds(
    ['p99<50ms', 'tps>1000', 'failed<0.1%', 'failed<=0.2%', 'book:p99<50ms', 'book:retried<=5', 'cancel:tps>0'].map(parseThreshold),
    result,
  );
  assert.deepEqual(
    judged.map((j) => j.ok),
    [true, true, false, true, false, true, false],
  );
  assert.equal(judged[2]!.actual, 0.2);
  assert.equal(judged[2]!.unit, '%');
  assert.ok(Number.isNaN(judged[6]!.actual), 'a type that did not run has no figure and fails');
});

test('lag thresholds: whole-run only, a time, judged on the schedule lag; a run without one fails them', () => {
  assert.deepEqual(parseThreshold('lag-p99<1ms'), { text: 'lag-p99<1ms', type: undefined, metric: 'lag-p99', op: '<', limit: 1, percent: false });
  assert.equal(parseThreshold('lag-max <= 0.5s').limit, 500);
  assert.equal(parseThreshold('lag-p50<0.25').limit, 0.25);
  for (const bad of ['book:lag-p99<1ms', 'lag-p99<1%', 'lag-p90<1ms', 'lag<1ms']) assert.throws(() => parseThreshold(bad), UserError, bad);
  assert.throws(() => parseThreshold('book:lag-p99<1ms'), /whole run, not per transaction type/);
  const run = (scheduleLagMs: unknown): RunResult =>
    ({ summary: { transactions: 100, failed: 0, retried: 0, tps: 100, latencyMs: latency(2), scheduleLagMs }, transactions: [] }) as unknown as RunResult;
  const lags = ['lag-p50<0.1ms', 'lag-p99<0.5ms', 'lag-max<=3ms', 'lag-p99>=0.4ms'].map(parseThreshold);
  const paced = evaluateThresholds(lags, run({ avg: 0.1, p50: 0.08, p99: 0.4, max: 3, timer: 'reactor' }));
  assert.deepEqual(
    paced.map((j) => [j.ok, j.actual, j.unit]),
    [
      [true, 0.08, 'ms'],
      [true, 0.4, 'ms'],
      [true, 3, 'ms'],
      [true, 0.4, 'ms'],
    ],
  );
  // Not the latency's figures: a p99 of 0.4 ms lag against a latency p99 of 2 ms.
  assert.equal(evaluateThresholds([parseThreshold('lag-p99<1ms')], run({ avg: 0.1, p50: 0.08, p99: 0.4, max: 3 }))[0]!.ok, true);
  const unpaced = evaluateThresholds(lags, run(null));
  assert.ok(
    unpaced.every((j) => !j.ok && Number.isNaN(j.actual)),
    'a closed-loop result has no lag: every lag threshold fails',
  );
  assert.match(thresholdLines(unpaced)[1]!, /FAIL lag-p50<0\.1ms \(measured nothing: no transaction ran on a schedule\)/);
  // A type that never ran is told apart from a lag by the threshold's metric, not its first word.
  const absent = evaluateThresholds([parseThreshold('lag-check:p99<1ms')], run(null));
  assert.match(thresholdLines(absent)[1]!, /FAIL lag-check:p99<1ms \(measured nothing: the type did not run\)/);
});

test('event capacity: a cost of the mix divides tps; per-type costs weigh each type by its latency', () => {
  const run = {
    tps: 300,
    types: [
      { name: 'read', tps: 200, latencyMs: { avg: 1 } },
      { name: 'write', tps: 100, latencyMs: { avg: 8 } },
    ],
  };
  const mix = eventCapacity(8_640_000, 3, run);
  assert.equal(mix.requiredEventsPerSecond, 100);
  assert.equal(mix.measuredEventsPerSecond, 100);
  assert.equal(mix.estimated, false);
  // Busy terminal time: 200 x 1 + 100 x 8 = 1000 ms per second; an event of 4 reads and 1 write takes 12 ms of it.
  const perType = eventCapacity(86_400, { read: 4, write: 1 }, run);
  assert.equal(perType.measuredEventsPerSecond, 1000 / 12);
  assert.equal(perType.estimated, true);
});
