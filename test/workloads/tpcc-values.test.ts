import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Random } from '../../src/common/random.js';
import { NURAND_A, drawConstants, lastName, nurand, validRunDelta } from '../../src/workloads/tpcc/random-values.js';
import { Decimals, format, parse } from '../../src/workloads/tpcc/decimal.js';
import { homeOf } from '../../src/workloads/tpcc/terminal-home.js';
import { tpccMetrics } from '../../src/workloads/tpcc/metrics.js';
import { tpcc } from '../../src/workloads/tpcc/index.js';

test('tpcc: last names are built from the three digits, syllable by syllable (clause 4.3.2.3)', () => {
  assert.equal(lastName(0), 'BARBARBAR');
  assert.equal(lastName(371), 'PRICALLYOUGHT');
  assert.equal(lastName(999), 'EINGEINGEING');
  assert.equal(new Set(Array.from({ length: 1000 }, (_, i) => lastName(i))).size, 1000);
});

test('tpcc: NURand stays in [x, y] and is non-uniform: the OR of two draws favours some values', () => {
  const random = new Random(3);
  const counts = new Array<number>(1000).fill(0);
  for (let i = 0; i < 200_000; i++) {
    const v = nurand(random, NURAND_A.lastName, 0, 999, 123);
    assert.ok(v >= 0 && v <= 999);
    counts[v]!++;
  }
  const sorted = [...counts].sort((a, b) => b - a);
  // Uniform would give about 200 each; NURand's most frequent values come up several times as often as its rarest.
  assert.ok(sorted[0]! > 3 * sorted[999]!, `max ${sorted[0]}, min ${sorted[999]}`);
  const ids = new Random(4);
  for (let i = 0; i < 10_000; i++) {
    const id = nurand(ids, NURAND_A.customerId, 1, 3000, 77);
    assert.ok(id >= 1 && id <= 3000);
  }
});

test('tpcc: C_RUN differs from C_LOAD by 65..119, never 96 or 112 (clause 2.1.6.1)', () => {
  assert.equal(validRunDelta(100, 165), true);
  assert.equal(validRunDelta(100, 196), false);
  assert.equal(validRunDelta(100, 212), false);
  assert.equal(validRunDelta(200, 100), true);
  assert.equal(validRunDelta(100, 164), false);
  for (let seed = 0; seed < 200; seed++) {
    const c = drawConstants(new Random(seed));
    assert.ok(validRunDelta(c.lastNameLoad, c.lastNameRun), JSON.stringify(c));
    assert.ok(c.customerId >= 0 && c.customerId <= 1023 && c.itemId >= 0 && c.itemId <= 8191);
  }
});

test('tpcc: decimals travel as exact scaled bigints, never floats', () => {
  assert.equal(parse('300000.00', 2), 30_000_000n);
  assert.equal(parse('-10.5', 2), -1050n);
  assert.equal(parse('0.2', 4), 2000n);
  assert.equal(format(-1050n, 2), '-10.50');
  assert.equal(format(5n, 2), '0.05');
  assert.equal(format(2000n, 4), '0.2000');
  assert.throws(() => parse('1.234', 2), /more than 2 decimals/);
  // 0.1 + 0.2 in floats is 0.30000000000000004; in units it is exact.
  assert.equal(parse('0.1', 2) + parse('0.2', 2), parse('0.3', 2));
  assert.equal(new Decimals('postgres').param(1234n, 2), '12.34');
  assert.equal(new Decimals('sqlite').param(1234n, 2), 1234n);
  assert.equal(new Decimals('firebird').read(12.34, 2), 1234n);
  assert.equal(new Decimals('mariadb').read('-10.00', 2), -1000n);
  assert.equal(new Decimals('sqlite').read(-1000, 2), -1000n);
});

test('tpcc: terminal i is bound to warehouse i mod W + 1 and a district of its own', () => {
  assert.deepEqual(homeOf(0, 2), { warehouse: 1, district: 1 });
  assert.deepEqual(homeOf(1, 2), { warehouse: 2, district: 1 });
  assert.deepEqual(homeOf(2, 2), { warehouse: 1, district: 2 });
  const pairs = new Set(Array.from({ length: 20 }, (_, i) => JSON.stringify(homeOf(i, 2))));
  assert.equal(pairs.size, 20, '20 terminals on 2 warehouses take 20 distinct (warehouse, district) pairs');
});

test('tpcc: NOPM counts committed New-Orders per minute, TPM all committed transactions', () => {
  const metrics = tpccMetrics(
    [
      { name: 'new-order', count: 450, rolledBack: 5 },
      { name: 'payment', count: 430, rolledBack: 0 },
      { name: 'order-status', count: 40, rolledBack: 0 },
    ],
    30,
  );
  assert.deepEqual(
    metrics.map((m) => [m.name, m.value]),
    [
      ['NOPM', 890],
      ['TPM', 1830],
    ],
  );
});

test('tpcc: skipped districts are reported per run, and flagged when more than 1% of the Delivery transactions (clause 2.7.4.2)', () => {
  const skips = (districts: number, deliveries: number) =>
    tpccMetrics([{ name: 'delivery', count: 300, rolledBack: 0, counters: { skippedDistricts: districts, deliveriesWithSkips: deliveries } }], 60).find(
      (m) => m.name === 'skipped districts',
    )!;
  const none = tpccMetrics([{ name: 'delivery', count: 300, rolledBack: 0 }], 60).find((m) => m.name === 'skipped districts')!;
  assert.equal(none.value, 0);
  assert.equal(none.description, 'Delivery districts without a new-order to deliver (2.7.4.2), in 0 of 300 Delivery transactions (0.0%)');
  assert.equal(skips(3, 2).value, 3);
  assert.doesNotMatch(skips(3, 2).description, /reported/, '3 districts are 1% of 300 Delivery transactions, not more');
  assert.equal(
    skips(4, 2).description,
    'Delivery districts without a new-order to deliver (2.7.4.2), in 2 of 300 Delivery transactions (0.7%); more than 1% of the Delivery transactions: 2.7.4.2 asks for this to be reported',
  );
});

test('tpcc: the mix is 45/43/4/4/4; --keying-thinking adds the pauses of clause 5.2.5.7', () => {
  const plain = tpcc.transactions({});
  assert.deepEqual(
    plain.map((t) => [t.name, t.weight]),
    [
      ['new-order', 45],
      ['payment', 43],
      ['order-status', 4],
      ['delivery', 4],
      ['stock-level', 4],
    ],
  );
  assert.ok(plain.every((t) => t.pauses === undefined));
  const paused = tpcc.transactions({ 'keying-thinking': true });
  assert.deepEqual(paused[0]!.pauses, { keyingMs: 18_000, thinkMeanMs: 12_000 });
  assert.deepEqual(paused[3]!.pauses, { keyingMs: 2_000, thinkMeanMs: 5_000 });
});
