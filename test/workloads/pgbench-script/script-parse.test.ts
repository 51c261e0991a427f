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
  assert.equal(errorOf('\\set x 1 +\n'), 's.sql:1:11: syntax error in command "set"');
  assert.equal(errorOf('SELECT 1;\n\n  \\set y abs(1, 2)\n'), 's.sql:3:10: unexpected number of arguments (abs) in command "set"');
  assert.equal(errorOf('\\set\n'), 's.sql:1:5: missing argument in command "set"');
  assert.equal(errorOf('\\set z nosuch(1)\n'), 's.sql:1:8: unexpected function name (nosuch) in command "set"');
  assert.equal(errorOf('\\sleep 10 minutes\n'), 's.sql:1:11: unrecognized time unit, must be us, ms or s ("minutes") in command "sleep"');
  assert.equal(errorOf('\\if true\nSELECT 1;\n'), 's.sql:1:1: \\if without matching \\endif');
  assert.equal(errorOf('SELECT 1;\n\\else\n'), 's.sql:2:1: \\else without matching \\if');
  assert.equal(errorOf('\\if true\n\\else\n\\elif false\n\\endif\n'), 's.sql:3:1: \\elif after \\else');
  assert.equal(errorOf('SELECT 1;\n\\gset\n'), 's.sql:2:1: \\gset must follow an SQL command, in place of its semicolon');
  assert.equal(errorOf('\\setshell x\n'), 's.sql:1:1: missing argument in command "setshell"');
  assert.equal(errorOf('\\shell\n'), 's.sql:1:1: missing command in command "shell"');
  assert.equal(errorOf('\\frobnicate\n'), 's.sql:1:1: invalid command in command "frobnicate"');
  assert.equal(errorOf('\\startpipeline\nSELECT 1;\n'), 's.sql:1:1: \\startpipeline without a matching \\endpipeline');
  // A \set continued over two lines: the column is on the second line.
  assert.equal(errorOf('\\set a 1 + \\\n   * 2\n'), 's.sql:2:4: syntax error in command "set"');
});

/*
 * Scripts pgbench 15 refuses (its message in the comment, from `pgbench -n -t 1 -f s.sql`): headroom
 * refuses them too, naming the same problem, when the script is read.
 */
test('what pgbench refuses when it reads a script is refused, naming the same problem', () => {
  // unexpected argument in command "endif" / "else" / "startpipeline" / "endpipeline"
  assert.equal(errorOf('\\if 1\nSELECT 1;\n\\endif foo\n'), 's.sql:3:8: unexpected argument in command "endif"');
  assert.equal(errorOf('\\if 1\nSELECT 1;\n\\else x\n\\endif\n'), 's.sql:3:7: unexpected argument in command "else"');
  assert.equal(errorOf('\\startpipeline x\nSELECT 1;\n\\endpipeline\n'), 's.sql:1:16: unexpected argument in command "startpipeline"');
  assert.equal(errorOf('\\startpipeline\nSELECT 1;\n\\endpipeline y\n'), 's.sql:3:14: unexpected argument in command "endpipeline"');
  // too many arguments in command "sleep"
  assert.equal(errorOf('\\sleep 1 ms extra\n'), 's.sql:1:13: too many arguments in command "sleep" ("extra")');
  // unrecognized time unit, must be us, ms or s (xs); invalid sleep time, must be an integer (abc) / (2ms)
  assert.equal(errorOf('\\sleep 2xs\n'), 's.sql:1:9: unrecognized time unit, must be us, ms or s ("xs") in command "sleep"');
  assert.equal(errorOf('\\sleep abc\n'), 's.sql:1:8: \\sleep: expected an integer or a :variable, not "abc"');
  assert.equal(errorOf('\\sleep 2ms extra\n'), 's.sql:1:8: \\sleep: expected an integer or a :variable, not "2ms"');
  // unexpected number of arguments (abs): the call is checked before the stray parenthesis
  assert.equal(errorOf('\\set x abs(1, 2))\n'), 's.sql:1:8: unexpected number of arguments (abs) in command "set"');
  assert.equal(errorOf('\\set x nosuch(1))\n'), 's.sql:1:8: unexpected function name (nosuch) in command "set"');
  // double constant overflow (1.0E309)
  assert.equal(errorOf('\\set x 1.0E309\n'), 's.sql:1:8: double constant overflow (1.0E309) in command "set"');
});

test("a name that is no variable's is read, and stops the client where pgbench stops it: after the query, or at \\set", () => {
  const failure = (source: string) => compileScript('s.sql', source).steps.map((s) => (s.op === 'fail' ? s.message : s.op));
  assert.deepEqual(failure('SELECT 1 AS "a b" \\gset\n'), ['sql', 'command 0 query 0: error storing into variable a b (gset: invalid variable name: "a b")']);
  assert.deepEqual(failure('SELECT 1 AS a \\aset p-\n'), ['sql', 'command 0 query 0: error storing into variable p-a (aset: invalid variable name: "p-a")']);
  assert.deepEqual(failure('SELECT 2;\nSELECT 1 \\gset\n'), [
    'sql',
    'sql',
    'command 1 query 0: error storing into variable ?column? (gset: invalid variable name: "?column?")',
  ]);
  assert.deepEqual(failure('\\set . 1\n'), ['set: invalid variable name: "."']);
  // pgbench 15 stops the client before it sends a \gset command inside a pipeline.
  assert.deepEqual(failure('\\startpipeline\nSELECT 1 AS a \\gset\n\\endpipeline\n'), [
    'pipeline',
    '\\gset is not allowed in pipeline mode',
    'sql',
    'pipeline',
  ]);
});

