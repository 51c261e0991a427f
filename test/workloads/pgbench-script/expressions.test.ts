import { test } from 'node:test';
import assert from 'node:assert/strict';
import { show } from './evaluate.js';
import { ScriptError } from '../../../src/workloads/pgbench-script/value.js';
import { ExprSyntaxError } from '../../../src/workloads/pgbench-script/expr-parser.js';

/*
 * Expected values are pgbench 15's own: each expression was run as `\set a debug(EXPR)` in a
 * script with `pgbench -n -t 1 -f script.sql` against PostgreSQL 15 on this project's test
 * server, and the debug line ("int 6", "double 2.5", ...) copied here.
 */
const PGBENCH_15: [string, string][] = [
  ['hash(0, 0)', 'int 8217090173679840641'],
  ['hash(1, 0)', 'int -8089716718896805586'],
  ['hash(-1, 5432)', 'int 3202824124722859978'],
  ['hash_murmur2(123456789, 42)', 'int -6824048790355813029'],
  ['hash_fnv1a(0, 0)', 'int -6284781860667377211'],
  ['hash_fnv1a(1, 0)', 'int -8517097267634966620'],
  ['hash_fnv1a(-7, 5432)', 'int 4710772833293368819'],
  ['hash_fnv1a(123456789, 42)', 'int -1441609354036786589'],
  ['permute(0, 10, 1)', 'int 5'],
  ['permute(1, 10, 1)', 'int 6'],
  ['permute(9, 10, 1)', 'int 0'],
  ['permute(12345, 100000, 5432)', 'int 83861'],
  ['permute(7, 1000000007, -3)', 'int 237993241'],
  ['permute(-3, 17, 99)', 'int 14'],
  ['permute(3, 1, 99)', 'int 0'],
  ['5 / 2.0', 'double 2.5'],
  ['int(5.5)', 'int 6'],
  ['int(4.5)', 'int 4'],
  ['-7 / 2', 'int -3'],
  ['-7 % 3', 'int -1'],
  ['1 + 2 * 3 & 6', 'int 6'],
  ['greatest(1, 2.5, 2)', 'double 2.5'],
  ['least(3, 1, 2)', 'int 1'],
  ['pow(2, 10)', 'double 1024'],
  ['1 < 2 AND NULL', 'null'],
  ['NULL OR 1 = 1', 'null'],
  ['CASE WHEN 1 > 2 THEN 1 WHEN 2 > 1 THEN 2.0 ELSE 3 END', 'double 2'],
  ['7 # 3', 'int 4'],
  ['~5', 'int -6'],
  ['1 << 62', 'int 4611686018427387904'],
  ['-9223372036854775808', 'int -9223372036854775808'],
  ['sqrt(2)', 'double 1.4142135623731'],
  ['pi()', 'double 3.14159265358979'],
  ['1.0 / 3', 'double 0.333333333333333'],
  ['1e300 * 1e10', 'double Infinity'],
  ['NULL IS NULL', 'boolean true'],
  ['5 NOTNULL', 'boolean true'],
  ['abs(-5.5)', 'double 5.5'],
  ['mod(-7, 3)', 'int -1'],
  ['double(3)', 'double 3'],
  ['exp(1)', 'double 2.71828182845905'],
  ['ln(10)', 'double 2.30258509299405'],
  ['2 = 2.0', 'boolean true'],
  ['NOT true', 'boolean false'],
  ['123456789012 * 1000', 'int 123456789012000'],
  ['1 + NULL', 'null'],
  ['CASE WHEN 0.5 THEN 1 ELSE 2 END', 'int 1'],
  ['NULL AND 1.0', 'null'],
  ['false AND 1.0', 'boolean false'],
  ['true OR 1', 'boolean true'],
  [`greatest(${Array.from({ length: 16 }, (_, i) => i).join(', ')})`, 'int 15'],
];

test('expressions give pgbench 15 its own results, types included', () => {
  for (const [expr, expected] of PGBENCH_15) assert.equal(show(expr), expected, expr);
});

test('precedence: * over +, + over bit operators, comparisons over NOT, NOT over AND over OR', () => {
  assert.equal(show('2 + 3 * 4'), 'int 14');
  assert.equal(show('(2 + 3) * 4'), 'int 20');
  assert.equal(show('1 | 2 + 4'), 'int 7');
  assert.equal(show('8 >> 1 + 1'), 'int 2');
  assert.equal(show('NOT 1 = 2'), 'boolean true');
  assert.equal(show('true OR false AND false'), 'boolean true');
  assert.equal(show('- - 3'), 'int 3');
  assert.equal(show('10 - 2 - 3'), 'int 5');
  assert.equal(show('2 * 3 % 4'), 'int 2');
});

