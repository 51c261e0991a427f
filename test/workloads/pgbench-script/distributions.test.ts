import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluator } from './evaluate.js';

const DRAWS = 20_000;

/** Draws DRAWS values of an expression from one seeded stream: fixed seeds, so the bounds cannot flake. */
function draw(expr: string, seed: number): number[] {
  const next = evaluator(expr, {}, seed);
  return Array.from({ length: DRAWS }, () => Number(next()));
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

test('random(lb, ub): inclusive bounds, every value hit, flat (chi-square within bounds)', () => {
  const xs = draw('random(1, 10)', 7);
  const counts = Array<number>(11).fill(0);
  for (const x of xs) counts[x]!++;
  assert.equal(counts[0], 0);
  assert.ok(Math.min(...counts.slice(1)) > 0);
  const expected = DRAWS / 10;
  const chi2 = counts.slice(1).reduce((s, c) => s + (c - expected) ** 2 / expected, 0);
  assert.ok(chi2 < 27.9, `chi-square ${chi2} (9 degrees of freedom, p = 0.001 bound 27.9)`);
  // Ranges wider than 2^32 and at the int64 edges stay inside their bounds.
  for (const x of draw('random(-4611686018427387903, 4611686018427387903)', 3).slice(0, 100)) assert.ok(Number.isFinite(x));
  assert.deepEqual([...new Set(draw('random(5, 5)', 1))], [5]);
  // As pgbench: a range of 2^63 values or more is refused (its width does not fit in 64 bits).
  assert.throws(() => draw('random(-9223372036854775807, 9223372036854775806)', 3), /random range is too large/);
});

test('random_exponential: in range, mean as the truncated exponential predicts', () => {
  // Over [0, 999] with parameter p: P(x) ~ exp(-p x / 1000); mean = 1000 (1/p - e^-p / (1 - e^-p)) - about 0.5.
  const p = 5;
  const xs = draw(`random_exponential(0, 999, ${p})`, 11);
  assert.ok(xs.every((x) => Number.isInteger(x) && x >= 0 && x <= 999));
  const predicted = 1000 * (1 / p - Math.exp(-p) / (1 - Math.exp(-p))) - 0.5;
  assert.ok(Math.abs(mean(xs) - predicted) < 5, `mean ${mean(xs)} vs ${predicted}`);
  assert.ok(xs.filter((x) => x < 200).length / DRAWS > 0.6, 'pgbench: about 63% of draws fall in the first 1/p of the range');
});

test('random_gaussian: in range, centred, about 68% within one standard deviation', () => {
  // Parameter 4 over [1, 1000]: the range spans ±4 standard deviations, so one sd is 125 values.
  const xs = draw('random_gaussian(1, 1000, 4)', 13);
  assert.ok(xs.every((x) => Number.isInteger(x) && x >= 1 && x <= 1000));
  assert.ok(Math.abs(mean(xs) - 500.5) < 5, `mean ${mean(xs)}`);
  const within = xs.filter((x) => Math.abs(x - 500.5) <= 125).length / DRAWS;
  assert.ok(within > 0.66 && within < 0.7, `within one sd: ${within}`);
});

test('random_zipfian: in range, frequency of k proportional to 1/k^s', () => {
  const s = 1.5;
  const xs = draw(`random_zipfian(1, 100, ${s})`, 17);
  assert.ok(xs.every((x) => Number.isInteger(x) && x >= 1 && x <= 100));
  let norm = 0;
  for (let k = 1; k <= 100; k++) norm += 1 / k ** s;
  for (const k of [1, 2, 3]) {
    const observed = xs.filter((x) => x === k).length / DRAWS;
    const expected = 1 / k ** s / norm;
    assert.ok(Math.abs(observed - expected) < 0.02, `P(${k}) ${observed} vs ${expected}`);
  }
});
