import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DbError } from '../../src/drivers/errors.js';
import { intervalPoint, mergeTotals } from '../../src/engine/measurements.js';
import { Histogram, decodeHistogram } from '../../src/metrics/histogram.js';
import { Recorder, wireSnapshot } from '../../src/metrics/recorder.js';

/**
 * The Recorder and the per-interval point from known inputs, no run: latencies under 2048 us are
 * held exactly by the histogram (3 significant digits), so counts, percentiles, averages, lag
 * and failures are exact figures here.
 */

const deadlock = new DbError('retryable', 'deadlock detected', '40P01', undefined, { deadlock: true });
const serialization = new DbError('retryable', 'could not serialize access', '40001', undefined, { deadlock: false });
const lost = new DbError('connection_lost', 'server closed the connection', '57P01', undefined, { deadlock: false });

/** 100, 200, ... 1000 us for type 0; 1500 and 2000 us for type 1, each after `tries`. */
function recorded(measuring: boolean): Recorder {
  const recorder = new Recorder(['a', 'b'], 1200);
  recorder.measuring = measuring;
  const tally = recorder.tally(0);
  for (let i = 1; i <= 10; i++) recorder.success(0, i * 100, i * 10, tally, 1000 + i, i === 3 ? 3 : 1);
  recorder.success(1, 1500, 0, tally, 2000, 2);
  recorder.success(1, 2000, 250, tally, 2001, 1, true);
  recorder.failure(0, deadlock, tally, 2002, 2);
  recorder.failure(1, serialization, tally, 2003);
  recorder.failure(1, lost, tally, 2004);
  recorder.skip(1);
  recorder.skip(1);
  return recorder;
}

test("an interval snapshot counts the interval's transactions, failures, retries, skips and lag, then starts again from zero", () => {
  const recorder = recorded(true);
  const snapshot = recorder.takeInterval();
  assert.deepEqual(
    { ...snapshot, histogram: undefined },
    {
      count: 12,
      failed: 3,
      // Tries beyond the first: 2 (the 3-try commit) + 1 (the 2-try commit) + 1 (the 2-try failure).
      retried: 4,
      transactionsRetried: 3,
      skipped: 2,
      lagSumUs: 550 + 250,
      lagMaxUs: 250,
      histogram: undefined,
    },
  );
  // In its own thread the snapshot holds the recorder's histogram; across a thread, its encoding.
  assert.ok(snapshot.histogram instanceof Histogram);
  const histogram = decodeHistogram(wireSnapshot(snapshot).histogram);
  assert.equal(histogram.totalCount, 12);
  assert.equal(histogram.maxValue, 2000);
  const empty = recorder.takeInterval();
  assert.deepEqual(
    { ...empty, histogram: decodeHistogram(wireSnapshot(empty).histogram).totalCount },
    { count: 0, failed: 0, retried: 0, transactionsRetried: 0, skipped: 0, lagSumUs: 0, lagMaxUs: 0, histogram: 0 },
  );
  // The first interval's histogram is recorded into again from here on, emptied first.
  recorder.success(0, 700, 0, recorder.tally(0), 3000);
  const third = recorder.takeInterval();
  assert.equal(third.histogram, snapshot.histogram, 'the two histograms take turns');
  assert.deepEqual([(third.histogram as Histogram).totalCount, (third.histogram as Histogram).maxValue], [1, 700]);
});

test('the interval point merges the jobs: transactions, tps, failures, exact latency percentiles, lag only when rated', () => {
  const one = new Recorder(['a']);
  const two = new Recorder(['a']);
  const tally = one.tally(0);
  // Job one: 100 ... 1000 us; job two: 1100 ... 2000 us (under 2048: held exactly).
  for (let i = 1; i <= 10; i++) one.success(0, i * 100, i, tally, 0);
  for (let i = 11; i <= 20; i++) two.success(0, i * 100, 2 * i, tally, 0);
  two.failure(0, deadlock, tally, 0, 2);
  two.skip(0);
  // Job one in the engine's thread, job two in a worker thread (its histogram encoded).
  const snapshots = [one.takeInterval(), wireSnapshot(two.takeInterval())];
  const point = intervalPoint(snapshots, 12.34567, 2, 'measure', 45.678, true);
  assert.deepEqual(point, {
    t: 12.346,
    phase: 'measure',
    seconds: 2,
    transactions: 20,
    tps: 10,
    failed: 1,
    retried: 1,
    transactionsRetried: 1,
    skipped: 1,
    // 100 ... 2000 us: mean 1050, population standard deviation 576.6, the 10th of 20 at p50, the 20th at p99.
    latencyMs: { avg: 1.05, stddev: 0.577, p50: 1, p99: 2, max: 2 },
    clientCpuPercent: 45.7,
    // Lag: (1 + ... + 10) + 2 * (11 + ... + 20) = 55 + 310 = 365 us over 20 transactions.
    lagMs: { avg: 0.018, max: 0.04 },
  });
  const closed = intervalPoint([one.takeInterval()], 1, 1, 'warmup', 0, false);
  assert.equal(closed.lagMs, undefined, 'no --rate: no lag');
  assert.equal(closed.skipped, undefined, 'nothing skipped: the field is left out');
  assert.deepEqual([closed.transactions, closed.tps, closed.latencyMs.max], [0, 0, 0]);
});

