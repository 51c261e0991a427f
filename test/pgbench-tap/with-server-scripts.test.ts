import { EMPTY, tapCases, tapServer, type TapCase } from './harness.js';

/**
 * 001_pgbench_with_server.pl's script cases: seeded random draws and debug(), backslash commands,
 * \gset and \aset, pipelines, and the list of script errors (status 1: refused on reading, stdout
 * empty; status 2: the client aborted, "processed: 0/1"). The tables the scripts read are made by
 * the first case (pgbench -i).
 */
const SETUP: TapCase[] = [{ name: 'initialization for the scripts', args: '-i -q', status: 0, stdout: [EMPTY], stderr: [/done in /] }];

const SCRIPT_CASES: TapCase[] = [
  {
    name: 'seeded random draws and debug()',
    args: '--random-seed=5432 -t 1 -Dfoo=-10.1',
    status: 0,
    stdout: [/type: .*\/001_pgbench_expressions/, /processed: 1\/1/],
    // The first draws of client 0 for seed 5432, as the TAP test gives them.
    stderr: [
      /setting random seed to 5432\b/,
      /command=1.: int 17\b/,
      /command=2.: int 104\b/,
      /command=3.: int 1498\b/,
      /command=4.: int 3\b/,
      /command=5.: double -27\b/,
      /command=6.: int 5432\b/,
    ],
    files: {
      '001_pgbench_expressions':
        '\\set i1 debug(random(10, 19))\n\\set i2 debug(random_exponential(100, 199, 10.0))\n\\set i3 debug(random_gaussian(1000, 1999, 10.0))\n' +
        '\\set id debug(random_zipfian(1, 9, 1.3))\n\\set p debug(pow(-3,3))\n\\set rs debug(:random_seed)\nSELECT 1;\n',
    },
  },
  {
    name: 'backslash commands',
    args: '-t 1',
    status: 0,
    stdout: [/type: .*\/001_pgbench_backslash_commands/, /processed: 1\/1/, /shell-echo-output/],
    stderr: [/command=8.: int 1\b/],
    files: {
      '001_pgbench_backslash_commands':
        '-- run set\n\\set zero 0\n\\set one 1.0\n-- sleep\n\\sleep :one ms\n\\sleep 100 us\n\\sleep 0 s\n\\sleep :zero\n-- setshell and continuation\n' +
        '\\setshell another_one\\\n  echo \\\n    :one\n\\set n debug(:another_one)\n-- shell\n\\shell echo shell-echo-output\n',
    },
  },
  {
    name: 'working \\gset',
    args: '-t 1',
    status: 0,
    stdout: [/type: .*\/001_pgbench_gset/, /processed: 1\/1/],
    stderr: [/command=3.: int 0\b/, /command=5.: int 1\b/, /command=6.: int 2\b/, /command=8.: int 3\b/, /command=10.: int 4\b/, /command=12.: int 5\b/],
    files: {
      '001_pgbench_gset':
        '-- no columns\nSELECT \\gset\n-- one value\nSELECT 0 AS i0 \\gset\n\\set i debug(:i0)\n' +
        '-- two values\nSELECT 1 AS i1, 2 AS i2 \\gset\n\\set i debug(:i1)\n' +
        '\\set i debug(:i2)\n-- with prefix\nSELECT 3 AS i3 \\gset x_\n\\set i debug(:x_i3)\n-- overwrite existing variable\nSELECT 0 AS i4, 4 AS i4 \\gset\n' +
        '\\set i debug(:i4)\n-- work on the last SQL command under \\;\n\\; \\; SELECT 0 AS i5 \\; SELECT 5 AS i5 \\; \\; \\gset\n\\set i debug(:i5)\n',
    },
  },
  {
    name: '\\gset with two rows',
    args: '-t 1',
    status: 2,
    stdout: [/type: .*\/001_pgbench_gset_two_rows/, /processed: 0\/1/],
    stderr: [/expected one row, got 2\b/],
    files: { '001_pgbench_gset_two_rows': '\nSELECT 5432 AS fail UNION SELECT 5433 ORDER BY 1 \\gset\n' },
  },
  {
    name: 'working \\aset',
    args: '-t 1',
    status: 0,
    stdout: [/type: .*\/001_pgbench_aset/, /processed: 1\/1/],
    stderr: [/command=3.: int 8\b/, /command=4.: int 7\b/],
    files: {
      '001_pgbench_aset':
        '\n\\; SELECT 6 AS i6 \\; SELECT 7 AS i7 \\; \\aset\n' +
        'SELECT 8 AS i6 UNION SELECT 9 ORDER BY 1 DESC \\aset\n\\set i debug(:i6)\n\\set i debug(:i7)\n',
    },
  },
  {
    name: 'working \\startpipeline',
    args: '-t 1 -n -M extended',
    status: 0,
    stdout: [/type: .*\/001_pgbench_pipeline/, /actually processed: 1\/1/],
    stderr: [],
    files: { '001_pgbench_pipeline': `\n\\startpipeline\n${'select 1;\n'.repeat(10)}\n\\endpipeline\n` },
  },
  {
    name: 'working \\startpipeline, prepared',
    args: '-t 1 -n -M prepared',
    status: 0,
    stdout: [/type: .*\/001_pgbench_pipeline_prep/, /actually processed: 1\/1/],
    stderr: [],
    files: { '001_pgbench_pipeline_prep': `\n\\startpipeline\n${'select 1;\n'.repeat(10)}\n\\endpipeline\n` },
  },
  {
    name: 'working \\startpipeline with serializable',
    args: '-c4 -j2 -t 10 -n -M prepared',
    status: 0,
    stdout: [/type: .*\/001_pgbench_pipeline_serializable/, /actually processed: (\d+)\/\1/],
    stderr: [],
    files: {
      '001_pgbench_pipeline_serializable': `\n\\startpipeline\nBEGIN ISOLATION LEVEL SERIALIZABLE;\n${'select 1;\n'.repeat(10)}\nEND;\n\\endpipeline\n`,
    },
  },
  {
    name: '\\gset in a pipeline',
    args: '-t 1 -n -M extended',
    status: 2,
    stdout: [],
    stderr: [/gset is not allowed in pipeline mode/],
    files: { '001_pgbench_pipeline_4': '\n\\startpipeline\nselect 1 \\gset f\n\\endpipeline\n' },
  },
];

