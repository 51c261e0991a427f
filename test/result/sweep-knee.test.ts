import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kneeOf, type KneePoint } from '../../src/result/sweep.js';

const points = (rows: [number, number, number][], whole: (c: number) => boolean = () => true): KneePoint[] =>
  rows.map(([clients, tps, p99]) => ({ clients, tps, p99, whole: whole(clients) }));

test('the knee is the last step of the leading stretch that paid for its added terminals', () => {
  // Multiplicative: 1 -> 2 adds 80% tps (pays), 2 -> 4 adds 44% for +100% (pays, >= 25%), 4 -> 8 adds 8% (does not).
  assert.equal(
    kneeOf(
      points([
        [1, 500, 2],
        [2, 900, 2.2],
        [4, 1300, 3],
        [8, 1400, 6],
        [16, 1400, 12],
      ]),
    ),
    4,
  );
  // Additive: 20 adds 67% for +100%; 30 adds 20% for +50% (pays: 20 >= 12.5); 40 adds 6.7% for +33% (does not).
  assert.equal(
    kneeOf(
      points([
        [10, 300, 40],
        [20, 500, 45],
        [30, 600, 55],
        [40, 640, 70],
        [50, 650, 90],
      ]),
    ),
    30,
  );
  // 100 -> 110 terminals can add at most ~10% tps: 5% still pays (>= 2.5%), which a flat 10% rule would miss.
  assert.equal(
    kneeOf(
      points([
        [90, 900, 10],
        [100, 1000, 10],
        [110, 1050, 10.5],
        [120, 1055, 12],
      ]),
    ),
    110,
  );
});

test('a p99 that grows faster than the terminals ends the stretch even while tps still rises', () => {
  // 20 -> 40: tps +40% (pays on tps) but p99 x3 for x2 terminals.
  assert.equal(
    kneeOf(
      points([
        [10, 100, 5],
        [20, 190, 6],
        [40, 266, 18],
        [80, 300, 40],
      ]),
    ),
    20,
  );
});

test('no knee: too few steps, or still scaling at the last step', () => {
  assert.equal(kneeOf(points([[10, 100, 5]])), null);
  assert.equal(kneeOf([]), null);
  assert.equal(
    kneeOf(
      points([
        [1, 100, 1],
        [2, 200, 1],
        [4, 390, 1.1],
      ]),
    ),
    null,
  );
});

test('a step that did not complete or lost connections ends the stretch before it', () => {
  assert.equal(
    kneeOf(
      points(
        [
          [1, 100, 1],
          [2, 200, 1],
          [4, 400, 1],
        ],
        (c) => c !== 4,
      ),
    ),
    2,
  );
  assert.equal(
    kneeOf(
      points(
        [
          [1, 100, 1],
          [2, 200, 1],
        ],
        (c) => c !== 1,
      ),
    ),
    null,
  );
  // tps that fell is no gain.
  assert.equal(
    kneeOf(
      points([
        [1, 100, 1],
        [2, 90, 2],
      ]),
    ),
    1,
  );
});
