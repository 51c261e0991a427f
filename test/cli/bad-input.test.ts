import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { headroom } from '../../src/cli/main.js';

/**
 * Bad input of every kind: each case must give exit code 2 and one line on stderr that names the
 * problem, with no stack trace, and must leave nothing behind (no database file, no result).
 * The cases run in this process through the same entry point the `headroom` binary calls
 * (test/cli/cli.test.ts runs a few of them as real processes); none needs a server.
 */
const CASES: [args: string[], message: RegExp][] = [
  // connection targets
  [['run', '--db', 'oracle://scott@db/orcl'], /cannot tell which DBMS/],
  [['run', '--db', 'localhost:5432'], /cannot tell which DBMS/],
  [['run', '--db', 'just-a-word'], /cannot tell which DBMS/],
  [['run', '--db', ''], /cannot tell which DBMS/],
  [['run', '--db', 'sqlite:'], /sqlite: needs a file name/],
  [['run', '--db', 'postgres://u@host:99999/x'], /malformed database URL/],
  [['run', '--db', 'postgres://u@host:port/x'], /malformed database URL/],
  [['run', '--db', 'mysql://u@[::1/x'], /malformed database URL/],
  [['run', '--db', 'postgres://u:secret@ho st/db'], /malformed database URL "postgres:\/\/u:\*\*\*@ho st\/db"/],
  [['run', '--db', 'postgres://postgres@127.0.0.1:1/test'], /nothing accepts connections at 127\.0\.0\.1:1/],
  [['run', '--db', 'mariadb://root@127.0.0.1:1/test'], /nothing accepts connections at 127\.0\.0\.1:1/],
  [['run', '--db', 'postgres://u@h/db?replicas=h2:port'], /"h2:port" in \?replicas= is not host:port/],
  [['run', '--db', 'postgres://u@h/db?replicas='], /\?replicas= lists no replica/],
  [['run', '--db', 'firebird://SYSDBA@h//x.fdb?replicas=h2:3050'], /replicas are supported for PostgreSQL and MariaDB only/],
  [['run', '--route', 'split'], /--route split needs replicas to route to/],
  [['run', '--route', 'sideways'], /--route must be one of none, read-only-transactions, split/],
  [['run', '--balance', 'random'], /--balance must be one of round-robin, least-busy/],
  // verbs, workloads, positionals
  [['frobnicate'], /unknown verb "frobnicate"/],
  [['help', 'frobnicate'], /unknown verb "frobnicate"/],
  [['run', 'nosuch'], /unknown workload "nosuch"/],
  [['init', 'nosuch'], /unknown workload "nosuch"/],
  [['run', 'tpcb', 'chain'], /takes one workload, got: tpcb chain/],
  // options: unknown, missing values, wrong types, out of range
  [['run', '--frobnicate'], /unknown option --frobnicate/],
  [['run', '-x'], /unknown option -x/],
  [['run', '--verbose=yes'], /--verbose takes no value/],
  [['run', '--clients'], /--clients needs a value/],
  [['run', '-c', 'many'], /--clients needs a whole number, not "many"/],
  [['run', '-c', '0'], /--clients must be at least 1/],
  [['run', '-c', '-3'], /--clients must be at least 1/],
  [['run', '-c', '1.5'], /--clients needs a whole number/],
  [['run', '-c', ''], /--clients needs a whole number/],
  [['run', '-c', '2', '-j', '3'], /-j 3 is more than -c 2/],
  [['run', '-j', '0'], /--jobs must be at least 1/],
  [['run', '-T', '0'], /--time must be at least 1/],
  [['run', '-T', 'soon'], /--time needs a whole number/],
  [['run', '-T', '5', '-t', '5'], /not both/],
  [['run', '-t', '0'], /--transactions must be at least 1/],
  [['run', '-t', '1e3x'], /--transactions needs a whole number/],
  [['run', '-P', '-1'], /--progress must be at least 0/],
  [['run', '-R', '0'], /--rate must be at least 0\.001/],
  [['run', '-R', 'fast'], /--rate needs a number/],
  [['run', '--warmup', '-1'], /--warmup must be at least 0/],
  [['run', '--max-tries', '-1'], /--max-tries must be at least 0/],
  [['run', '-t', '10', '--max-tries', '0'], /--max-tries 0 \(no limit on tries\) needs a duration \(-T\) or --latency-limit/],
  [['run', '--seed', 'abc'], /--seed needs a whole number/],
  [['run', '--out'], /--out needs a value/],
  [['run', '--journal'], /--journal needs a value/],
  // scales
  [['run', '-s', '0'], /scale/i],
  [['run', '-s', 'big'], /scale/i],
  [['init', '-s', '-2'], /scale/i],
  [['run', 'chain', '-s', 'half'], /scale/i],
  [['run', 'chain', '-s', '0'], /scale/i],
  // workload options
  [['run', '-b', 'nosuch'], /unknown built-in script "nosuch"/],
  [['run', '-b', 'tpcb-like@x'], /unknown built-in script "tpcb-like@x"/],
  [['run', '-b', 'tpcb-like@0'], /weights must be whole numbers, not all zero/],
  [['run', '--builtin'], /--builtin needs a value/],
  [['run', 'chain', '--builtin', 'tpcb-like'], /--builtin is not an option of workload chain/],
  [['run', 'tpcb', '--load', 'bulk'], /--load is not an option of workload tpcb/],
  [['run', 'chain', '--load', 'quick'], /--load must be one of/],
  [['run', 'chain', '--mode', 'sideways'], /--mode must be one of/],
  // files
  [['plan'], /takes one result file/],
  [['plan', 'missing.json'], /no such file: missing\.json/],
  [['plan', 'empty.json'], /empty\.json is not a headroom result file \(not JSON\)/],
  [['plan', 'binary.json'], /binary\.json is not a headroom result file \(not JSON\)/],
  [['plan', 'not-a-result.json'], /not-a-result\.json is not a headroom result file/],
  [['compare', '--normalise', 'empty.json'], /--normalise "empty\.json" is not REFERENCE:YOURS/],
  [['compare', '--normalise', 'not-a-result.json:missing.json'], /no such file: missing\.json/],
  [['compare', '--normalise', 'empty.json:not-a-result.json'], /not-a-result\.json is not a headroom result file/],
  [['compare', '--normalise', 'binary.json#x:not-a-result.json'], /not-a-result\.json is not a headroom result file/],
];

