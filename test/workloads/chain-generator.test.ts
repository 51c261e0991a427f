import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PRIME, RefGenerator, START_R, distributedStart, mulMod, runStart, shift } from '../../src/workloads/chain/generator.js';
import { chainSizes, parseChainScale } from '../../src/workloads/chain/sizes.js';
import { terminalStart, unitsPerTerminal } from '../../src/workloads/chain/terminal-start.js';
import { UserError } from '../../src/errors.js';

const draw = (generator: RefGenerator, parentCount: number, times: number): number[] => Array.from({ length: times }, () => generator.nextRef(parentCount));

test('the reference generator reproduces every test vector of the spec', () => {
  assert.equal(START_R, Number(11n ** 9n % BigInt(PRIME)));
  assert.deepEqual(draw(new RefGenerator(), 100, 10), [23, 41, 39, 64, 45, 18, 39, 17, 34, 3]);
  assert.deepEqual(draw(new RefGenerator(), 12_500_000, 3), [6181623, 691241, 2797039]);
  assert.deepEqual(draw(new RefGenerator(), 3_333_333, 3), [348329, 691281, 1130420]);
  assert.deepEqual(draw(new RefGenerator(START_R), 3_333_333, 3), [3044424, 348329, 691281]);
  assert.equal(shift(101_010), 611_631_291);
});

test('nextRef never draws 0 or the parent count itself, and refuses a parent count below 2', () => {
  const seen = new Set(draw(new RefGenerator(), 3, 200));
  assert.deepEqual([...seen].sort(), [1, 2]);
  assert.throws(() => new RefGenerator().nextRef(1), RangeError);
});

test('mulMod is exact where the product passes 2^53', () => {
  const a = PRIME - 1;
  assert.equal(mulMod(a, a), 1, '(-1)^2 = 1 mod p');
  assert.equal(mulMod(START_R, 11), new RefGenerator().state);
});

test('distributed terminals start at s_i = s_(i-1) * shift(n); localized ones all at startR', () => {
  const terminal = (index: number) => ({ terminal: index, terminals: 4, transactionsPerTerminal: 25, scale: 0.001 });
  const s1 = mulMod(START_R, shift(25));
  assert.equal(terminalStart('distributed', terminal(0), 0), START_R);
  assert.equal(terminalStart('distributed', terminal(1), 0), s1);
  assert.equal(terminalStart('distributed', terminal(2), 0), mulMod(s1, shift(25)));
  assert.equal(distributedStart(START_R, 3, 25), mulMod(mulMod(s1, shift(25)), shift(25)));
  // A later run starts from shift(existing operations), not from startR.
  assert.equal(runStart(0), START_R);
  assert.equal(terminalStart('distributed', terminal(0), 101_010), 611_631_291);
  for (const index of [0, 1, 3]) assert.equal(terminalStart('localized', terminal(index), 500), START_R);
});

test('units per terminal: -t when given, else one client batch split among the terminals', () => {
  assert.equal(unitsPerTerminal({ scale: 1, terminals: 33, transactionsPerTerminal: 7 }), 7);
  assert.equal(unitsPerTerminal({ scale: 1, terminals: 33, transactionsPerTerminal: undefined }), Math.floor(3_333_333 / 33));
  assert.equal(unitsPerTerminal({ scale: 0.000001, terminals: 150, transactionsPerTerminal: undefined }), 1);
});

test('chain scale: full, fractions and decimals of the study sizes; every table keeps 2 rows', () => {
  assert.equal(parseChainScale('full'), 1);
  assert.equal(parseChainScale('1/1000'), 0.001);
  assert.equal(parseChainScale('0.001'), 0.001);
  for (const bad of ['0', '2', '-1', 'half', '1/0', '']) assert.throws(() => parseChainScale(bad), UserError, bad);
  assert.deepEqual(chainSizes(1), { countries: 100, cities: 5_000, streets: 250_000, addresses: 12_500_000, clientsPerBatch: 3_333_333 });
  assert.deepEqual(chainSizes(0.001), { countries: 2, cities: 5, streets: 250, addresses: 12_500, clientsPerBatch: 3_333 });
  assert.deepEqual(chainSizes(1e-9), { countries: 2, cities: 2, streets: 2, addresses: 2, clientsPerBatch: 2 });
});
