import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileScript } from '../../../src/workloads/pgbench-script/program.js';
import { parseSql } from '../../../src/workloads/pgbench-script/sql-command.js';
import { columnNames } from '../../../src/workloads/pgbench-script/columns.js';
import { Variables } from '../../../src/workloads/pgbench-script/frame.js';
import { UserError } from '../../../src/errors.js';

function errorOf(source: string): string {
  try {
    compileScript('s.sql', source);
  } catch (e) {
    if (e instanceof UserError) return e.message;
    throw e;
  }
  return 'no error';
}

test('a broken script is one UserError at FILE:LINE:COLUMN saying what was expected', () => {
  assert.equal(errorOf('\\set x 1 +\n'), 's.sql:1:11: \\set: syntax error');
  assert.equal(errorOf('SELECT 1;\n\n  \\set y abs(1, 2)\n'), 's.sql:3:10: \\set: unexpected number of arguments (abs)');
  assert.equal(errorOf('\\set\n'), 's.sql:1:5: \\set: expected a variable name');
  assert.equal(errorOf('\\set z nosuch(1)\n'), 's.sql:1:8: \\set: unexpected function name (nosuch)');
  assert.equal(errorOf('\\sleep 10 minutes\n'), 's.sql:1:11: \\sleep: unknown time unit "minutes"');
  assert.equal(errorOf('\\if true\nSELECT 1;\n'), 's.sql:1:1: \\if without a matching \\endif');
  assert.equal(errorOf('SELECT 1;\n\\else\n'), 's.sql:2:1: \\else without a matching \\if');
  assert.equal(errorOf('\\if true\n\\else\n\\elif false\n\\endif\n'), 's.sql:3:1: \\elif after \\else');
  assert.equal(errorOf('SELECT 1;\n\\gset\n'), 's.sql:2:1: \\gset must follow an SQL command, in place of its semicolon');
  assert.equal(errorOf('\\setshell x echo 1\n'), 's.sql:1:1: \\setshell is not supported: headroom runs no shell commands from scripts');
  assert.equal(errorOf('\\frobnicate\n'), 's.sql:1:1: invalid command \\frobnicate');
  assert.equal(errorOf('\\startpipeline\nSELECT 1;\n'), 's.sql:1:1: \\startpipeline without a matching \\endpipeline');
  // A \set continued over two lines: the column is on the second line.
  assert.equal(errorOf('\\set a 1 + \\\n   * 2\n'), 's.sql:2:4: \\set: syntax error');
});

test('SQL commands: one per semicolon over several lines; quotes, casts and comments keep their colons and semicolons', () => {
  const program = compileScript('s.sql', "-- a comment line\nSELECT :a,\n  ':b; not a variable', x::int -- :c\nFROM t;\nUPDATE t SET v = $$;:d$$ WHERE k = :k;SELECT 1");
  const sql = program.steps.filter((s) => s.op === 'sql').map((s) => (s.op === 'sql' ? s.sql : undefined)!);
  assert.equal(sql.length, 3);
  assert.deepEqual(sql[0]!.names, ['a']);
  assert.equal(sql[0]!.parameterized, "SELECT ?,\n  ':b; not a variable', x::int -- :c\nFROM t");
  assert.deepEqual(sql[1]!.names, ['k']);
  assert.equal(sql[2]!.parameterized, 'SELECT 1');
});

test('transaction words map onto the driver: BEGIN, START TRANSACTION, END, COMMIT, ROLLBACK', () => {
  const control = (text: string) => parseSql(text, new Variables()).control;
  assert.equal(control('BEGIN'), 'begin');
  assert.equal(control('start transaction'), 'begin');
  assert.equal(control('END'), 'commit');
  assert.equal(control('commit work'), 'commit');
  assert.equal(control('ROLLBACK'), 'rollback');
  assert.equal(control('BEGIN ISOLATION LEVEL SERIALIZABLE'), undefined);
  assert.equal(control('ENDX'), undefined);
});

test('\\gset column names come from the select list as PostgreSQL names them', () => {
  assert.deepEqual(columnNames('SELECT abalance FROM pgbench_accounts WHERE aid = ?'), ['abalance']);
  assert.deepEqual(columnNames('SELECT a.abalance, count(*), 1 + 2 AS three, x y, 1 + 2 FROM a'), ['abalance', 'count', 'three', 'y', undefined]);
  assert.deepEqual(columnNames('UPDATE t SET v = v + 1 WHERE k = ? RETURNING v, "Mixed"'), ['v', 'Mixed']);
  assert.deepEqual(columnNames('SELECT coalesce(max(x), 0) AS m, (SELECT 1 FROM u) AS s'), ['m', 's']);
});

test('a script is read-only (for --route) when every SQL command is a plain SELECT', async () => {
  const { BUILTIN_SCRIPTS } = await import('../../../src/workloads/pgbench-script/builtin-scripts.js');
  const readOnly = (name: string): boolean => compileScript(name, BUILTIN_SCRIPTS[name]!).readOnly;
  assert.equal(readOnly('select-only'), true);
  assert.equal(readOnly('tpcb-like'), false);
  assert.equal(readOnly('three-reads'), false);
  assert.equal(compileScript('s', 'BEGIN;\nSELECT 1;\nEND;\n').readOnly, true);
  assert.equal(compileScript('s', 'SELECT abalance FROM pgbench_accounts WHERE aid = 1 FOR UPDATE;\n').readOnly, false);
});
