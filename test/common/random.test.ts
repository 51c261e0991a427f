import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Random } from '../../src/common/random.js';
import { Deck } from '../../src/engine/deck.js';
import { UserError } from '../../src/errors.js';

test('the same seed gives the same stream; another seed another one', () => {
  const a = new Random(42);
  const b = new Random(42);
  const c = new Random(43);
  const first = Array.from({ length: 5 }, () => a.uint32());
  assert.deepEqual(
    first,
    Array.from({ length: 5 }, () => b.uint32()),
  );
  assert.notDeepEqual(
    first,
    Array.from({ length: 5 }, () => c.uint32()),
  );
});

test('int(min, max) stays inside both bounds and reaches each value about equally often', () => {
  const random = new Random(7);
  const counts = new Map<number, number>();
  const draws = 60_000;
  for (let i = 0; i < draws; i++) {
    const v = random.int(-2, 3);
    assert.ok(v >= -2 && v <= 3 && Number.isInteger(v));
    counts.set(v, (counts.get(v) ?? 0) + 1);
  }
  assert.equal(counts.size, 6);
  for (const n of counts.values()) assert.ok(Math.abs(n - draws / 6) < (draws / 6) * 0.05, `count ${n} is more than 5% off uniform`);
});

test('restore() replays the values drawn after save(), as a retried transaction needs', () => {
  const random = new Random(1);
  random.int(1, 100);
  const state = random.save();
  const firstTry = [random.int(1, 1e6), random.int(1, 1e6)];
  random.restore(state);
  assert.deepEqual([random.int(1, 1e6), random.int(1, 1e6)], firstTry);
});

test('the deck holds the mix exactly over each full deck', () => {
  const deck = new Deck([45, 43, 4, 4, 4], new Random(3));
  const counts = [0, 0, 0, 0, 0];
  for (let i = 0; i < 300; i++) counts[deck.next()]!++;
  assert.deepEqual(counts, [135, 129, 12, 12, 12]);
});

test('a deck of weights that are all zero, or not whole, is refused', () => {
  assert.throws(() => new Deck([0, 0], new Random(1)), UserError);
  assert.throws(() => new Deck([1.5], new Random(1)), UserError);
  assert.equal(new Deck([0, 2], new Random(1)).next(), 1);
});
