import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { runCli } from '../../helpers/cli.js';
import { freshDatabase } from '../../helpers/databases.js';
import type { RunResult } from '../../../src/result/result.js';
import type { ServerTarget, Target } from '../../../src/config/target.js';
import { createDriver } from '../../helpers/drivers.js';

/** pgbench's tpcb-like transaction written out as a user's script, with \gset and \if: valid SQL on all three DBMSs. */
const PORTABLE_TPCB = String.raw`-- a user's TPC-B-like script
\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
\if :client_id % 2 = 0
  \set delta :delta * 1
\endif
BEGIN;
UPDATE pgbench_accounts
   SET abalance = abalance + :delta
 WHERE aid = :aid;
SELECT abalance AS balance FROM pgbench_accounts WHERE aid = :aid \gset
\set check :balance + 0
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
`;

const folder = mkdtempSync(path.join(tmpdir(), 'headroom-script-'));
test.after(() => rmSync(folder, { recursive: true, force: true }));

function script(name: string, text: string): string {
  const file = path.join(folder, name);
  writeFileSync(file, text);
  return file;
}

async function historyRows(target: Target): Promise<number> {
  const driver = createDriver(target);
  const conn = await driver.connect();
  try {
    const [[count]] = (await conn.query('SELECT COUNT(*) FROM pgbench_history')) as [[unknown]];
    return Number(count);
  } finally {
    await conn.close();
    await driver.close();
  }
}

function result(file: string): RunResult {
  return JSON.parse(readFileSync(file, 'utf8')) as RunResult;
}

for (const dbms of ['sqlite', 'postgres', 'mariadb'] as const) {
  test(`${dbms}: a user's script file runs under each protocol, keeps the TPC-B sums, and counts -t exactly`, async (t) => {
    const db = await freshDatabase(t, dbms);
    if (!db) return;
    try {
      const file = script(`tpcb-${dbms}.sql`, PORTABLE_TPCB);
      let expectedHistory = 0;
      for (const protocol of ['simple', 'extended', 'prepared']) {
        const out = path.join(folder, `${dbms}-${protocol}.json`);
        const run = await runCli([
          'run',
          'tpcb',
          '--db',
          db.url,
          '-f',
          `${file}@2`,
          '-b',
          'select-only',
          '-c',
          '2',
          '-t',
          '15',
          '--max-tries',
          '20',
          '--protocol',
          protocol,
          '-P',
          '0',
          '--observe=false',
          '--out',
          out,
        ]);
        assert.equal(run.code, 0, run.stderr);
        const r = result(out);
        assert.equal(r.config.protocol, protocol);
        assert.deepEqual(
          r.transactions.map((p) => p.name),
          ['select-only', file],
        );
        const done = r.transactions.reduce((n, p) => n + p.count + p.failed, 0);
        assert.equal(done, 30, 'each client ran -t scripts');
        // The deck deals the 1:2 mix exactly: of each client's 15, 5 select-only and 10 script runs.
        assert.deepEqual(
          r.transactions.map((p) => p.count + p.failed),
          [10, 20],
        );
        expectedHistory += r.transactions[1]!.count;
      }
      const check = await runCli(['check', 'tpcb', '--db', db.url]);
      assert.equal(check.code, 0, check.stdout + check.stderr);
      assert.equal(await historyRows(db.target), expectedHistory, 'one history row per committed script');
    } finally {
      await db.dispose();
    }
  });
}

test('sqlite: \\gset, \\aset, \\if branches per client, -D and debug() through the CLI', async (t) => {
  const db = await freshDatabase(t, 'sqlite');
  if (!db) return;
  try {
    const file = script(
      'vars.sql',
      String.raw`SELECT 1 AS one, 2 AS two \gset p_
\set s debug(:p_one + :p_two * 10)
SELECT aid AS last_aid FROM pgbench_accounts WHERE aid <= 3 ORDER BY aid \aset
\set t debug(:last_aid * 1000)
SELECT aid AS none_found FROM pgbench_accounts WHERE aid < 0 \aset
\if :client_id = 0
  \set u debug(100)
\elif :client_id = 1
  \set u debug(200)
\else
  \set u debug(300)
\endif
\set v debug(:d + 1)
\sleep :d us
`,
    );
    const run = await runCli([
      'run',
      'tpcb',
      '--db',
      db.url,
      '-f',
      file,
      '-D',
      'd=41',
      '-c',
      '2',
      '-t',
      '1',
      '-P',
      '0',
      '--observe=false',
      '--out',
      path.join(folder, 'vars.json'),
    ]);
    assert.equal(run.code, 0, run.stderr);
    // pgbench's line names the script and command, not the client: each client's branch shows as its own value.
    const values = [...run.stderr.matchAll(/debug\(script=0,command=\d+\): (.*)/g)].map((m) => m[1]).sort();
    assert.deepEqual(values, ['int 100', 'int 200', 'int 21', 'int 21', 'int 3000', 'int 3000', 'int 42', 'int 42']);
  } finally {
    await db.dispose();
  }
});