test('variables: :name reads the client variable; text from -D is read as pgbench reads it', () => {
  assert.equal(show(':x * 2', { x: 21 }), 'int 42');
  assert.equal(show(':x + 1', { x: '41' }), 'int 42');
  assert.equal(show(':x + 1', { x: '1.5' }), 'double 2.5');
  assert.equal(show(':x AND true', { x: 'yes' }), 'boolean true');
  assert.equal(show(':x IS NULL', { x: 'null' }), 'boolean true');
  // pgbench 15 with -D default_seed=5: hash(1) is hash(1, 5); after \set default_seed 7, hash(1, 7).
  assert.equal(show('hash(1)', { default_seed: '5' }), 'int 3896754574207142840');
  assert.equal(show('hash_fnv1a(1) = hash_fnv1a(1, 7) AND permute(3, 10) = permute(3, 10, 7)', { default_seed: 7 }), 'boolean true');
  // pgbench 15: -D x=abc and \set y :x + 1 give `malformed variable "x" value: "abc"`.
  assert.throws(
    () => show(':x + 1', { x: 'abc' }),
    (e: unknown) => e instanceof ScriptError && e.message === 'malformed variable "x" value: "abc"',
  );
});

/** Messages as pgbench 15 prints them for the same expressions (copied from its output). */
const RUNTIME_ERRORS: [string, string][] = [
  ['1/0', 'division by zero'],
  ['1 % 0', 'division by zero'],
  ['9223372036854775807 + 1', 'bigint add out of range'],
  ['-9223372036854775808 - 1', 'bigint sub out of range'],
  ['9223372036854775807 * 2', 'bigint mul out of range'],
  ['(-9223372036854775808) / -1', 'bigint div out of range'],
  ['random(5, 1)', 'empty range given to random'],
  ['random_exponential(1, 10, 0)', 'exponential parameter must be greater than zero (not 0.000000)'],
  ['random_gaussian(1, 10, 1.5)', 'gaussian parameter must be at least 2.000000 (not 1.500000)'],
  ['random_zipfian(1, 10, 1)', 'zipfian parameter must be in range [1.001, 1000] (not 1.000000)'],
  ['random_zipfian(1, 10, 1001)', 'zipfian parameter must be in range [1.001, 1000] (not 1001.000000)'],
  [':nope + 1', 'undefined variable "nope"'],
  ['int(1e30)', 'double to int overflow for 1000000000000000019884624838656.000000'],
  ['true + 1', 'cannot coerce boolean to int'],
  ['permute(1, 0)', 'permute size parameter must be greater than zero'],
  // AND, OR and NOT take booleans only (CASE WHEN and \if read numbers as true when not zero).
  ['NOT 0.0', 'cannot coerce double to boolean'],
  ['NOT 0', 'cannot coerce int to boolean'],
  ['1 AND NULL', 'cannot coerce int to boolean'],
  ['true AND 1.0', 'cannot coerce double to boolean'],
  ['0.0 OR true', 'cannot coerce double to boolean'],
  [`least(${Array.from({ length: 17 }, (_, i) => i).join(', ')})`, 'too many function arguments, maximum is 16'],
];

test("runtime errors abort the client with pgbench's messages", () => {
  for (const [expr, message] of RUNTIME_ERRORS) {
    assert.throws(
      () => show(expr),
      (e: unknown) => e instanceof ScriptError && e.message === message && e.errorClass === 'bad_request',
      expr,
    );
  }
  // One deliberate difference: pgbench 15 answers abs(-9223372036854775808) with the same negative
  // number (its C negation wraps); headroom reports the overflow as it does for + - * /.
  assert.throws(() => show('abs(-9223372036854775808)'), /bigint abs out of range/);
  // Double division by zero is no error in pgbench: it gives an infinity.
  assert.equal(show('1.0 / 0'), 'double Infinity');
});

test('syntax errors carry the column where pgbench points', () => {
  const at = (expr: string): [string, number] => {
    try {
      show(expr);
    } catch (e) {
      if (e instanceof ExprSyntaxError) return [e.message, e.at];
      throw e;
    }
    return ['no error', -1];
  };
  assert.deepEqual(at('1 +'), ['syntax error', 3]);
  assert.deepEqual(at('abs(1, 2)'), ['unexpected number of arguments (abs)', 0]);
  assert.deepEqual(at('foo(1)'), ['unexpected function name (foo)', 0]);
  assert.deepEqual(at("1 + 'x'"), ["unexpected character (')", 4]);
  assert.deepEqual(at('1 < 2 < 3'), ['syntax error', 6]);
  assert.deepEqual(at('CASE WHEN true THEN 1'), ['syntax error: expected END', 21]);
  // Constants out of range are refused when the script is read, as pgbench 15 does (its message names the constant).
  assert.deepEqual(at('1 + 1.0E309'), ['double constant overflow (1.0E309)', 4]);
  assert.deepEqual(at('1e-400'), ['double constant overflow (1e-400)', 0]);
  assert.deepEqual(at('1e-310'), ['double constant overflow (1e-310)', 0]);
  assert.deepEqual(at('99999999999999999999'), ['bigint constant overflow (99999999999999999999)', 0]);
  assert.equal(show('2.5e-308'), 'double 2.5e-308');
  assert.equal(show('0.0e-999'), 'double 0');
});