test('what pgbench accepts is accepted: a unit attached to the number, a sign, a non-ASCII \\gset name', () => {
  const sleep = (source: string) => compileScript('s.sql', source).steps[0]!;
  const cases = [
    ['\\sleep 2ms\n', 1000],
    ['\\sleep 5us\n', 1],
    ['\\sleep 1s\n', 1_000_000],
    ['\\sleep +3 ms\n', 1000],
    ['\\sleep -3ms\n', 1000],
  ] as const;
  for (const [source, factorUs] of cases) {
    const step = sleep(source);
    assert.ok(step.op === 'sleep' && step.factorUs === factorUs, source);
  }
  const two = sleep('\\sleep 2ms\n');
  assert.equal(two.op === 'sleep' && two.amount({ vars: [], random: undefined as never, command: 0, debug: () => {} }), 2);
  assert.equal(errorOf('SELECT 1 AS "\u00e9t\u00e9" \\gset\nSELECT 1;\n'), 'no error');
});

/*
 * pgbench's variable names (valid_variable_name, parseVariable, exprscan.l): ASCII letters, digits,
 * underscores and any non-ASCII character, not starting with a digit. Checked against pgbench 15:
 * `\set ü 1` and `select :ü` send "select 1"; `select :1a` sends ":1a" as it is; `\set 1a 1`,
 * `\setshell 1a echo 7` and `select 1 as "1a" \gset` stop the client with "invalid variable name".
 */
test('variable names are as pgbench takes them: non-ASCII characters anywhere, no digit first', () => {
  const variables = new Variables();
  const sql = parseSql('select :ü, :é1, :Ω_2, :1a, :x', variables);
  assert.deepEqual(sql.names, ['ü', 'é1', 'Ω_2', 'x']);
  assert.equal(sql.parameterized, 'select ?, ?, ?, :1a, ?');
  const ops = (source: string) => compileScript('s.sql', source).steps.map((s) => (s.op === 'fail' ? s.message : s.op));
  assert.deepEqual(ops('\\set ü 1\n\\set x :ü + 1\n\\sleep :ü ms\n\\setshell ö echo 7\nselect :ü, :x, :ö;\n'), ['set', 'set', 'sleep', 'shell', 'sql']);
  assert.deepEqual(ops('\\set 1a 1\n'), ['set: invalid variable name: "1a"']);
  assert.deepEqual(ops('\\setshell 1a echo 7\n'), ['setshell: invalid variable name: "1a"']);
  assert.deepEqual(ops('select 1 as ü, 2 Ü \\gset\n'), ['sql']);
  assert.deepEqual(ops('select 1 as "1a" \\gset\n'), ['sql', 'command 0 query 0: error storing into variable 1a (gset: invalid variable name: "1a")']);
  // PostgreSQL folds A to Z alone in a UTF-8 database: Ü names its column Ü.
  assert.deepEqual(columnNames('select 1 as ü, 2 Ü, 3 AS Straße, "1a"'), ['ü', 'Ü', 'straße', '1a']);
  assert.equal(errorOf('\\set x ü(1)\n'), 's.sql:1:8: unexpected function name (ü) in command "set"');
});

test('SQL commands: one per semicolon over several lines; quotes, casts and comments keep their colons and semicolons', () => {
  const program = compileScript(
    's.sql',
    "-- a comment line\nSELECT :a,\n  ':b; not a variable', x::int -- :c\nFROM t;\nUPDATE t SET v = $$;:d$$ WHERE k = :k;SELECT 1",
  );
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
  assert.deepEqual(columnNames("SELECT a.abalance, count(*), 1 + 2 AS three, x y, 1 + 2, 7, 's' FROM a"), [
    'abalance',
    'count',
    'three',
    'y',
    undefined,
    '?column?',
    '?column?',
  ]);
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

test('\\; joins queries into one SQL command, sent with plain semicolons, as pgbench sends it; \\gset and \\aset may follow it', () => {
  const program = compileScript('s.sql', "SELECT 1 AS a \\; SELECT ';\\;' AS b \\gset\nSELECT 2;\n\\; \\;\n");
  const sql = program.steps.filter((s) => s.op === 'sql').map((s) => (s.op === 'sql' ? [s.sql.parameterized, s.sql.compound, s.store?.all] : []));
  // The \; inside quotes is text; a command of nothing but separators sends nothing.
  assert.deepEqual(sql, [
    ["SELECT 1 AS a ; SELECT ';\\;' AS b", true, false],
    ['SELECT 2', false, undefined],
  ]);
  // BEGIN joined with another query is no transaction boundary headroom can drive through the driver.
  const joined = compileScript('t.sql', 'BEGIN \\; SELECT 1;\n').steps[0]!;
  assert.equal(joined.op === 'sql' && joined.sql.control, undefined);
});
