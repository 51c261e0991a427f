import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Arrivals } from '../../src/engine/arrivals.js';
import { Pacing } from '../../src/engine/pacing.js';

test('the same seed draws the same arrivals, think times and reconnect delays; another seed others', () => {
  const draw = (seed: number): number[][] => {
    const arrivals = new Arrivals(100, seed);
    const pacing = new Pacing(seed);
    return [
      Array.from({ length: 20 }, () => arrivals.next(0)),
      Array.from({ length: 20 }, () => pacing.thinkMs(12_000)),
      Array.from({ length: 20 }, () => pacing.reconnectDelayMs(100)),
    ];
  };
  assert.deepEqual(draw(5), draw(5));
  for (const kind of [0, 1, 2]) assert.notDeepEqual(draw(5)[kind], draw(6)[kind]);
});

test('one kind of draw does not shift another: reconnect delays leave the think times as they were', () => {
  const quiet = new Pacing(9);
  const outage = new Pacing(9);
  const thinks = Array.from({ length: 10 }, () => quiet.thinkMs(2.5));
  const withReconnects = Array.from({ length: 10 }, (_, i) => {
    if (i === 4) outage.reconnectDelayMs(100);
    return outage.thinkMs(2.5);
  });
  assert.deepEqual(withReconnects, thinks);
});

test("arrivals are a Poisson stream at the asked rate from the first caller's time; dueBefore takes what is left before the stop, once", () => {
  const arrivals = new Arrivals(250, 1);
  const n = 50_000;
  const first = arrivals.next(1000);
  assert.ok(first > 1000, `the first arrival ${first} comes after the start`);
  let last = first;
  for (let i = 1; i < n; i++) {
    // Later callers' clocks do not move the stream: it runs on its own gaps.
    const next = arrivals.next(0);
    assert.ok(next >= last, `arrival ${i} at ${next} before the one before it (${last})`);
    last = next;
  }
  const meanGap = (last - 1000) / n;
  assert.ok(Math.abs(meanGap - 4) < 0.1, `mean gap ${meanGap} ms, not about 4 (250 per second)`);
  const due = [...arrivals.dueBefore(last + 1000)];
  assert.ok(due.length > 200 && due.length < 300, `${due.length} arrivals left in a second at 250 per second`);
  assert.ok(
    due.every((at, i) => at > (due[i - 1] ?? last) && at < last + 1000),
    'in order, after the last taken, before the stop',
  );
  assert.deepEqual([...arrivals.dueBefore(last + 5000)], [], 'taken once');
  assert.deepEqual([...new Arrivals(250, 1).dueBefore(10)], [], 'a stream nobody took from has nothing due');
});

test('think times stop at 10 means; delays stay within half and one and a half', () => {
  const pacing = new Pacing(1);
  const n = 50_000;
  for (let i = 0; i < n; i++) {
    const think = pacing.thinkMs(1);
    assert.ok(think >= 0 && think <= 10, `think ${think}`);
    const delay = pacing.reconnectDelayMs(100);
    assert.ok(delay >= 50 && delay < 150, `delay ${delay}`);
  }
});

/** Every .ts file under dir. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sources(full) : entry.name.endsWith('.ts') ? [full] : [];
  });
}

test('no run-time draw escapes --seed: src/ has no Math.random()', () => {
  // The tests run from dist/test/engine; the TypeScript sources are three levels up.
  const src = fileURLToPath(new URL('../../../src', import.meta.url));
  const files = sources(src);
  assert.ok(files.length > 50, `the sources are found in ${src}`);
  const users = files.filter((file) => readFileSync(file, 'utf8').includes('Math.random('));
  assert.deepEqual(
    users.map((f) => path.relative(src, f)),
    [],
  );
});
