import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli, type CliRun } from '../helpers/cli.js';
import { sideBySide, tapServer } from './harness.js';

/**
 * pgbench 15 options the TAP tests leave out (-C's figures, --progress-timestamp,
 * --verbose-errors, --max-tries 0, a key=value connection string as the dbname, and
 * --exit-on-abort, which pgbench 15 does not have), each run through headroom pgbench and
 * through pgbench itself on the same database, and checked the same way on both.
 */
const server = tapServer(true);

const { both, script } = sideBySide(server);

test('initialised by pgbench -i', async (t) => {
  if (!server.db) return void t.skip('no test database');
  const run = await runCli(['pgbench', '-i', '-q'], { env: server.env });
  assert.equal(run.code, 0, run.stderr);
});

test('-C: a connection per transaction, its time in the latency, "average connection time" and tps including reconnections', async (t) => {
  const runs = await both(t, ['-n', '-S', '-t', '20', '-c', '2', '-C']);
  if (!runs) return;
  for (const [who, run] of Object.entries(runs)) {
    assert.equal(run.code, 0, `${who}: ${run.stderr}`);
    assert.match(run.stdout, /processed: 40\/40/, who);
    assert.match(run.stdout, /^average connection time = \d+\.\d{3} ms$/m, who);
    assert.match(run.stdout, /^tps = \d+\.\d{6} \(including reconnection times\)$/m, who);
    assert.doesNotMatch(run.stdout, /initial connection time/, who);
  }
  // Each transaction opens its own connection and counts it: the latency is more than the connection's time.
  const latency = Number(/^latency average = (\S+) ms$/m.exec(runs.ours.stdout)![1]);
  const connection = Number(/^average connection time = (\S+) ms$/m.exec(runs.ours.stdout)![1]);
  assert.ok(connection > 0 && latency > connection, `latency ${latency} ms, connection ${connection} ms`);
});

test('--progress-timestamp: each -P line starts with the Unix time of the report, to the millisecond', async (t) => {
  const before = Date.now() / 1000;
  const runs = await both(t, ['-n', '-S', '-T', '2', '-P', '1', '--progress-timestamp']);
  if (!runs) return;
  const after = Date.now() / 1000;
  for (const [who, run] of Object.entries(runs)) {
    assert.equal(run.code, 0, `${who}: ${run.stderr}`);
    const stamps = [...run.stderr.matchAll(/^progress: (\d+\.\d{3}) s, \d+\.\d tps, lat /gm)].map((m) => Number(m[1]));
    assert.ok(stamps.length >= 1, `${who}: no progress line with a timestamp in\n${run.stderr}`);
    for (const stamp of stamps) assert.ok(stamp >= before && stamp <= after, `${who}: ${stamp} is not between ${before} and ${after}`);
  }
});

// Four clients update one row under REPEATABLE READ, a pause between reading and writing it: serialization failures.
const CONFLICT =
  'BEGIN ISOLATION LEVEL REPEATABLE READ;\nSELECT abalance FROM pgbench_accounts WHERE aid = 1;\n\\sleep 5 ms\nUPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = 1;\nEND;\n';

test('--verbose-errors: each serialization failure told with its command, then whether the transaction is tried again', async (t) => {
  const file = script('conflict.sql', CONFLICT);
  const runs = await both(t, ['-n', '-c', '4', '-T', '2', '--max-tries', '2', '--verbose-errors', '-f', file]);
  if (!runs) return;
  for (const [who, run] of Object.entries(runs)) {
    assert.equal(run.code, 0, `${who}: ${run.stderr}`);
    assert.match(run.stderr, /client \d got an error in command 3 \(SQL\) of script 0; ERROR: {2}could not serialize access due to concurrent update/, who);
    assert.match(run.stderr, /client \d repeats the transaction after the error \(try 1\/2\)/, who);
    assert.match(run.stderr, /client \d ends the failed transaction \(try 2\/2\)/, who);
  }
});

test('--max-tries 0: tries without limit until -T ends the run; no "maximum number of tries" line', async (t) => {
  const file = script('conflict-unlimited.sql', CONFLICT);
  const runs = await both(t, ['-n', '-c', '4', '-T', '2', '--max-tries', '0', '-f', file]);
  if (!runs) return;
  for (const [who, run] of Object.entries(runs)) {
    assert.equal(run.code, 0, `${who}: ${run.stderr}`);
    assert.doesNotMatch(run.stdout, /maximum number of tries/, who);
    const retried = /^number of transactions retried: (\d+) /m.exec(run.stdout);
    assert.ok(retried && Number(retried[1]) > 0, `${who}: no transaction retried in\n${run.stdout}`);
    // Only the end of the run stops a try: at most one transaction per client fails.
    const failed = Number(/^number of failed transactions: (\d+) /m.exec(run.stdout)?.[1]);
    assert.ok(failed <= 4, `${who}: ${failed} failed`);
  }
});

