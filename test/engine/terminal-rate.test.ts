import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { test, type TestContext } from 'node:test';
import type { Connection, Row, Statement } from '../../src/drivers/driver.js';
import { intervalPoint } from '../../src/engine/measurements.js';
import { Arrivals } from '../../src/engine/arrivals.js';
import { StopSignal } from '../../src/engine/stop-signal.js';
import { Terminal } from '../../src/engine/terminal.js';
import { Recorder } from '../../src/metrics/recorder.js';
import type { TransactionType } from '../../src/workloads/workload.js';

/**
 * The terminal loop's --rate path on a clock the test controls: performance.now() reads the test's
 * clock, a sleep moves it forward at once, and each transaction takes the time its script says.
 * The schedule (Poisson gaps from the terminal's seed), the latencies counted from the scheduled
 * start (no coordinated omission), the lag and --latency-limit's skips are then exact figures.
 */

const SEED = 42;
/** performance.now as it was before any test replaced it (an own property or none). */
const REAL_NOW = Object.getOwnPropertyDescriptor(performance, 'now');
const START_MS = 1000;

class Idle implements Connection {
  async prepare(): Promise<Statement> {
    return { run: async () => 1, all: async (): Promise<Row[]> => [] };
  }
  async query(): Promise<Row[]> {
    return [];
  }
  async begin(): Promise<void> {}
  async commit(): Promise<void> {}
  async rollback(): Promise<void> {}
  async bulkInsert(): Promise<number> {
    return 0;
  }
  async close(): Promise<void> {}
}

/** A clock the test moves: sleeps and transactions advance it instead of waiting. */
class Clock {
  now = START_MS;
  /** Sleeps asked for, in milliseconds. */
  readonly sleeps: number[] = [];
}

class ClockStop extends StopSignal {
  constructor(private readonly clock: Clock) {
    super();
  }
  override sleep(ms: number): Promise<void> {
    if (this.stopped || ms <= 0) return Promise.resolve();
    this.clock.sleeps.push(ms);
    this.clock.now += ms;
    return Promise.resolve();
  }
  override until(at: number): Promise<void> {
    return this.sleep(at - this.clock.now);
  }
}

interface Committed {
  latencyUs: number;
  lagUs: number;
  endedAt: number;
}

/** Runs one terminal at `ratePerSecond` whose transactions take `serviceMs[i]` each; records what the Recorder was told. */
async function runRated(t: TestContext, serviceMs: readonly number[], ratePerSecond: number, latencyLimitMs?: number) {
  const clock = new Clock();
  performance.now = () => clock.now;
  t.after(() => {
    if (REAL_NOW) Object.defineProperty(performance, 'now', REAL_NOW);
    else delete (performance as { now?: unknown }).now;
  });
  const starts: number[] = [];
  const script = [...serviceMs];
  const type: TransactionType = {
    name: 'timed',
    weight: 1,
    async prepare() {
      return async () => {
        starts.push(clock.now);
        clock.now += script.shift()!;
        return undefined;
      };
    },
  };
  const recorder = new Recorder(['timed'], latencyLimitMs === undefined ? Infinity : latencyLimitMs * 1000);
  recorder.measuring = true;
  const committed: Committed[] = [];
  let skipped = 0;
  const success = recorder.success.bind(recorder);
  recorder.success = (type, latencyUs, lagUs, tally, endedAt, tries, rolledBack) => {
    committed.push({ latencyUs, lagUs, endedAt });
    success(type, latencyUs, lagUs, tally, endedAt, tries, rolledBack);
  };
  const skip = recorder.skip.bind(recorder);
  recorder.skip = (type) => {
    skipped++;
    skip(type);
  };
  const terminal = new Terminal({
    plan: { id: 0, terminals: 1, seed: SEED, transactions: serviceMs.length, rate: ratePerSecond, maxTries: 1, latencyLimitMs },
    types: [type],
    recorder,
    stop: new ClockStop(clock),
    connection: new Idle(),
    connect: async () => new Idle(),
    blocking: false,
    gate: undefined,
    context: { scale: 1, dbms: 'sqlite', options: {}, protocol: 'prepared', seed: SEED },
    arrivals: new Arrivals(ratePerSecond, SEED),
  });
  await terminal.prepare();
  await terminal.run();
  return { clock, starts, committed, skipped, recorder };
}

/** The scheduled starts the seed gives: START_MS plus the running sum of exponential gaps of mean 1000 / rate. */
function schedule(count: number, ratePerSecond: number): number[] {
  const arrivals = new Arrivals(ratePerSecond, SEED);
  return Array.from({ length: count }, () => arrivals.next(START_MS));
}

const us = (ms: number): number => Math.round(ms * 1000);

test('under --rate each transaction starts at its Poisson schedule, never early, and its latency is its service time when on time', async (t) => {
  // 1 ms transactions at 20/s (gaps of 50 ms on average): most start on time.
  const service = new Array<number>(12).fill(1);
  const { starts, committed, skipped } = await runRated(t, service, 20);
  const planned = schedule(12, 20);
  assert.equal(skipped, 0);
  assert.equal(committed.length, 12);
  let free = START_MS;
  for (let i = 0; i < 12; i++) {
    const start = Math.max(planned[i]!, free);
    assert.ok(Math.abs(starts[i]! - start) < 1e-6, `transaction ${i + 1} started at ${starts[i]}, scheduled ${planned[i]}, free at ${free}`);
    assert.equal(committed[i]!.lagUs, us(start - planned[i]!), `transaction ${i + 1}'s lag`);
    assert.equal(committed[i]!.latencyUs, us(start + 1 - planned[i]!), `transaction ${i + 1}'s latency from its scheduled start`);
    free = start + 1;
  }
  // The first gap is the seed's first draw: nothing starts at the clock's start.
  assert.ok(starts[0]! > START_MS);
});