const INPUT_FILES: Record<string, string | Buffer> = {
  'empty.json': '',
  'binary.json': Buffer.from([0, 159, 146, 150, 255, 0, 1]),
  'not-a-result.json': '{"hello": "world"}',
};

test(`bad input: ${CASES.length} cases, each one line, exit code 2, no stack, nothing left behind`, async (t) => {
  assert.ok(CASES.length >= 50);
  const home = process.cwd();
  t.after(() => process.chdir(home));
  const failures: string[] = [];
  for (const [args, message] of CASES) {
    const cwd = mkdtempSync(path.join(tmpdir(), 'headroom-bad-'));
    try {
      for (const [name, content] of Object.entries(INPUT_FILES)) writeFileSync(path.join(cwd, name), content);
      process.chdir(cwd);
      let stderr = '';
      const code = await headroom(args, (text) => (stderr += text));
      const lines = stderr.trim().split('\n');
      const left = readdirSync(cwd).filter((f) => !(f in INPUT_FILES));
      const problems = [
        code !== 2 && `exit code ${code}`,
        lines.length !== 1 && `${lines.length} lines`,
        !/^headroom: /.test(lines[0] ?? '') && 'no "headroom: " prefix',
        !message.test(lines[0] ?? '') && `message does not match ${message}`,
        /\n\s+at /.test(stderr) && 'a stack trace',
        left.length > 0 && `left behind: ${left.join(', ')}`,
      ].filter(Boolean);
      if (problems.length > 0) failures.push(`headroom ${args.join(' ')}: ${problems.join('; ')}\n    stderr: ${stderr.trim()}`);
    } finally {
      process.chdir(home);
      rmSync(cwd, { recursive: true, force: true });
    }
  }
  assert.deepEqual(failures, []);
});
