import { test } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { StopSignal } from '../../src/engine/stop-signal.js';
import { collectGarbage } from '../helpers/collect-garbage.js';

test('a sleep lasts its time, never less, and a stop cuts the longest short', async () => {
  const stop = new StopSignal();
  const started = performance.now();
  await stop.sleep(20);
  assert.ok(performance.now() - started >= 20, `slept ${(performance.now() - started).toFixed(3)} ms of 20`);
  const long = stop.sleep(60_000);
  const stoppedAt = performance.now();
  setTimeout(() => stop.stop(), 10);
  await long;
  assert.ok(performance.now() - stoppedAt < 5_000, 'a sleep of a minute did not end at the stop');
  const started2 = performance.now();
  await stop.sleep(60_000);
  assert.ok(performance.now() - started2 < 1_000, 'a sleep after the stop waited');
});

test('sleeps that have ended leave nothing behind while the run goes on', async () => {
  const stop = new StopSignal();
  await Promise.all(Array.from({ length: 1000 }, () => stop.sleep(1)));
  collectGarbage();
  const before = process.memoryUsage().heapUsed;
  for (let round = 0; round < 10; round++) await Promise.all(Array.from({ length: 5000 }, () => stop.sleep(1)));
  collectGarbage();
  const grownMB = (process.memoryUsage().heapUsed - before) / 1e6;
  // A listener kept per sleep until the stop was about 560 bytes: 28 MB for these 50,000.
  assert.ok(grownMB < 5, `50,000 ended sleeps left the heap ${grownMB.toFixed(1)} MB larger`);
  stop.stop();
});