test('totals keep the measured period only, per type: counts, failures by class, late, retries, rollbacks, the terminal tally', () => {
  const warm = recorded(false).totalsSnapshot();
  assert.deepEqual(
    warm.types.map((t) => [t.count, t.failed, t.skipped, decodeHistogram(t.histogram).totalCount]),
    [
      [0, 0, 0, 0],
      [0, 0, 0, 0],
    ],
  );
  assert.equal(warm.terminals[0]!.transactions, 0);
  assert.deepEqual(warm.errors, [], 'warm-up errors are not sampled');

  const totals = recorded(true).totalsSnapshot();
  const [a, b] = totals.types;
  assert.deepEqual(
    { count: a!.count, failed: a!.failed, retried: a!.retried, transactionsRetried: a!.transactionsRetried, late: a!.late, skipped: a!.skipped },
    { count: 10, failed: 1, retried: 3, transactionsRetried: 2, late: 0, skipped: 0 },
  );
  assert.deepEqual([a!.latencySumUs, a!.latencySumSquaresUs], [5500, 3_850_000]);
  assert.deepEqual([a!.deadlockFailures, a!.serializationFailures, a!.failures.retryable, a!.failures.connection_lost], [1, 0, 1, 0]);
  assert.deepEqual(
    { count: b!.count, failed: b!.failed, late: b!.late, rolledBack: b!.rolledBack, skipped: b!.skipped },
    { count: 2, failed: 2, late: 2, rolledBack: 1, skipped: 2 },
  );
  assert.deepEqual([b!.deadlockFailures, b!.serializationFailures, b!.failures.retryable, b!.failures.connection_lost], [0, 1, 1, 1]);
  assert.equal(decodeHistogram(a!.histogram).getValueAtPercentile(50), 500);
  assert.deepEqual([totals.lagSumUs, totals.lagMaxUs], [800, 250]);
  const terminal = totals.terminals[0]!;
  assert.deepEqual([terminal.transactions, terminal.failed, terminal.latencySumUs, terminal.latencyMaxUs], [12, 3, 5500 + 3500, 2000]);
  assert.deepEqual(
    totals.errors.map((e) => [e.errorClass, e.code, e.count]),
    [
      ['retryable', '40P01', 1],
      ['retryable', '40001', 1],
      ['connection_lost', '57P01', 1],
    ],
  );
  // Two jobs' totals add up exactly.
  const merged = mergeTotals([totals, recorded(true).totalsSnapshot()]);
  assert.deepEqual(
    merged.types.map((t) => [t.count, t.failed, t.histogram.totalCount, t.histogram.maxValue]),
    [
      [20, 2, 20, 1000],
      [4, 4, 4, 2000],
    ],
  );
  assert.deepEqual([merged.failures.retryable, merged.failures.connection_lost, merged.lagSumUs, merged.lagMaxUs], [4, 2, 1600, 250]);
});

test("under --rate the recorder keeps the lag distribution of the measured transactions, and two jobs' merge exactly", () => {
  const rated = (): Recorder => {
    const recorder = new Recorder(['a'], Infinity, undefined, true);
    const tally = recorder.tally(0);
    // Warm-up: not counted.
    recorder.success(0, 5000, 4000, tally, 1);
    recorder.measuring = true;
    for (let i = 1; i <= 100; i++) recorder.success(0, 1000 + i, i * 10, tally, 1 + i);
    return recorder;
  };
  const totals = rated().totalsSnapshot();
  assert.ok(totals.lagHistogram !== undefined);
  const lag = decodeHistogram(totals.lagHistogram);
  assert.deepEqual([lag.totalCount, lag.getValueAtPercentile(50), lag.getValueAtPercentile(99), lag.maxValue], [100, 500, 990, 1000]);
  const merged = mergeTotals([totals, rated().totalsSnapshot()]);
  assert.deepEqual([merged.lag.totalCount, merged.lag.getValueAtPercentile(50), merged.lag.getValueAtPercentile(99)], [200, 500, 990]);
  // A closed loop keeps none (its lag is the gate's wait at most, and no summary shows it).
  assert.equal(recorded(true).totalsSnapshot().lagHistogram, undefined);
  assert.equal(mergeTotals([recorded(true).totalsSnapshot()]).lag.totalCount, 0);
});