test('sqlite: a runtime error aborts only its client; the result says how many clients aborted and why', async (t) => {
  const db = await freshDatabase(t, 'sqlite');
  if (!db) return;
  try {
    const file = script('div.sql', '\\set x 10 / :client_id\nSELECT :x;\n');
    const out = path.join(folder, 'div.json');
    const run = await runCli(['run', 'tpcb', '--db', db.url, '-f', file, '-c', '3', '-t', '5', '-P', '0', '--observe=false', '--out', out]);
    assert.equal(run.code, 1, run.stderr);
    const r = result(out);
    assert.equal(r.status, 'failed');
    assert.equal(r.statusReason, '1 of 3 client(s) aborted: division by zero');
    assert.deepEqual(
      r.terminals.map((x) => [x.transactions, x.aborted]),
      [
        [0, 'division by zero'],
        [5, undefined],
        [5, undefined],
      ],
    );
    // An open transaction at the end of the script is pgbench's error too.
    const open = script('open.sql', 'BEGIN;\nSELECT 1;\n');
    const run2 = await runCli(['run', 'tpcb', '--db', db.url, '-f', open, '-t', '2', '-P', '0', '--observe=false', '--out', path.join(folder, 'open.json')]);
    assert.equal(run2.code, 1);
    assert.match(result(path.join(folder, 'open.json')).statusReason ?? '', /end of script reached without completing the last transaction/);
    // A broken script is refused before anything runs, with its position.
    const broken = script('broken.sql', 'SELECT 1;\n\\set x (1 + \n');
    const run3 = await runCli(['run', 'tpcb', '--db', db.url, '-f', broken, '-t', '1']);
    assert.equal(run3.code, 2);
    assert.equal(run3.stderr.trim().split('\n')[0], `headroom: ${broken}:2:13: syntax error in command "set" (see pgbench's documentation of custom scripts)`);
  } finally {
    await db.dispose();
  }
});

