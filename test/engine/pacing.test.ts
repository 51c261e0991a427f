import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pacing } from '../../src/engine/pacing.js';

test('the same seed draws the same arrival gaps, think times and reconnect delays; another seed others', () => {
  const draw = (seed: number): number[][] => {
    const pacing = new Pacing(seed);
    return [
      Array.from({ length: 20 }, () => pacing.arrivalGapMs(10)),
      Array.from({ length: 20 }, () => pacing.thinkMs(12_000)),
      Array.from({ length: 20 }, () => pacing.reconnectDelayMs(100)),
    ];
  };
  assert.deepEqual(draw(5), draw(5));
  assert.notDeepEqual(draw(5)[0], draw(6)[0]);
});

test('one kind of draw does not shift another: a reconnect leaves the arrival schedule as it was', () => {
  const quiet = new Pacing(9);
  const outage = new Pacing(9);
  const gaps = Array.from({ length: 10 }, () => quiet.arrivalGapMs(2.5));
  const withReconnects = Array.from({ length: 10 }, (_, i) => {
    if (i === 4) outage.reconnectDelayMs(100);
    return outage.arrivalGapMs(2.5);
  });
  assert.deepEqual(withReconnects, gaps);
});

test('gaps are exponential with the asked mean; think times stop at 10 means; delays stay within half and one and a half', () => {
  const pacing = new Pacing(1);
  const n = 50_000;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += pacing.arrivalGapMs(4);
  assert.ok(Math.abs(sum / n - 4) < 0.1, `mean gap ${sum / n} ms, not about 4`);
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