test('a stall does not move the schedule: the transactions queued behind it count the wait in their latency (no coordinated omission)', async (t) => {
  const planned = schedule(6, 100);
  // The first transaction takes until 30 ms after the fourth's scheduled start; the rest take 2 ms.
  const stall = planned[3]! + 30 - planned[0]!;
  const service = [stall, 2, 2, 2, 2, 2];
  const { starts, committed } = await runRated(t, service, 100);
  const expected: Committed[] = [];
  let free = START_MS;
  for (let i = 0; i < 6; i++) {
    const start = Math.max(planned[i]!, free);
    free = start + service[i]!;
    expected.push({ latencyUs: us(free - planned[i]!), lagUs: us(start - planned[i]!), endedAt: free });
  }
  assert.deepEqual(
    committed.map((c) => [c.latencyUs, c.lagUs]),
    expected.map((c) => [c.latencyUs, c.lagUs]),
  );
  // The second to fourth start back to back at the end of the stall, late by their whole wait.
  assert.ok(Math.abs(starts[1]! - (planned[0]! + stall)) < 1e-6);
  assert.ok(Math.abs(starts[2]! - (starts[1]! + 2)) < 1e-6);
  assert.equal(committed[3]!.lagUs, us(30 + 4), 'the fourth waited out 30 ms of stall and two 2 ms transactions');
  assert.equal(committed[3]!.latencyUs, us(30 + 4 + 2));
  // A closed loop would have measured 2 ms for each of them: the schedule keeps the wait.
  assert.ok(committed.slice(1, 4).every((c) => c.latencyUs > 2000));
});

test('the same seed gives the same schedule whatever the service times', async (t) => {
  const fast = await runRated(t, [1, 1, 1, 1, 1], 50);
  const slow = await runRated(t, [300, 1, 1, 1, 1], 50);
  // Scheduled start = end less latency, to within the latency's rounding to 1 us.
  const scheduled = (run: { committed: Committed[] }): number[] => run.committed.map((c) => c.endedAt - c.latencyUs / 1000);
  const planned = schedule(5, 50);
  for (const run of [fast, slow]) {
    assert.equal(run.committed.length, 5);
    scheduled(run).forEach((ms, i) => assert.ok(Math.abs(ms - planned[i]!) <= 0.0005 + 1e-9, `transaction ${i + 1} scheduled at ${ms}, planned ${planned[i]}`));
  }
  // The slow run's later transactions waited: the same schedule, other latencies.
  assert.ok(slow.committed[1]!.latencyUs > fast.committed[1]!.latencyUs);
});

test('--latency-limit skips the transactions already later than the limit at their turn, without running them', async (t) => {
  const planned = schedule(8, 100);
  // The first transaction stalls until 15 ms past the fifth's scheduled start; the limit is 10 ms.
  const stall = planned[4]! + 15 - planned[0]!;
  const service = [stall, 1, 1, 1, 1, 1, 1, 1];
  const { starts, committed, skipped, recorder } = await runRated(t, service, 100, 10);
  // The terminal's rule replayed: at its turn, a transaction more than 10 ms past its schedule is skipped.
  let now = START_MS;
  const ran: number[] = [];
  let skips = 0;
  for (let i = 0; i < 8; i++) {
    if (now > planned[i]! + 10) {
      skips++;
      continue;
    }
    now = Math.max(now, planned[i]!) + service[ran.length]!;
    ran.push(i);
  }
  assert.ok(skips >= 1, 'the scenario makes at least the second transaction late');
  assert.equal(skipped, skips);
  assert.equal(committed.length + skipped, 8);
  assert.equal(starts.length, committed.length, 'a skipped transaction does not run');
  const totals = recorder.totalsSnapshot().types[0]!;
  assert.equal(totals.skipped, skips);
  assert.equal(totals.count, committed.length);
  assert.equal(totals.late, committed.filter((c) => c.latencyUs > 10_000).length, 'committed later than the limit');
  assert.ok(committed[0]!.latencyUs > 10_000, 'the stalled first one is late');
  // The ones that ran did so within the limit of their schedule (the first apart).
  for (const c of committed.slice(1)) assert.ok(c.lagUs <= 10_000, `lag ${c.lagUs} us`);
});

test('the rated interval point reports the lag and the skips the recorder was given', async (t) => {
  const planned = schedule(4, 100);
  const stall = planned[2]! + 5 - planned[0]!;
  const { committed, recorder } = await runRated(t, [stall, 1, 1, 1], 100);
  const point = intervalPoint([recorder.takeInterval()], 1, 1, 'measure', 0, true);
  const lags = committed.map((c) => c.lagUs);
  assert.equal(point.transactions, 4);
  assert.deepEqual(point.lagMs, {
    avg: Math.round(lags.reduce((a, b) => a + b, 0) / 4) / 1000,
    max: Math.max(...lags) / 1000,
  });
  assert.ok(point.lagMs!.max >= 5, 'the third waited at least 5 ms');
  assert.equal(point.skipped, undefined, 'no --latency-limit: nothing skipped');
});