test('a key=value connection string as the dbname; its keys win over -h', async (t) => {
  if (!server.db) return void t.skip('no test database');
  const { PGHOST, PGPORT, PGDATABASE } = server.env;
  const conninfo = `host=${PGHOST} port = '${PGPORT}' dbname=${PGDATABASE}`;
  const runs = await both(t, ['-n', '-S', '-t', '3', '-h', 'no-such-host.invalid', conninfo]);
  if (!runs) return;
  for (const [who, run] of Object.entries(runs)) {
    assert.equal(run.code, 0, `${who}: ${run.stderr}`);
    assert.match(run.stdout, /processed: 3\/3/, who);
  }
  // A database that does not exist: libpq's words, the same from both.
  const missing = await both(t, ['-n', '-S', '-t', '1', `host=${PGHOST} port=${PGPORT} dbname=no_such_database`]);
  const failure = (run: CliRun): string | undefined => /error: (connection to server .*)$/m.exec(run.stderr)?.[1];
  assert.equal(missing!.ours.code, 1);
  assert.equal(missing!.theirs.code, 1);
  assert.equal(failure(missing!.ours), failure(missing!.theirs));
  assert.match(failure(missing!.ours) ?? '', /FATAL: {2}database "no_such_database" does not exist/);
});

test("--exit-on-abort is not pgbench 15's: refused the way pgbench 15 refuses it", async (t) => {
  const runs = await both(t, ['--exit-on-abort', '-S', '-t', '1']);
  if (!runs) return;
  for (const [who, run] of Object.entries(runs)) {
    assert.equal(run.code, 1, who);
    assert.match(run.stderr, /unrecognized option '--exit-on-abort'/, who);
  }
});

test('non-ASCII variable names work as in pgbench: \\set, -D, :name in SQL and expressions, \\gset into them', async (t) => {
  const file = script('non-ascii.sql', '\\set ü 2\n\\set x :ü * 3 + :Ω\nselect :ü AS é, :x AS "ß" \\gset\n\\set sum :é + :ß\nselect :sum AS total;\n');
  const runs = await both(t, ['-n', '-t', '2', '-d', '-D', 'Ω=5', '-f', file]);
  if (!runs) return;
  for (const [who, run] of Object.entries(runs)) {
    assert.equal(run.code, 0, `${who}: ${run.stderr}`);
    assert.match(run.stdout, /processed: 2\/2/, who);
    assert.match(run.stdout, /number of failed transactions: 0 /, who);
    // ü is 2, x is 2 * 3 + 5, and the sum read back through \gset is 13.
    assert.match(run.stderr, /client 0 sending select 2 AS é, 11 AS "ß"/, who);
    assert.match(run.stderr, /client 0 sending select 13 AS total/, who);
  }
});

test('-j above -c: threads are cut to the clients, as 002_custom_scripts_weighted runs it', async (t) => {
  const runs = await both(t, ['-n', '-S', '-t', '5', '-c', '1', '-j', '2']);
  if (!runs) return;
  for (const [who, run] of Object.entries(runs)) {
    assert.equal(run.code, 0, `${who}: ${run.stderr}`);
    assert.match(run.stdout, /^number of clients: 1$/m, who);
    assert.match(run.stdout, /^number of threads: 1$/m, who);
    assert.match(run.stdout, /processed: 5\/5/, who);
  }
});

test('a script that is not UTF-8: pgbench sends its bytes and the server refuses them; headroom pgbench refuses the file at its line', async (t) => {
  const file = path.join(server.dir, 'latin1.sql');
  writeFileSync(file, Buffer.from('select 1;\nselect \xe9t\xe9;\n', 'latin1'));
  const runs = await both(t, ['-n', '-t', '1', '-f', file]);
  if (!runs) return;
  assert.equal(runs.theirs.code, 2, runs.theirs.stderr);
  assert.match(runs.theirs.stderr, /invalid byte sequence for encoding "UTF8": 0xe9/);
  // Refused before it connects, as pgbench refuses a script it cannot read: exit 1, the file, line and column.
  assert.equal(runs.ours.code, 1, runs.ours.stderr);
  assert.equal(runs.ours.stdout, '');
  assert.match(runs.ours.stderr, /^headroom pgbench: error: \S*latin1\.sql:2:8: the script is not UTF-8 \(byte 0xe9\)\n/);
});

test("a role's CONNECTION LIMIT: pgbench has no budget check, so both fail at connect in libpq's words", async (t) => {
  if (!server.db) return void t.skip('no test database');
  const role = `headroom_tap_limited_${process.pid}`;
  const psql = (sql: string): void => void spawnSync('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-c', sql], { env: server.env, encoding: 'utf8' });
  psql(`CREATE ROLE ${role} LOGIN CONNECTION LIMIT 2`);
  t.after(() => psql(`DROP ROLE IF EXISTS ${role}`));
  const file = script('one.sql', 'select 1;\n');
  const runs = await both(t, ['-n', '-t', '1', '-c', '3', '-U', role, '-f', file]);
  if (!runs) return;
  const refusal = (run: CliRun): string | undefined => /^(?:headroom )?pgbench: error: (connection to server .*)$/m.exec(run.stderr)?.[1];
  for (const [who, run] of Object.entries(runs)) {
    assert.equal(run.code, 1, `${who}: ${run.stderr}`);
    assert.match(refusal(run) ?? '', new RegExp(`failed: FATAL: {2}too many connections for role "${role}"$`), `${who}: ${run.stderr}`);
  }
  assert.equal(refusal(runs.ours), refusal(runs.theirs));
});
