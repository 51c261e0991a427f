import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readCaptureFile } from '../../../src/workloads/replay/capture-io.js';
import { runCli } from '../../helpers/cli.js';

/**
 * Malformed logs, one kind of damage each, in the layouts PostgreSQL 15 and MariaDB 10.11 write
 * (copied from their logs, with the damage put in): each gives one clean error naming file:line, or
 * a counted skip naming its first file:line, and never a capture with part of it silently missing.
 */
const folder = mkdtempSync(path.join(tmpdir(), 'headroom-capture-bad-'));
test.after(() => rmSync(folder, { recursive: true, force: true }));

const P = (ms: number, session = '6b14882c.54de'): string => `2026-12-05 21:54:52.${String(ms).padStart(3, '0')} UTC|app|shop|${session}|`;
/** A whole session in the stderr layout: connection, a statement and its duration, an extended execute with its parameters, the end. */
const SESSION = [
  `${P(100)}LOG:  connection received: host=127.0.0.1 port=60308`,
  `${P(101)}LOG:  connection authorized: user=app database=shop application_name=pgbench`,
  `${P(102)}LOG:  statement: BEGIN;`,
  `${P(103)}LOG:  duration: 0.100 ms`,
  `${P(110)}LOG:  execute <unnamed>: UPDATE account SET balance = balance + $1 WHERE id = $2`,
  `${P(110)}DETAIL:  parameters: $1 = '5', $2 = '42'`,
  `${P(111)}LOG:  duration: 0.500 ms`,
  `${P(112)}LOG:  statement: COMMIT;`,
  `${P(113)}LOG:  disconnection: session time: 0:00:00.013 user=app database=shop host=127.0.0.1 port=60308`,
];
const CSV_HEAD =
  '2026-12-05 21:54:53.104 UTC,"app","shop",21770,"127.0.0.1:60364",6b14882d.550a,1,"",2026-12-05 21:54:53 UTC,3/54,0,LOG,00000,"connection authorized: user=app database=shop",,,,,,,,,"psql","client backend",,0';
const CSV_STATEMENT =
  '2026-12-05 21:54:53.105 UTC,"app","shop",21770,"127.0.0.1:60364",6b14882d.550a,2,"idle",2026-12-05 21:54:53 UTC,3/54,0,LOG,00000,"statement: select 1",,,,,,,,,"psql","client backend",,0';
const GENERAL = [
  '/usr/sbin/mariadbd, Version: 10.11.19-MariaDB-0+deb12u1-log (Debian 12). started with:',
  'Tcp port: 3306  Unix socket: /run/mysqld/mysqld.sock',
  'Time\t\t    Id Command\tArgument',
  '261205 21:55:11\t     6 Connect\tapp@127.0.0.1 on shop using TCP/IP',
  '\t\t     6 Query\tSELECT c FROM sbtest1 WHERE id=5',
  '\t\t     6 Quit\t',
];

function file(name: string, lines: readonly string[] | string): string {
  const at = path.join(folder, name);
  writeFileSync(at, typeof lines === 'string' ? lines : `${lines.join('\n')}\n`);
  return at;
}

/** Runs capture on the file and expects one clean line of error naming what is wrong, and no capture file. */
async function refused(log: string, pattern: RegExp): Promise<void> {
  const out = `${log}.json`;
  const cli = await runCli(['capture', log, '-o', out]);
  assert.equal(cli.code, 2, cli.stdout + cli.stderr);
  assert.match(cli.stderr, pattern);
  assert.equal(cli.stderr.trim().split('\n').length, 1, cli.stderr);
  assert.ok(!cli.stderr.includes('    at '), cli.stderr);
  assert.ok(!existsSync(out), 'no capture file is written');
}

/** Runs capture and expects it to keep the whole statements and count what it skipped, with the first place. */
async function skipped(log: string, reason: RegExp, count: number, firstLine: number): Promise<ReturnType<typeof readCaptureFile>> {
  const out = `${log}.json`;
  const cli = await runCli(['capture', log, '-o', out]);
  assert.equal(cli.code, 0, cli.stderr);
  const capture = readCaptureFile(out);
  const skip = capture.skipped.find((s) => reason.test(s.reason));
  assert.ok(skip, JSON.stringify(capture.skipped));
  assert.equal(skip.count, count);
  assert.equal(skip.first, `${log}:${firstLine}`);
  assert.match(
    cli.stdout,
    new RegExp(`not captured:\\n(.*\\n)*  ${count} ${reason.source}.*; first at ${log.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:${firstLine}`),
  );
  return capture;
}

test('the whole session reads: its statements, the execute with its parameters, the durations', async () => {
  const log = file('whole.log', SESSION);
  const cli = await runCli(['capture', log, '-o', `${log}.json`]);
  assert.equal(cli.code, 0, cli.stderr);
  const capture = readCaptureFile(`${log}.json`);
  assert.deepEqual(
    capture.sessions[0]!.statements.map((s) => [s.kind, s.params ?? null, s.durationMs ?? null, s.atS]),
    [
      ['begin', null, 0.1, 0],
      ['update', ['5', '42'], 0.5, 0.008],
      ['commit', null, null, 0.01],
    ],
  );
  assert.deepEqual(capture.skipped, []);
});

test('stderr: lines before the first prefixed line are a counted skip; the rest is captured whole', async () => {
  const capture = await skipped(file('before.log', ['\tWHERE id = 7', 'some output of another program', ...SESSION]), /lines before the first log entry/, 2, 1);
  assert.equal(capture.summary.statements, 3);
});

