import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shapeOf } from '../../../src/workloads/replay/module/shapes.js';
import { statementShape } from '../../../src/workloads/replay/shape.js';

test('a statement logged as text has its literals as ? and their values, signs and all', () => {
  assert.deepEqual(shapeOf({ sql: "UPDATE pgbench_accounts SET abalance = abalance + -2030 WHERE aid = 17 AND note = 'it''s';" }), {
    sql: 'UPDATE pgbench_accounts SET abalance = abalance + ? WHERE aid = ? AND note = ?',
    values: [-2030, 17, "it's"],
  });
  // A minus after a name or a closing bracket subtracts; after an operator or a bracket it is a sign.
  assert.deepEqual(shapeOf({ sql: 'select a - 1, (-2), a*-3, 3.5e-3, 12345678901234567890' }), {
    sql: 'select a - ?, (?), a*?, ?, ?',
    values: [1, -2, -3, '3.5e-3', '12345678901234567890'],
  });
  assert.deepEqual(shapeOf({ sql: '-5' }), { sql: '-?', values: [5] });
});

test('names, quoted names, comments and column positions are not values; white space is one space', () => {
  assert.deepEqual(shapeOf({ sql: 'SELECT x1, "col 2", `t 3` /* 4 */ FROM t5\n\t WHERE y = 6 -- 7\n GROUP BY 1, 2 ORDER BY 2 DESC LIMIT 10' }), {
    sql: 'SELECT x1, "col 2", `t 3` /* 4 */ FROM t5 WHERE y = ? GROUP BY 1, 2 ORDER BY 2 DESC LIMIT ?',
    values: [6, 10],
  });
  // A clause word inside a quoted name is a name: the position after it is still a position.
  assert.deepEqual(shapeOf({ sql: 'SELECT * FROM t ORDER BY "from", 2' }), { sql: 'SELECT * FROM t ORDER BY "from", 2', values: [] });
  assert.deepEqual(shapeOf({ sql: "select 'unterminated" }), { sql: 'select ?', values: ['unterminated'] });
});

test('a statement logged with parameters takes them as its values, in the order its placeholders stand', () => {
  assert.deepEqual(shapeOf({ sql: 'SELECT $2::int, a$1 FROM t WHERE b = $1 AND c = 5', params: ['x', null] }), {
    sql: 'SELECT ?::int, a$1 FROM t WHERE b = ? AND c = 5',
    values: [null, 'x'],
  });
});

test('replay groups one statement however many values its lists hold; a many-row INSERT takes time in proportion to its length', () => {
  assert.equal(statementShape({ sql: 'SELECT * FROM t WHERE id IN (1, 2, 3)' }), 'SELECT * FROM t WHERE id IN (?)');
  assert.equal(statementShape({ sql: 'SELECT * FROM t WHERE id IN (4)' }), 'SELECT * FROM t WHERE id IN (?)');
  const rows = (n: number): string => `INSERT INTO t (a, b, c) VALUES ${Array.from({ length: n }, (_, i) => `(${i}, 'n${i}', -${i})`).join(', ')}`;
  const shaped = shapeOf({ sql: rows(20_000) });
  assert.equal(shaped.values.length, 60_000);
  assert.deepEqual(shaped.values.slice(3, 6), [1, 'n1', -1]);
  // The fastest of three tries at each length: a try the machine took away (other tests run beside
  // this one) would say nothing about shapeOf.
  const time = (n: number): number => {
    const sql = rows(n);
    let fastest = Infinity;
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      shapeOf({ sql });
      fastest = Math.min(fastest, performance.now() - started);
    }
    return fastest;
  };
  time(2_000);
  // Ten times the rows: well under a hundred times the time (a look back over the text built so far
  // at each literal made it grow with the square of the length).
  const small = Math.max(time(2_000), 0.5);
  const large = time(20_000);
  assert.ok(large < small * 40, `2,000 rows ${small.toFixed(1)} ms, 20,000 rows ${large.toFixed(1)} ms`);
});