/** The error list: [name, status, stderr patterns, script]; run with pgbench's -D set and -M prepared. */
const ERRORS: [string, number, RegExp[], string, string?][] = [
  ['sql syntax error', 2, [/ERROR: {2}syntax error/, /prepared statement .* does not exist/], '-- SQL syntax error\n    SELECT 1 + ;\n'],
  [
    'sql too many args',
    1,
    [/statement has too many arguments.*\b255\b/],
    `-- MAX_ARGS=256 for prepared\n\\set i 0\nSELECT LEAST(${Array(256).fill(':i').join(', ')})`,
  ],
  ['shell bad command', 2, [/\(shell\) .* meta-command failed/], '\\shell no-such-command'],
  ['shell undefined variable', 2, [/undefined variable ":nosuchvariable"/], '-- undefined variable in shell\n\\shell echo ::foo :nosuchvariable\n'],
  ['shell missing command', 1, [/missing command /], '\\shell'],
  ['shell too many args', 1, [/too many arguments in command "shell"/], `-- 256 arguments to \\shell\n\\shell echo ${Array(255).fill('arg').join(' ')}`],
  ['set syntax error', 1, [/syntax error in command "set"/], '\\set i 1 +'],
  ['set no such function', 1, [/unexpected function name/], '\\set i noSuchFunction()'],
  ['set invalid variable name', 2, [/invalid variable name/], '\\set . 1'],
  ['set division by zero', 2, [/division by zero/], '\\set i 1/0'],
  ['set undefined variable', 2, [/undefined variable "nosuchvariable"/], '\\set i :nosuchvariable'],
  ['set unexpected char', 1, [/unexpected character .;./], '\\set i ;'],
  ['set too many args', 2, [/too many function arguments/], '\\set i least(0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16)'],
  ['set empty random range', 2, [/empty range given to random/], '\\set i random(5,3)'],
  ['set random range too large', 2, [/random range is too large/], '\\set i random(:minint, :maxint)'],
  ['set gaussian param too small', 2, [/gaussian param.* at least 2/], '\\set i random_gaussian(0, 10, 1.0)'],
  ['set exponential param greater 0', 2, [/exponential parameter must be greater /], '\\set i random_exponential(0, 10, 0.0)'],
  ['set zipfian param to 1', 2, [/zipfian parameter must be in range \[1\.001, 1000\]/], '\\set i random_zipfian(0, 10, 1)'],
  ['set zipfian param too large', 2, [/zipfian parameter must be in range \[1\.001, 1000\]/], '\\set i random_zipfian(0, 10, 1000000)'],
  ['set non numeric value', 2, [/malformed variable "foo" value: "bla"/], '\\set i :foo + 1'],
  ['set no expression', 1, [/syntax error/], '\\set i'],
  ['set missing argument', 1, [/missing argument/i], '\\set'],
  ['set not a bool', 2, [/cannot coerce double to boolean/], '\\set b NOT 0.0'],
  ['set not an int', 2, [/cannot coerce boolean to int/], '\\set i TRUE + 2'],
  ['set not a double', 2, [/cannot coerce boolean to double/], '\\set d ln(TRUE)'],
  ['set case error', 1, [/syntax error in command "set"/], '\\set i CASE TRUE THEN 1 ELSE 0 END'],
  ['set random error', 2, [/cannot coerce boolean to int/], '\\set b random(FALSE, TRUE)'],
  ['set number of args mismatch', 1, [/unexpected number of arguments/], '\\set d ln(1.0, 2.0))'],
  ['set at least one arg', 1, [/at least one argument expected/], '\\set i greatest())'],
  ['set double to int overflow', 2, [/double to int overflow for 100/], '\\set i int(1E32)'],
  ['set bigint add overflow', 2, [/int add out/], '\\set i (1<<62) + (1<<62)'],
  ['set bigint sub overflow', 2, [/int sub out/], '\\set i 0 - (1<<62) - (1<<62) - (1<<62)'],
  ['set bigint mul overflow', 2, [/int mul out/], '\\set i 2 * (1<<62)'],
  ['set bigint div out of range', 2, [/bigint div out of range/], '\\set i :minint / -1'],
  ['setshell not an int', 2, [/command must return an integer/], '\\setshell i echo -n one'],
  ['setshell missing arg', 1, [/missing argument /], '\\setshell var'],
  ['setshell no such command', 2, [/could not read result /], '\\setshell var no-such-command'],
  ['sleep undefined variable', 2, [/sleep: undefined variable/], '\\sleep :nosuchvariable'],
  ['sleep too many args', 1, [/too many arguments/], '\\sleep too many args'],
  ['sleep missing arg', 1, [/missing argument/, /\\sleep/], '\\sleep'],
  ['sleep unknown unit', 1, [/unrecognized time unit/], '\\sleep 1 week'],
  ['misc invalid backslash command', 1, [/invalid command .* "nosuchcommand"/], '\\nosuchcommand'],
  ['misc empty script', 1, [/empty command list for script/], ''],
  ['bad boolean', 2, [/malformed variable.*trueXXX/], '\\set b :badtrue or true'],
  ['invalid permute size', 2, [/permute size parameter must be greater than zero/], '\\set i permute(0, 0)'],
  ['gset no row', 2, [/expected one row, got 0\b/], 'SELECT WHERE FALSE \\gset'],
  ['gset alone', 1, [/gset must follow an SQL command/], '\\gset'],
  ['gset no SQL', 1, [/gset must follow an SQL command/], '\\set i +1\n\\gset'],
  ['gset too many arguments', 1, [/too many arguments/], 'SELECT 1 \\gset a b'],
  ['gset after gset', 1, [/gset must follow an SQL command/], 'SELECT 1 AS i \\gset\n\\gset'],
  ['gset non SELECT', 2, [/expected one row, got 0/], 'DROP TABLE IF EXISTS no_such_table \\gset'],
  ['gset bad default name', 2, [/error storing into variable \?column\?/], 'SELECT 1 \\gset'],
  ['gset bad name', 2, [/error storing into variable bad name!/], 'SELECT 1 AS "bad name!" \\gset'],
];

const DEFINES =
  '-n -t 1 -Dfoo=bla -Dnull=null -Dtrue=true -Done=1 -Dzero=0.0 -Dbadtrue=trueXXX ' + '-Dmaxint=9223372036854775807 -Dminint=-9223372036854775808 -M prepared';
const ERROR_CASES: TapCase[] = ERRORS.map(([name, status, stderr, script, differs]) => ({
  name: `script error: ${name}`,
  args: DEFINES,
  status,
  stdout: [status === 1 ? EMPTY : /processed: 0\/1/],
  stderr,
  files: { [`001_pgbench_error_${name.replace(/ /g, '_')}`]: script },
  ...(differs ? { differs } : {}),
}));

const server = tapServer(true);
tapCases(server, '001_pgbench_with_server (scripts)', [...SETUP, ...SCRIPT_CASES, ...ERROR_CASES]);