test('stderr: a line in the middle that does not start with the prefix is a counted skip', async () => {
  const lines = [...SESSION];
  lines.splice(4, 0, 'WARNING: a library wrote this to stderr');
  const capture = await skipped(file('foreign.log', lines), /lines that do not start with the log_line_prefix/, 1, 5);
  assert.equal(capture.summary.statements, 3);
});

test('stderr: a prefix whose time does not parse is an error naming the line', async () => {
  const lines = [...SESSION];
  lines[4] = lines[4]!.replace('2026-12-05 21:54:52.110', '2026-13-45 21:54:52.110');
  await refused(file('bad-time.log', lines), /^headroom: .*bad-time\.log:5: the time "2026-13-45 21:54:52\.110 UTC" in the line's prefix is not a valid time/);
});

test('stderr: a parameters: line with no execute before it is an error naming the line', async () => {
  const lines = [...SESSION];
  lines.splice(4, 1);
  await refused(file('orphan.log', lines), /^headroom: .*orphan\.log:5: a parameters: line with no execute before it \(lines are missing/);
});

test('stderr: an unterminated quoted parameter is an error naming the line', async () => {
  const lines = [...SESSION];
  lines[5] = `${P(110)}DETAIL:  parameters: $1 = '5', $2 = '42`;
  await refused(file('unterminated.log', lines), /^headroom: .*unterminated\.log:5: parameter \$2 has an unterminated quoted value/);
});

test('csvlog: a last record cut short is a counted skip; a record of the wrong width is an error', async () => {
  await skipped(file('cut.csv', `${CSV_HEAD}\n${CSV_STATEMENT}\n${CSV_STATEMENT.slice(0, 150)}`), /the last record, cut short/, 1, 3);
  await refused(
    file('narrow.csv', [CSV_HEAD, CSV_STATEMENT.split(',').slice(0, 15).join(','), CSV_STATEMENT]),
    /^headroom: .*narrow\.csv:2: a csvlog record of 15 columns/,
  );
});

test('general log: an entry with a command capture does not know is a counted skip, its lines with it', async () => {
  const lines = [...GENERAL];
  lines.splice(5, 0, '\t\t     6 Frobnicate\tsomething', 'more of it');
  const capture = await skipped(file('unknown.log', lines), /entries with a command capture does not know/, 1, 6);
  assert.deepEqual(
    capture.sessions[0]!.statements.map((s) => s.sql),
    ['SELECT c FROM sbtest1 WHERE id=5'],
  );
});

test('an empty file, a file that is not a log, and a log with nothing to capture are refused in one line', async () => {
  await refused(file('empty.log', ''), /^headroom: .*empty\.log is empty: there is nothing to capture/);
  await refused(file('not-a-log.txt', ['{"format": "something else"}', 'hello']), /^headroom: .*not-a-log\.txt is not a log headroom capture reads/);
  await refused(file('quiet.log', [`${P(100)}LOG:  database system is ready to accept connections`]), /^headroom: no statement could be captured from/);
});

test('a session whose connection lies before the log is a counted skip of its statements when the log shows connections', async () => {
  const before = [`${P(90, '6b14882c.1111')}LOG:  statement: SELECT 1`, `${P(91, '6b14882c.1111')}LOG:  statement: SELECT 2`];
  const capture = await skipped(file('begun-before.log', [...before, ...SESSION]), /statements of sessions whose start lies before the log/, 2, 1);
  assert.equal(capture.sessions.length, 1);
});

test('stderr and general log: a last line without its newline is a counted skip of its entry; the entries before it are kept', async () => {
  const stderr = await skipped(file('cut.log', `${SESSION.join('\n')}\n${P(200)}LOG:  statement: UPDATE account SET bal`), /the last entry, cut short/, 1, 10);
  assert.equal(stderr.summary.statements, 3);
  const general = await skipped(
    file('cut-general.log', `${GENERAL.slice(0, 5).join('\n')}\n\t\t     6 Query\tSELECT c FROM sbt`),
    /the last entry, cut short/,
    1,
    6,
  );
  assert.equal(general.summary.statements, 1);
});

test("a log of 300,000 statements is captured whole (no step of capture takes its statements as one call's arguments)", async () => {
  // Two sessions of 150,000 statements each, a millisecond apart within each: 150 s of load.
  const lines: string[] = [];
  for (const [n, session] of ['6b14882c.1', '6b14882c.2'].entries()) {
    const at = (i: number): string => new Date(Date.UTC(2026, 11, 5, 21, 0, 0, i + n)).toISOString().replace('T', ' ').replace('Z', ' UTC');
    lines.push(`${at(0)}|app|shop|${session}|LOG:  connection authorized: user=app database=shop`);
    for (let i = 1; i <= 150_000; i++) lines.push(`${at(i)}|app|shop|${session}|LOG:  statement: SELECT ${i}`);
  }
  const log = file('long.log', lines);
  const out = `${log}.json`;
  const cli = await runCli(['capture', log, '-o', out]);
  assert.equal(cli.code, 0, cli.stdout + cli.stderr);
  assert.match(cli.stdout, /captured 300,000 statements in 2 sessions over 150\.0 s/);
  assert.match(cli.stdout, /peak 2,000\b/);
  const capture = readCaptureFile(out);
  assert.equal(
    capture.sessions.reduce((n, s) => n + s.statements.length, 0),
    300_000,
  );
  assert.deepEqual(
    capture.sessions.map((s) => s.statements.at(-1)!.atS),
    [149.999, 150],
  );
});
