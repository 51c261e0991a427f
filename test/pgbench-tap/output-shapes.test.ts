import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli, type CliRun } from '../helpers/cli.js';
import { sideBySide, tapServer } from './harness.js';

/**
 * pgbench 15's output and log shapes, line for line: the same command through headroom pgbench
 * and through pgbench itself on the same database, the figures masked, the shapes compared.
 */
const server = tapServer(true);

const { pgbench, both, script } = sideBySide(server);

/** Each tool's -l files in a folder of their own: --log-prefix PREFIX writes PREFIX.PID[.N]. */
function logFolder(who: string, name: string): string {
  const dir = path.join(server.dir, `${name}-${who}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

function logLines(dir: string): string[] {
  return readdirSync(dir).flatMap((file) =>
    readFileSync(path.join(dir, file), 'utf8')
      .split('\n')
      .filter((line) => line !== ''),
  );
}

/** A line with its figures masked: what must be the same in both tools. */
function shape(line: string): string {
  return line.replace(/\d+(\.\d+)?/g, 'N');
}

test('-i: the step lines, a progress line per 100,000 accounts and the closing line on stderr, as pgbench prints them; -q prints fewer', async (t) => {
  const runs = await both(t, ['-i', '-s', '2']);
  if (!runs) return;
  const lines = (run: CliRun): string[] => run.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('NOTICE:'));
  for (const [who, run] of Object.entries(runs)) {
    assert.equal(run.code, 0, `${who}: ${run.stderr}`);
    assert.equal(run.stdout, '', who);
    const progress = lines(run).filter((line) => line.includes('tuples'));
    assert.deepEqual(
      progress.map((line) => /^(\d+) of 200000 tuples \((\d+)%\) done \(elapsed \d+\.\d\d s, remaining \d+\.\d\d s\)$/.exec(line)?.slice(1, 3)),
      [
        ['100000', '50'],
        ['200000', '100'],
      ],
      `${who}:\n${run.stderr}`,
    );
  }
  assert.deepEqual(lines(runs.ours).map(shape), lines(runs.theirs).map(shape));
  // -q: a line about every 5 s and the last; 200,000 rows take less than 5 s, so only the last.
  const quiet = await both(t, ['-i', '-q', '-s', '2']);
  for (const [who, run] of Object.entries(quiet!)) {
    assert.equal(run.code, 0, `${who}: ${run.stderr}`);
    assert.deepEqual(
      lines(run)
        .filter((line) => line.includes('tuples'))
        .map((line) => line.split(' (elapsed')[0]),
      ['200000 of 200000 tuples (100%) done'],
      `${who}:\n${run.stderr}`,
    );
  }
});

test(':scale of custom scripts is -s, else 1; pgbench_branches gives it only when a built-in script runs', async (t) => {
  const file = script('scale.sql', '\\set s debug(:scale)\nselect count(*) from pgbench_branches;\n');
  const cases: [string[], string][] = [
    [['-f', file], '1'],
    [['-s', '3', '-f', file], '3'],
    [['-b', 'select-only', '-f', file], '2'],
  ];
  for (const [args, scale] of cases) {
    const runs = await both(t, ['-n', '-t', '1', ...args]);
    if (!runs) return;
    for (const [who, run] of Object.entries(runs)) {
      assert.equal(run.code, 0, `${who}: ${run.stderr}`);
      assert.match(run.stdout, new RegExp(`^scaling factor: ${scale}$`, 'm'), `${who} ${args.join(' ')}`);
      // -b's script may run instead of the file's in a one-transaction run: its debug line is there only when the file ran.
      const debug = /debug\(script=\d+,command=1\): int (\d+)/.exec(run.stderr);
      if (debug) assert.equal(debug[1], scale, `${who} ${args.join(' ')}`);
    }
  }
});

test('--aggregate-interval: the interval still open when the run ends is not written', async (t) => {
  // A run of well under a minute: no 60-second interval ends during it, so neither tool writes a line.
  for (const who of ['ours', 'theirs']) {
    const dir = logFolder(who, 'agg60');
    const args = ['-n', '-S', '-t', '20', '-l', '--aggregate-interval', '60', '--log-prefix', path.join(dir, 'log')];
    const run = who === 'ours' ? await runCli(['pgbench', ...args], { env: server.env }) : pgbench(args);
    if (!server.db) return void t.skip('no test database');
    assert.equal(run.code, 0, `${who}: ${run.stderr}`);
    assert.deepEqual(logLines(dir), [], who);
  }
  // Three seconds at one-second intervals: the whole intervals ended by the end of the run, each a
  // line of 15 figures. Intervals start on whole seconds of the clock, so a run of T seconds ends
  // T - 1 to T + 1 of them: T - 1 when it started on the second (its last one still open at the
  // end), T + 1 when a first, part-filled one began before its start. Two seconds gave pgbench
  // itself one line in such a run (4,687 transactions in its first second, under CI's load).
  for (const who of ['ours', 'theirs']) {
    const dir = logFolder(who, 'agg1');
    const args = ['-n', '-S', '-T', '3', '-l', '--aggregate-interval', '1', '--log-prefix', path.join(dir, 'log')];
    const run = who === 'ours' ? await runCli(['pgbench', ...args], { env: server.env }) : pgbench(args);
    const ended = Date.now() / 1000;
    assert.equal(run.code, 0, `${who}: ${run.stderr}`);
    const lines = logLines(dir);
    assert.ok(lines.length >= 2 && lines.length <= 4, `${who}: ${lines.join('\n')}`);
    for (const line of lines) {
      assert.match(line, /^\d{10}( \d+){14}$/, who);
      assert.ok(Number(line.split(' ')[0]) + 1 <= ended, `${who}: interval ${line} had not ended when the run did (${ended})`);
    }
  }
});

test('-R -L -l: a skipped transaction is logged with schedule lag 0, as pgbench logs it', async (t) => {
  for (const who of ['ours', 'theirs']) {
    const dir = logFolder(who, 'skipped');
    // 50,000 tps asked of one client, a transaction due every 20 us: it falls more than 1 ms behind
    // within its first few, and most are skipped. (At 5,000, a quiet machine's pgbench kept up and
    // skipped none: its selects took 0.15-0.7 ms, and one second was not long enough to fall behind.)
    const args = ['-n', '-S', '-T', '1', '-R', '50000', '-L', '1', '-l', '--log-prefix', path.join(dir, 'log')];
    const run = who === 'ours' ? await runCli(['pgbench', ...args], { env: server.env }) : pgbench(args);
    if (!server.db) return void t.skip('no test database');
    assert.equal(run.code, 0, `${who}: ${run.stderr}`);
    const lines = logLines(dir);
    // About 50,000 lines: split once (a search of the skipped list for each line took 80 s).
    const isSkipped = (line: string): boolean => line.split(' ')[2] === 'skipped';
    const skipped = lines.filter(isSkipped);
    assert.ok(skipped.length > 0, `${who}: no transaction skipped in\n${lines.slice(0, 20).join('\n')}`);
    for (const line of skipped) assert.match(line, /^0 \d+ skipped 0 \d{10} \d{1,6} 0$/, who);
    for (const line of lines.filter((l) => !isSkipped(l))) assert.match(line, /^0 \d+ \d+ 0 \d{10} \d{1,6} \d+$/, who);
    // Under -R headroom prints one line more than pgbench, right after pgbench's lag line: the lag's tail.
    const lag =
      /^rate limit schedule lag: avg [\d.]+ \(max ([\d.]+)\) ms\n(schedule lag percentiles \(headroom\): p50 ([\d.]+) p99 ([\d.]+) max ([\d.]+) ms; schedule kept by the native reactor's timer \(timerfd, to the microsecond\)\n)?/m.exec(
        run.stdout,
      );
    assert.ok(lag, `${who}: no schedule lag line in\n${run.stdout}`);
    if (who === 'theirs') continue;
    assert.ok(lag[2], `ours: no percentiles line after the lag line in\n${run.stdout}`);
    const [p50, p99, max] = lag.slice(3, 6).map(Number) as [number, number, number];
    assert.equal(lag[5], lag[1], 'the same maximum in both lines');
    assert.ok(p50 <= p99 && p99 <= max, lag[2]);
  }
});

const STATEMENTS = [
  '\\set aid random(1, 100000 * :scale)',
  'SELECT abalance',
  '  FROM pgbench_accounts WHERE aid = :aid \\gset',
  'select :abalance \\; select 2;',
  'select 1 as a \\aset',
  '\\if :a = 1',
  'select 1;',
  '\\else',
  'select 2;',
  '\\endif',
  'BEGIN;',
  'END;',
  '',
].join('\n');

test("-r: pgbench's per-statement lines, widths and command texts, with and without retries, alone and in a script's section", async (t) => {
  const file = script('statements.sql', STATEMENTS);
  // The last: a script the mix never draws (weight 0), whose section pgbench prints without latencies.
  for (const extra of [
    ['-f', file],
    ['--max-tries', '2', '-f', file],
    ['-b', 'select-only', '-f', file],
    ['-b', 'select-only@1', '-f', `${file}@0`],
  ]) {
    // 20 transactions, not 4: pgbench draws each transaction's script at random, and with 4 it gave
    // one of two scripts none 1 time in 8 (a section without latencies: the shapes then differ,
    // where headroom's deck deals each script its share). With 20: 1 time in 500,000.
    const runs = await both(t, ['-n', '-t', '20', '-r', ...extra]);
    if (!runs) return;
    const section = (run: CliRun): string[] => {
      const lines = run.stdout.split('\n');
      return lines.slice(lines.findIndex((line) => line.includes('statement latencies')));
    };
    for (const [who, run] of Object.entries(runs)) assert.equal(run.code, 0, `${who}: ${run.stderr}`);
    // The figures differ; the columns' widths, which columns there are and the commands' texts do not.
    const masked = (run: CliRun): string[] =>
      section(run).map((line) => {
        const m = /^ {3}[ \d]{6}\d\.\d{3} {2}[ \d]{10}( {2}[ \d]{10})? {2}(.*)$/.exec(line);
        return m ? `LATENCY FAILURES${m[1] ? ' RETRIES' : ''} ${m[2]}` : shape(line);
      });
    assert.deepEqual(masked(runs.ours), masked(runs.theirs), `${extra.join(' ')}\n--- ours:\n${runs.ours.stdout}\n--- pgbench:\n${runs.theirs.stdout}`);
  }
});

test('-r with --max-tries: an error tried again counts as a retry of its command, one that ends the transaction as a failure', async (t) => {
  // Four clients update one row under REPEATABLE READ, a pause between reading and writing it: serialization failures.
  const file = script(
    'conflict.sql',
    'BEGIN ISOLATION LEVEL REPEATABLE READ;\nSELECT abalance FROM pgbench_accounts WHERE aid = 1;\n\\sleep 5 ms\nUPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = 1;\nEND;\n',
  );
  const runs = await both(t, ['-n', '-c', '4', '-T', '2', '--max-tries', '3', '-r', '-f', file]);
  if (!runs) return;
  for (const [who, run] of Object.entries(runs)) {
    assert.equal(run.code, 0, `${who}: ${run.stderr}`);
    const failed = Number(/^number of failed transactions: (\d+)/m.exec(run.stdout)![1]);
    const retries = Number(/^total number of retries: (\d+)$/m.exec(run.stdout)![1]);
    const update = /^ {3}[ \d.]{11} {2}([ \d]{10}) {2}([ \d]{10}) {2}UPDATE /m.exec(run.stdout);
    assert.ok(update, `${who}: no UPDATE line with failures and retries in\n${run.stdout}`);
    assert.ok(retries > 0, `${who}: four clients on one row must conflict:\n${run.stdout}`);
    // The totals count transactions that ended in the run; the commands also count the tries in flight at its end (a few, one per client at most).
    const [commandFailures, commandRetries] = [Number(update[1]), Number(update[2])];
    assert.ok(commandFailures >= failed && commandFailures <= failed + 4, `${who}: ${commandFailures} failures in the UPDATE, ${failed} failed transactions`);
    assert.ok(commandRetries >= retries && commandRetries <= retries + 4 * 2, `${who}: ${commandRetries} retries in the UPDATE, ${retries} in all`);
  }
});

test('scripts are numbered in command-line order, a -f before a -b first, as pgbench numbers them', async (t) => {
  const file = script('first.sql', 'select 1;\n');
  const runs = await both(t, ['-n', '-t', '10', '-f', `${file}@3`, '-b', 'select-only@1']);
  if (!runs) return;
  const sections = (run: CliRun): string[] => run.stdout.split('\n').filter((line) => /^(SQL script \d+:| - weight:)/.test(line));
  for (const [who, run] of Object.entries(runs)) assert.equal(run.code, 0, `${who}: ${run.stderr}`);
  assert.deepEqual(sections(runs.ours), [
    `SQL script 1: ${file}`,
    ' - weight: 3 (targets 75.0% of total)',
    'SQL script 2: <builtin: select only>',
    ' - weight: 1 (targets 25.0% of total)',
  ]);
  assert.deepEqual(sections(runs.ours), sections(runs.theirs));
  // headroom run takes the order as --script-order, and refuses one that does not fit the scripts.
  const misfit = await runCli(['run', 'tpcb', '--db', server.db!.url, '-t', '1', '-f', file, '-b', 'select-only', '--script-order', 'ff'], { env: server.env });
  assert.equal(misfit.code, 2, misfit.stderr);
  assert.match(misfit.stderr, /^headroom: --script-order ff does not fit 1 -b and 1 -f scripts \(give one letter per script, b for each -b and f for each -f/);
});

test('-b list and --show-script: the listing on stderr, ended by an empty line, as pgbench prints it', async (t) => {
  for (const args of [['-b', 'list'], ['--show-script=select-only']]) {
    const ours = await runCli(['pgbench', ...args], { env: server.env });
    const theirs = pgbench(args);
    if (!server.db) return void t.skip('no test database');
    assert.equal(ours.code, theirs.code, args.join(' '));
    assert.equal(ours.stdout, theirs.stdout, args.join(' '));
    assert.equal(ours.stderr, theirs.stderr, args.join(' '));
  }
});
