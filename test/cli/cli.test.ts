import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodeHistogram } from '../../src/metrics/histogram.js';
import type { RunResult } from '../../src/result/result.js';
import { RESULT_SCHEMA } from '../../src/result/result.js';
import { runCli, type CliRun } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';

function workdir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-cli-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A user error: exit 2, one line on stderr naming the problem, no stack trace. */
function assertOneLineError(run: CliRun, message: RegExp): void {
  assert.equal(run.code, 2, `exit code; stderr: ${run.stderr}`);
  const lines = run.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line expected, got:\n${run.stderr}`);
  assert.match(lines[0]!, /^headroom: /);
  assert.match(lines[0]!, message);
  assert.doesNotMatch(run.stderr, /\n\s+at /);
}

test('help on every verb, and the list of workloads and drivers', async () => {
  for (const args of [['--help'], ['run', '--help'], ['init', '--help'], ['check', '--help'], ['drop', '--help'], ['list', '--help'], ['help', 'run']]) {
    const run = await runCli(args);
    assert.equal(run.code, 0, args.join(' '));
    assert.match(run.stdout, /usage: headroom/);
  }
  const runHelp = await runCli(['run', '--help']);
  for (const flag of [
    '-c, --clients',
    '-j, --jobs',
    '-T, --time',
    '-t, --transactions',
    '-s, --scale',
    '-P, --progress',
    '-R, --rate',
    '--warmup',
    '--db',
    '--out',
  ]) {
    assert.ok(runHelp.stdout.includes(flag), `run --help lacks ${flag}`);
  }
  const list = await runCli(['list']);
  assert.equal(list.code, 0);
  assert.match(list.stdout, /tpcb \(default\)/);
  assert.match(list.stdout, /-b, --builtin NAME\[@WEIGHT\].*tpcb-like when neither -b nor -f is given/);
  assert.match(list.stdout, /-f, --file FILE\[@WEIGHT\]/);
  for (const dbms of ['sqlite', 'postgres', 'mariadb']) assert.match(list.stdout, new RegExp(`^  ${dbms}: `, 'm'));
});

test('bad input is one line with a hint and exit code 2', async (t) => {
  const cwd = workdir(t);
  const cases: [string[], RegExp][] = [
    [['run', 'nosuch'], /unknown workload "nosuch".*known workloads: tpcb/],
    [['frobnicate'], /unknown verb "frobnicate"/],
    [['run', '--frobnicate'], /unknown option --frobnicate.*headroom run --help/],
    [['run', '-c', 'x'], /--clients needs a whole number/],
    [['run', '-T', '5', '-t', '5'], /-T .* or -t .*not both/],
    [['run', '--db', 'oracle://scott@db/orcl'], /cannot tell which DBMS/],
    [['run', '--db', 'postgres://u@host:99999/x'], /malformed database URL/],
    [['run', '-b', 'nosuch'], /unknown built-in script "nosuch"/],
    [['run', '--db', 'postgres://postgres@127.0.0.1:1/test'], /ECONNREFUSED|connect.*\(nothing accepts connections at 127\.0\.0\.1:1/],
    [['run', '--db', 'mariadb://root@127.0.0.1:1/test'], /nothing accepts connections at 127\.0\.0\.1:1/],
    [['check', '--db', `sqlite:${path.join(cwd, 'empty.db')}`], /no tpcb data .*headroom init tpcb/],
  ];
  for (const [args, message] of cases) assertOneLineError(await runCli(args, { cwd }), message);
  const verbose = await runCli(['run', '--db', 'postgres://postgres@127.0.0.1:1/test', '--verbose'], { cwd });
  assert.equal(verbose.code, 2);
  assert.match(verbose.stderr, /\n\s+at /, '--verbose shows the stack');
});

test('the default run: embedded SQLite, progress every second, a summary and a result file', async (t) => {
  const cwd = workdir(t);
  const run = await runCli(['run', '-T', '2', '-c', '2'], { cwd });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /loading tpcb at scale 1 into sqlite:headroom\.db/);
  assert.equal((run.stderr.match(/^progress: /gm) ?? []).length, 2, run.stderr);
  assert.match(run.stdout, /^tps = \d+\.\d{3}$/m);
  assert.match(run.stdout, /latency ms: avg [\d.]+ stddev [\d.]+ p50 [\d.]+ p95 [\d.]+ p99 [\d.]+ p99\.9 [\d.]+ max [\d.]+/);
  assert.match(run.stdout, /client cpu: [\d.]+ us per transaction.*; peak memory (\d+) MB$/m);
  // The chain study's Total time and per-terminal lines are chain runs' (and --per-terminal's), not tpcb's.
  assert.doesNotMatch(run.stdout, /^Total time|^terminal \d+: finished/m);
  const [file] = readdirSync(path.join(cwd, 'headroom-results'));
  assert.match(file!, /^tpcb-sqlite-\d{8}-\d{6}\.json$/);
  assert.match(run.stdout, new RegExp(`result: headroom-results/${file}`));
  const result = JSON.parse(readFileSync(path.join(cwd, 'headroom-results', file!), 'utf8')) as RunResult;
  assert.equal(result.schema, RESULT_SCHEMA);
  assert.equal(result.status, 'completed');
  assert.equal(result.data.loadedBy, 'this-run');
  assert.equal(result.target.settings['journal_mode'], 'wal');
  assert.ok(result.host.cores > 0 && result.host.memoryBytes > 0 && result.host.cpuModel !== '');
  assert.equal(result.series.length, 2);
  assert.ok(result.summary.transactions > 0);
  const histogram = decodeHistogram(result.transactions[0]!.histogram);
  assert.equal(histogram.totalCount, result.summary.transactions, 'the stored histogram holds every measured transaction');
  assert.ok(result.summary.clientCpu.usPerTransaction! > 0);
  // A Node.js process with SQLite open holds tens of megabytes; the printed figure is this one rounded.
  const peak = result.summary.clientMemory!.peakRssMB;
  assert.ok(peak > 20 && peak < 2000, `peak memory ${peak} MB`);
  assert.equal(Number(/peak memory (\d+) MB/.exec(run.stdout)![1]), Math.round(peak));

  const again = await runCli(['run', '-t', '25', '-c', '2', '-P', '0', '--per-terminal', '--out', 'second.json'], { cwd });
  assert.equal(again.code, 0, again.stderr);
  assert.doesNotMatch(again.stderr, /loading/, 'existing data is reused');
  const second = JSON.parse(readFileSync(path.join(cwd, 'second.json'), 'utf8')) as RunResult;
  assert.equal(second.summary.transactions, 50);
  assert.deepEqual(
    second.terminals.map((t) => t.transactions),
    [25, 25],
  );
  assert.ok(second.terminals.every((t) => t.maxMs >= t.avgMs && t.avgMs > 0 && t.seconds >= 0));
  assert.match(again.stdout, /^terminal 1: finished 25, time [\d.]+ s, maxWait [\d.]+ ms, avgWait [\d.]+ ms$/m);
  assert.equal(second.data.loadedBy, 'earlier');
  const check = await runCli(['check'], { cwd });
  assert.equal(check.code, 0, check.stdout + check.stderr);
  assert.match(check.stdout, /all 4 checks passed/);
  assertOneLineError(await runCli(['run', '-s', '2', '-t', '1'], { cwd }), /holds tpcb data at scale 1, not 2/);
  const drop = await runCli(['drop'], { cwd });
  assert.equal(drop.code, 0);
  assertOneLineError(await runCli(['check'], { cwd }), /no tpcb data/);
});

test('Ctrl-C stops the run, writes the partial result marked interrupted, and exits 130', async (t) => {
  const cwd = workdir(t);
  const run = await runCli(['run', '-T', '60', '--out', 'partial.json'], { cwd, whenStderr: [/progress: 2\.\d s/, (pid) => process.kill(pid, 'SIGINT')] });
  assert.equal(run.code, 130, run.stderr);
  assert.match(run.stderr, /interrupted/);
  const result = JSON.parse(readFileSync(path.join(cwd, 'partial.json'), 'utf8')) as RunResult;
  assert.equal(result.status, 'interrupted');
  assert.ok(result.summary.transactions > 0);
  assert.ok(result.summary.measuredSeconds >= 2 && result.summary.measuredSeconds < 10, `measured ${result.summary.measuredSeconds}`);
  assert.match(run.stdout, /status: interrupted/);
});

for (const dbms of ['postgres', 'mariadb'] as const) {
  test(`${dbms}: more clients than the server accepts is refused before anything is loaded`, async (t) => {
    const db = await freshDatabase(t, dbms);
    if (!db) return;
    t.after(() => db.dispose());
    // More than max_connections, fewer than the open files a process may usually have (1024).
    const run = await runCli(['run', '--db', db.url, '-c', '1000', '-T', '1']);
    assertOneLineError(run, /the server accepts \d+ more connections \(max_connections \d+, \d+ in use\), but -c 1000 needs 1000/);
    const check = await runCli(['check', '--db', db.url]);
    assertOneLineError(check, /no tpcb data/);
  });

  test(`${dbms}: an unknown database or a wrong login is one line with what to do`, async (t) => {
    const db = await freshDatabase(t, dbms);
    if (!db) return;
    t.after(() => db.dispose());
    assertOneLineError(await runCli(['run', '--db', db.url.replace(/\/[^/]+$/, '/headroom_missing_db')]), /headroom_missing_db.*\(create it first: /);
    // PostgreSQL here trusts every local login, so an unknown role stands in for a wrong password.
    const login = dbms === 'postgres' ? db.url.replace('//postgres@', '//headroom_no_such_role@') : db.url.replace('//root@', '//root:wrong-password@');
    assertOneLineError(
      await runCli(['run', '--db', login]),
      dbms === 'postgres'
        ? /role "headroom_no_such_role" does not exist \(check the user/
        : /^headroom: Access denied for user 'root'.*\(check the user "root" and the password/,
    );
  });

  test(`${dbms}: run with -j 2 loads, measures exactly -t per client, and checks`, async (t) => {
    const db = await freshDatabase(t, dbms);
    if (!db) return;
    t.after(() => db.dispose());
    const cwd = workdir(t);
    const run = await runCli(['run', 'tpcb', '--db', db.url, '-c', '4', '-j', '2', '-t', '30', '--max-tries', '5', '--out', 'r.json'], { cwd });
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(readFileSync(path.join(cwd, 'r.json'), 'utf8')) as RunResult;
    assert.equal(result.summary.transactions + result.summary.failed, 120);
    assert.equal(result.target.dbms, dbms);
    assert.doesNotMatch(JSON.stringify(result), /password/i);
    const check = await runCli(['check', '--db', db.url]);
    assert.equal(check.code, 0, check.stdout);
  });
}