test('postgres: pgbench and headroom run the same -f script on the same database, and the sums agree', async (t) => {
  if (!existsSync('/usr/bin/pgbench')) return t.skip('pgbench is not installed (apt-get install postgresql-client)');
  const db = await freshDatabase(t, 'postgres');
  if (!db) return;
  try {
    const target = db.target as ServerTarget;
    const pgArgs = ['-h', target.host, '-p', String(target.port), '-U', target.user];
    await promisify(execFile)('pgbench', [...pgArgs, '-i', '-q', '-s', '1', target.database]);
    const file = script('shared.sql', PORTABLE_TPCB);
    const pg = await promisify(execFile)('pgbench', [...pgArgs, '-n', '-f', file, '-c', '2', '-t', '20', target.database]);
    assert.match(pg.stdout, /number of transactions actually processed: 40\/40/);
    const out = path.join(folder, 'shared.json');
    const run = await runCli([
      'run',
      'tpcb',
      '--db',
      db.url,
      '-f',
      file,
      '-c',
      '2',
      '-t',
      '20',
      '--max-tries',
      '20',
      '-P',
      '0',
      '--observe=false',
      '--out',
      out,
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(result(out).summary.transactions, 40);
    const check = await runCli(['check', 'tpcb', '--db', db.url]);
    assert.equal(check.code, 0, check.stdout);
    assert.equal(await historyRows(db.target), 80, "pgbench_history holds both tools' 40 transactions");
  } finally {
    await db.dispose();
  }
});

test('postgres: a pipeline, -r per-command figures in the result, and the bad -f / -D inputs', async (t) => {
  const db = await freshDatabase(t, 'postgres');
  if (!db) return;
  try {
    const file = script(
      'pipe.sql',
      String.raw`\set aid random(1, 100000 * :scale)
\startpipeline
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
SELECT 2;
\endpipeline
SELECT :aid + 1 AS next_aid \gset
\set check :next_aid - :aid
\if :check <> 1
  \set fail 1 / 0
\endif
\sleep 100 us
`,
    );
    const out = path.join(folder, 'pipe.json');
    const run = await runCli(['run', 'tpcb', '--db', db.url, '-f', file, '-c', '2', '-j', '2', '-t', '25', '-r', '-P', '0', '--observe=false', '--out', out]);
    assert.equal(run.code, 0, run.stderr);
    const r = result(out);
    assert.equal(r.config.perCommand, true);
    const commands = r.perCommand?.[0]?.commands ?? [];
    assert.deepEqual(
      commands.map((c) => [c.command, c.count, c.failed]),
      [
        ['\\set aid random(1, 100000 * :scale)', 50, 0],
        ['\\startpipeline', 50, 0],
        ['SELECT abalance FROM pgbench_accounts WHERE aid = :aid;', 50, 0],
        ['SELECT 2;', 50, 0],
        ['\\endpipeline', 50, 0],
        ['SELECT :aid + 1 AS next_aid ', 50, 0],
        ['\\set check :next_aid - :aid', 50, 0],
        ['\\if :check <> 1', 50, 0],
        ['\\set fail 1 / 0', 0, 0],
        ['\\endif', 50, 0],
        ['\\sleep 100 us', 50, 0],
      ],
      'every command counted once per run of the script, across both jobs, named as pgbench -r names it; the branch never taken never ran',
    );
    assert.ok(commands[10]!.avgMs >= 0.1, `\\sleep 100 us took ${commands[10]!.avgMs} ms`);
    assert.match(run.stdout, /statement latencies in milliseconds and failures \(\S*\/pipe\.sql\):/);

    const missing = await runCli(['run', 'tpcb', '--db', db.url, '-f', path.join(folder, 'no-such.sql')]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /^headroom: cannot read script file .*no-such\.sql: ENOENT/);
    const define = await runCli(['run', 'tpcb', '--db', db.url, '-f', file, '-D', 'novalue']);
    assert.equal(define.code, 2);
    assert.match(define.stderr, /^headroom: -D novalue: expected NAME=VALUE/);
  } finally {
    await db.dispose();
  }
});

test('postgres: an error other than a bad request counts as failed and the client goes on; --abort-on-error ends the client, as pgbench', async (t) => {
  const db = await freshDatabase(t, 'postgres');
  if (!db) return;
  try {
    // RAISE gives SQLSTATE P0001: neither retryable nor a bad request.
    const file = script('raise.sql', "DO $$BEGIN IF random() >= 0 THEN RAISE EXCEPTION 'boom'; END IF; END$$;\n");
    const counted = path.join(folder, 'raise-counted.json');
    // Every try fails: the run fails by --max-failed unless told to accept failures.
    const strict = await runCli(['run', 'tpcb', '--db', db.url, '-f', file, '-c', '2', '-t', '3', '-P', '0', '--observe=false', '--out', counted]);
    assert.equal(strict.code, 1, strict.stderr);
    assert.match(
      result(counted).statusReason ?? '',
      /^transaction type \S*raise\.sql: all 6 of its tries failed, above --max-failed 5%; first error: \(other P0001\) boom/,
    );
    const run = await runCli([
      'run',
      'tpcb',
      '--db',
      db.url,
      '-f',
      file,
      '-c',
      '2',
      '-t',
      '3',
      '-P',
      '0',
      '--observe=false',
      '--max-failed',
      '100%',
      '--out',
      counted,
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(
      result(counted).terminals.map((x) => [x.failed, x.aborted]),
      [
        [3, undefined],
        [3, undefined],
      ],
    );
    assert.equal(result(counted).config.abortOnError, undefined);
    const ended = path.join(folder, 'raise-aborted.json');
    const run2 = await runCli([
      'run',
      'tpcb',
      '--db',
      db.url,
      '-f',
      file,
      '-c',
      '2',
      '-t',
      '3',
      '-P',
      '0',
      '--observe=false',
      '--abort-on-error',
      '--out',
      ended,
    ]);
    assert.equal(run2.code, 1, run2.stderr);
    const r = result(ended);
    assert.equal(r.config.abortOnError, true);
    // The aborted transaction is neither processed nor failed, as pgbench counts it.
    assert.deepEqual(
      r.terminals.map((x) => [x.failed, x.aborted]),
      [
        [0, 'script 0 aborted in command 0 query 0: ERROR:  boom\nCONTEXT:  PL/pgSQL function inline_code_block line 1 at RAISE'],
        [0, 'script 0 aborted in command 0 query 0: ERROR:  boom\nCONTEXT:  PL/pgSQL function inline_code_block line 1 at RAISE'],
      ],
    );
  } finally {
    await db.dispose();
  }
});

test("postgres: \\; sends its queries in one request; \\aset takes each query's last row, a failing query is numbered in the abort", async (t) => {
  const db = await freshDatabase(t, 'postgres');
  if (!db) return;
  try {
    const file = script(
      'compound.sql',
      [
        'SELECT 1 AS one \\; SELECT 2 AS two WHERE false \\; SELECT 3 AS three UNION SELECT 4 ORDER BY 1 \\aset',
        '\\set check debug(:one + :three)',
        'SELECT 5 AS v \\; SELECT 1 / (:check - 5) AS w;',
        '',
      ].join('\n'),
    );
    const out = path.join(folder, 'compound.json');
    const run = await runCli([
      'run',
      'tpcb',
      '--db',
      db.url,
      '-f',
      file,
      '-t',
      '2',
      '-P',
      '0',
      '--observe=false',
      '--protocol',
      'simple',
      '--abort-on-error',
      '--out',
      out,
    ]);
    assert.equal(run.code, 1, run.stderr);
    // :two never set (no rows), :three the last row's 4: 1 + 4 = 5, so the second query divides by zero.
    assert.match(run.stderr, /debug\(script=0,command=2\): int 5\n/);
    const r = result(out);
    const aborted = 'script 0 aborted in command 2 query 1: ERROR:  division by zero';
    assert.deepEqual(
      r.terminals.map((x) => [x.transactions, x.failed, x.aborted]),
      [[0, 0, aborted]],
    );
    const extended = await runCli(['run', 'tpcb', '--db', db.url, '-f', file, '-t', '1', '-P', '0', '--observe=false', '--protocol', 'extended']);
    assert.equal(extended.code, 2);
    assert.match(extended.stderr, /joins queries with \\;, which only --protocol simple sends/);
  } finally {
    await db.dispose();
  }
});

test("sqlite: \\setshell stores a command's integer output, \\shell runs with :variables in place; a non-integer aborts the client as pgbench", async (t) => {
  const db = await freshDatabase(t, 'sqlite');
  if (!db) return;
  try {
    const file = script('shell.sql', '\\setshell v echo " 41 "\n\\set w debug(:v + 1)\n\\shell echo :w ::x\n\\setshell z printf one\n');
    const run = await runCli(['pgbench', '-n', '-t', '1', '-f', file, db.url]);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /debug\(script=0,command=2\): int 42\n/);
    assert.match(run.stdout, /^42 :x\n/);
    assert.match(run.stdout, /processed: 0\/1\n/);
    assert.match(run.stdout, /number of failed transactions: 0 \(0\.000%\)/);
    assert.match(run.stderr, /client 0 aborted in command 3 \(setshell\) of script 0; execution of meta-command failed /);
    assert.match(run.stderr, /failed \(printf: shell command must return an integer \(not "one"\)\)\n/);
  } finally {
    await db.dispose();
  }
});

test('sqlite: a :variable never set is bound as NULL under -M extended and prepared, as pgbench binds it; -M simple refuses it', async (t) => {
  const db = await freshDatabase(t, 'sqlite');
  if (!db) return;
  try {
    const file = script('unset.sql', 'SELECT :nope IS NULL AS unset \\gset\n\\set shown debug(:unset)\n');
    for (const mode of ['extended', 'prepared']) {
      const run = await runCli(['pgbench', '-n', '-t', '1', '-M', mode, '-f', file, db.url]);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stderr, /debug\(script=0,command=2\): int 1\n/);
    }
    const simple = await runCli(['pgbench', '-n', '-t', '1', '-M', 'simple', '-f', file, db.url]);
    assert.equal(simple.code, 2, simple.stderr);
    assert.match(simple.stderr, /client 0 aborted: undefined variable "nope"/);
  } finally {
    await db.dispose();
  }
});
