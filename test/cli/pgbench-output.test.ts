import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RunResult } from '../../src/result/result.js';
import { runCli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';
import { createDriver } from '../helpers/drivers.js';

function workdir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-pgout-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** One "name: value" or "name = value" line of pgbench's final block, as a pgbench-output parser reads it. */
function field(stdout: string, pattern: string): RegExpExecArray {
  const match = new RegExp(`^${pattern}$`, 'm').exec(stdout);
  assert.ok(match, `no line /${pattern}/ in:\n${stdout}`);
  return match;
}

const PROGRESS =
  /^progress: (\d+\.\d) s, (\d+\.\d) tps, lat (\d+\.\d{3}) ms stddev (\d+\.\d{3}), (\d+) failed(?:, lag (\d+\.\d{3}) ms)?(?:, (\d+) skipped)?(?:, (\d+) retried, (\d+) retries)?(?: \|.*)?$/;

test("run prints pgbench's final block and -P lines, agreeing with the result file; -l writes one line per transaction", async (t) => {
  const db = await freshDatabase(t, 'postgres');
  if (!db) return;
  t.after(() => db.dispose());
  const cwd = workdir(t);
  const init = await runCli(['init', 'tpcb', '--pgbench', '-s', '1', '--db', db.url], { cwd });
  assert.equal(init.code, 0, init.stderr);
  assert.match(
    init.stdout,
    /^done in [\d.]+ s \(drop tables [\d.]+ s, create tables [\d.]+ s, client-side generate [\d.]+ s, vacuum [\d.]+ s, primary keys [\d.]+ s\)\.$/m,
  );

  const prefix = path.join(cwd, 'txlog');
  const args = [
    'run',
    'tpcb',
    '--db',
    db.url,
    '-c',
    '2',
    '-j',
    '2',
    '-T',
    '3',
    '-P',
    '1',
    '--max-tries',
    '3',
    '--failures-detailed',
    '-L',
    '2',
    '-l',
    '--log-prefix',
    prefix,
    '--observe=false',
    '--out',
    'r.json',
  ];
  const run = await runCli(args, { cwd });
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(readFileSync(path.join(cwd, 'r.json'), 'utf8')) as RunResult;
  const { summary } = result;
  const pg = summary.pgbench!;

  assert.equal(field(run.stdout, 'transaction type: (.*)')[1], '<builtin: TPC-B (sort of)>');
  assert.equal(field(run.stdout, 'scaling factor: (\\d+)')[1], '1');
  assert.equal(field(run.stdout, 'query mode: (\\w+)')[1], 'prepared');
  assert.equal(field(run.stdout, 'number of clients: (\\d+)')[1], '2');
  assert.equal(field(run.stdout, 'number of threads: (\\d+)')[1], '2');
  assert.equal(field(run.stdout, 'maximum number of tries: (\\d+)')[1], '3');
  assert.equal(field(run.stdout, 'duration: (\\d+) s')[1], '3');
  assert.equal(Number(field(run.stdout, 'number of transactions actually processed: (\\d+)')[1]), summary.transactions);
  assert.equal(Number(field(run.stdout, 'number of failed transactions: (\\d+) \\(\\d+\\.\\d{3}%\\)')[1]), summary.failed);
  assert.equal(Number(field(run.stdout, 'number of serialization failures: (\\d+) \\(\\d+\\.\\d{3}%\\)')[1]), pg.serializationFailures);
  assert.equal(Number(field(run.stdout, 'number of deadlock failures: (\\d+) \\(\\d+\\.\\d{3}%\\)')[1]), pg.deadlockFailures);
  assert.equal(Number(field(run.stdout, 'number of transactions retried: (\\d+) \\(\\d+\\.\\d{3}%\\)')[1]), pg.transactionsRetried);
  assert.equal(Number(field(run.stdout, 'total number of retries: (\\d+)')[1]), summary.retried);
  const late = field(run.stdout, 'number of transactions above the 2\\.0 ms latency limit: (\\d+)/(\\d+) \\((\\d+\\.\\d{3})%\\)');
  assert.equal(Number(late[1]), pg.late);
  assert.equal(Number(late[2]), summary.transactions);
  assert.equal(Number(field(run.stdout, 'latency average = (\\d+\\.\\d{3}) ms')[1]), pg.latencyAverageMs);
  assert.equal(Number(field(run.stdout, 'latency stddev = (\\d+\\.\\d{3}) ms')[1]), pg.latencyStddevMs);
  const connect = Number(field(run.stdout, 'initial connection time = (\\d+\\.\\d{3}) ms')[1]);
  assert.equal(connect, pg.initialConnectionMs);
  assert.ok(connect > 0, 'opening connections takes time');
  assert.equal(Number(field(run.stdout, 'tps = (\\d+\\.\\d{6}) \\(without initial connection time\\)')[1]), summary.tps);
  // The exact moments and the histogram's agree to the histogram's precision (3 significant digits).
  assert.ok(
    Math.abs(pg.latencyAverageMs - summary.latencyMs.avg) <= 0.01 * summary.latencyMs.avg + 0.002,
    `${pg.latencyAverageMs} vs ${summary.latencyMs.avg}`,
  );
  // pgbench's block comes before headroom's own summary.
  assert.ok(run.stdout.indexOf('transaction type:') < run.stdout.indexOf('latency ms: avg'));

  const progress = run.stderr.split('\n').filter((l) => l.startsWith('progress: '));
  assert.equal(progress.length, result.series.length);
  progress.forEach((line, i) => {
    const m = PROGRESS.exec(line);
    assert.ok(m, `not a pgbench progress line: ${line}`);
    const point = result.series[i]!;
    assert.equal(Number(m[1]), Number(point.t.toFixed(1)));
    assert.equal(Number(m[2]), point.tps);
    assert.equal(Number(m[3]), point.latencyMs.avg);
    assert.equal(Number(m[5]), point.failed);
    assert.equal(Number(m[8]), point.transactionsRetried);
    assert.equal(Number(m[9]), point.retried);
  });

  // -l: one file per job, one line per transaction, late ones exactly those over the limit.
  assert.deepEqual(result.config.log!.files, [`${prefix}.${result.config.log!.files[0]!.split('.').pop()}`, `${result.config.log!.files[0]}.1`]);
  const lines = result.config.log!.files.flatMap((file) => readFileSync(file, 'utf8').trim().split('\n'));
  assert.equal(lines.length, summary.transactions + summary.failed);
  let overLimit = 0;
  for (const line of lines) {
    // --failures-detailed: a failed transaction's line names its kind.
    const m = /^(\d+) (\d+) (\d+|serialization|deadlock|failed) 0 (\d{10}) (\d{1,6}) (\d+)$/.exec(line);
    assert.ok(m, `not a pgbench log line: ${line}`);
    if (/^\d+$/.test(m[3]!) && Number(m[3]) > 2000) overLimit++;
  }
  assert.equal(overLimit, pg.late);
  for (const client of [0, 1]) {
    const own = lines.filter((l) => l.startsWith(`${client} `)).map((l) => Number(l.split(' ')[1]));
    assert.deepEqual(
      own,
      own.map((_, i) => i + 1),
      `client ${client} numbers its transactions from 1`,
    );
  }
});

test('--aggregate-interval writes pgbench 15 aggregate lines; under -R, --latency-limit skips late transactions', async (t) => {
  const db = await freshDatabase(t, 'postgres');
  if (!db) return;
  t.after(() => db.dispose());
  const cwd = workdir(t);
  const prefix = path.join(cwd, 'agg');
  const run = await runCli(
    [
      'run',
      'tpcb',
      '--db',
      db.url,
      '-b',
      'select-only',
      '-c',
      '1',
      '-T',
      '3',
      '-R',
      '5000',
      '-L',
      '0.2',
      '-l',
      '--aggregate-interval',
      '1',
      '--log-prefix',
      prefix,
      '--observe=false',
      '--out',
      'r.json',
    ],
    { cwd },
  );
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(readFileSync(path.join(cwd, 'r.json'), 'utf8')) as RunResult;
  const pg = result.summary.pgbench!;
  assert.ok(pg.skipped > 0, `5000 tps on one client with a 0.2 ms limit must skip some: ${JSON.stringify(pg)}`);
  const skipped = field(run.stdout, 'number of transactions skipped: (\\d+) \\((\\d+\\.\\d{3})%\\)');
  assert.equal(Number(skipped[1]), pg.skipped);
  assert.equal(Number(skipped[2]), Number(((pg.skipped / (pg.skipped + result.summary.transactions)) * 100).toFixed(3)));
  field(run.stdout, 'rate limit schedule lag: avg \\d+\\.\\d{3} \\(max \\d+\\.\\d{3}\\) ms');
  assert.match(run.stderr, /^progress: 1\.0 s, [\d.]+ tps, lat [\d.]+ ms stddev [\d.]+, 0 failed, lag [\d.]+ ms, \d+ skipped \| /m);

  const lines = readFileSync(result.config.log!.files[0]!, 'utf8').trim().split('\n');
  const rows = lines.map((line) => {
    const fields = line.split(' ').map(Number);
    assert.equal(fields.length, 15, `15 fields: ${line}`);
    assert.ok(fields.every(Number.isFinite), line);
    return fields;
  });
  const sum = (i: number): number => rows.reduce((n, r) => n + r[i]!, 0);
  // The intervals that ended by the end of a 3 s run, the one still open left out, as pgbench leaves it.
  assert.ok(rows.length >= 3 && rows.length <= 4, `3 s in whole one-second intervals: ${lines.join('\n')}`);
  assert.ok(sum(1) > 0 && sum(1) <= result.summary.transactions, `num_transactions ${sum(1)} of ${result.summary.transactions}`);
  assert.ok(sum(10) > 0 && sum(10) <= pg.skipped, `skipped ${sum(10)} of ${pg.skipped}`);
  for (const r of rows) {
    if (r[1] === 0) continue;
    assert.ok(r[4]! <= r[2]! / r[1]! && r[2]! / r[1]! <= r[5]!, `min_latency <= sum_latency / num_transactions <= max_latency: ${r.join(' ')}`);
    assert.ok(r[8]! <= r[6]! / r[1]! && r[6]! / r[1]! <= r[9]!, `min_lag <= sum_lag / num_transactions <= max_lag: ${r.join(' ')}`);
  }
  for (let i = 1; i < rows.length; i++) assert.equal(rows[i]![0], rows[i - 1]![0]! + 1, 'intervals follow each other, one second apart');
});

test('pgbench run options refuse what pgbench refuses', async (t) => {
  const file = path.join(workdir(t), 'refuse.db');
  for (const [args, message] of [
    [['run', '--aggregate-interval', '5'], /--aggregate-interval only applies with -l\/--log/],
    [['run', '-l', '--aggregate-interval', '5', '--sampling-rate', '0.5'], /--sampling-rate and --aggregate-interval cannot be used together/],
    [['run', '-l', '--sampling-rate', '2'], /--sampling-rate must be more than 0 and at most 1/],
    [['init', '--partitions', '2'], /--partitions applies with --pgbench only/],
    [['init', 'tpcb', '--pgbench', '-I', 'dtx'], /unknown initialization step "x"/],
  ] as const) {
    const run = await runCli([...args, '--db', `sqlite:${file}`]);
    assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, message);
  }
});

test("several scripts: pgbench's per-script section; simple-update leaves tellers and branches alone and check still passes", async (t) => {
  const db = await freshDatabase(t, 'sqlite');
  if (!db) return;
  t.after(() => db.dispose());
  const cwd = workdir(t);
  const run = await runCli(['run', 'tpcb', '--db', db.url, '-b', 'tpcb-like@2', '-b', 'simple-update@1', '-t', '30', '--out', 'r.json'], { cwd });
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(readFileSync(path.join(cwd, 'r.json'), 'utf8')) as RunResult;
  assert.equal(field(run.stdout, 'transaction type: (.*)')[1], 'multiple scripts');
  assert.equal(field(run.stdout, 'number of transactions actually processed: (\\d+/\\d+)')[1], '30/30');
  field(run.stdout, 'SQL script 1: <builtin: TPC-B \\(sort of\\)>');
  field(run.stdout, 'SQL script 2: <builtin: simple update>');
  field(run.stdout, ' - weight: 2 \\(targets 66\\.7% of total\\)');
  const counts = [...run.stdout.matchAll(/^ - (\d+) transactions \((\d+\.\d)% of total, tps = [\d.]+\)$/gm)].map((m) => Number(m[1]));
  assert.deepEqual(
    counts,
    result.transactions.map((t) => t.count),
  );
  // The deck deals exactly 2:1 over every deck of three.
  assert.deepEqual(counts, [20, 10]);
  const check = await runCli(['check', 'tpcb', '--db', db.url]);
  assert.equal(check.code, 0, check.stdout);
  assert.match(check.stdout, /ok {4}balances agree: sum\(abalance\) = (-?\d+), sum\(tbalance\) = (-?\d+), sum\(bbalance\) = \2, sum\(history.delta\) = \1/);
});

test('--failures-detailed counts serialization failures; retried transactions and retries agree across block, result and logs', async (t) => {
  const db = await freshDatabase(t, 'postgres');
  if (!db) return;
  t.after(() => db.dispose());
  const cwd = workdir(t);
  const init = await runCli(['init', 'tpcb', '--pgbench', '-s', '1', '--db', db.url], { cwd });
  assert.equal(init.code, 0, init.stderr);
  // Serializable on this test database only: concurrent tpcb-like updates of the one branch row fail with 40001.
  const driver = createDriver(db.target);
  const conn = await driver.connect();
  const name = (db.target as { database: string }).database;
  await conn.query(`ALTER DATABASE ${name} SET default_transaction_isolation = 'serializable'`);
  await conn.close();
  await driver.close();

  for (const maxTries of [1, 5]) {
    const prefix = path.join(cwd, `fail${maxTries}`);
    const run = await runCli(
      [
        'run',
        'tpcb',
        '--db',
        db.url,
        '-c',
        '4',
        '-T',
        '2',
        '--max-tries',
        String(maxTries),
        '--failures-detailed',
        // The failures are what this test counts: accepted, not a failed run.
        '--max-failed',
        '100%',
        '-l',
        '--log-prefix',
        prefix,
        '--observe=false',
        '--out',
        `r${maxTries}.json`,
      ],
      { cwd },
    );
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(readFileSync(path.join(cwd, `r${maxTries}.json`), 'utf8')) as RunResult;
    const { summary } = result;
    const pg = summary.pgbench!;
    assert.equal(Number(field(run.stdout, 'number of serialization failures: (\\d+) \\(\\d+\\.\\d{3}%\\)')[1]), pg.serializationFailures);
    assert.equal(Number(field(run.stdout, 'number of deadlock failures: (\\d+) \\(\\d+\\.\\d{3}%\\)')[1]), pg.deadlockFailures);
    assert.equal(pg.serializationFailures + pg.deadlockFailures, summary.failures.retryable);
    assert.equal(summary.failed, summary.failures.retryable, 'every failure here is a serialization failure');
    const lines = readFileSync(result.config.log!.files[0]!, 'utf8').trim().split('\n');
    assert.equal(lines.length, summary.transactions + summary.failed);
    // With --failures-detailed a failed transaction's line names its kind, as pgbench 15 writes it.
    assert.equal(lines.filter((l) => l.split(' ')[2] === 'serialization').length, summary.failed);
    if (maxTries === 1) {
      assert.ok(pg.serializationFailures > 0, `4 serializable clients on one branch row must conflict: ${JSON.stringify(summary.failures)}`);
      assert.doesNotMatch(run.stdout, /number of transactions retried/);
      assert.equal(lines[0]!.split(' ').length, 6, 'no retries column with --max-tries 1');
    } else {
      assert.ok(pg.transactionsRetried > 0 && summary.retried >= pg.transactionsRetried, JSON.stringify(pg));
      assert.equal(Number(field(run.stdout, 'number of transactions retried: (\\d+) \\(\\d+\\.\\d{3}%\\)')[1]), pg.transactionsRetried);
      assert.equal(Number(field(run.stdout, 'total number of retries: (\\d+)')[1]), summary.retried);
      const retries = lines.map((l) => Number(l.split(' ')[6]));
      assert.equal(retries.filter((r) => r > 0).length, pg.transactionsRetried, 'log lines with retries = transactions retried');
      assert.equal(
        retries.reduce((a, b) => a + b, 0),
        summary.retried,
        'retries column adds up to the retries',
      );
    }
  }
});

test('-P 2 reports each two-second interval as a whole, as pgbench does', async (t) => {
  const db = await freshDatabase(t, 'sqlite');
  if (!db) return;
  t.after(() => db.dispose());
  const cwd = workdir(t);
  const run = await runCli(['run', 'tpcb', '--db', db.url, '-b', 'select-only', '-T', '4', '-P', '2', '--out', 'r.json'], { cwd });
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(readFileSync(path.join(cwd, 'r.json'), 'utf8')) as RunResult;
  const lines = run.stderr.split('\n').filter((l) => l.startsWith('progress: '));
  assert.equal(lines.length, Math.floor(result.series.length / 2), run.stderr);
  lines.forEach((line, i) => {
    const m = PROGRESS.exec(line);
    assert.ok(m, line);
    const pair = result.series.slice(2 * i, 2 * i + 2);
    assert.equal(Number(m[1]), Number(pair[1]!.t.toFixed(1)));
    const transactions = pair[0]!.transactions + pair[1]!.transactions;
    assert.equal(Number(m[2]), Number((transactions / (pair[0]!.seconds + pair[1]!.seconds)).toFixed(1)));
    const avg = (pair[0]!.transactions * pair[0]!.latencyMs.avg + pair[1]!.transactions * pair[1]!.latencyMs.avg) / transactions;
    assert.ok(Math.abs(Number(m[3]) - avg) <= 0.0005, `${m[3]} vs ${avg}`);
  });
});

test('--sampling-rate logs about that fraction of the transactions', async (t) => {
  const db = await freshDatabase(t, 'sqlite');
  if (!db) return;
  t.after(() => db.dispose());
  const cwd = workdir(t);
  const run = await runCli(
    [
      'run',
      'tpcb',
      '--db',
      db.url,
      '-b',
      'select-only',
      '-t',
      '2000',
      '-l',
      '--sampling-rate',
      '0.1',
      '--log-prefix',
      path.join(cwd, 'sample'),
      '--out',
      'r.json',
    ],
    { cwd },
  );
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(readFileSync(path.join(cwd, 'r.json'), 'utf8')) as RunResult;
  assert.equal(result.summary.transactions, 2000);
  const lines = readFileSync(result.config.log!.files[0]!, 'utf8').trim().split('\n');
  // Binomial(2000, 0.1): mean 200, standard deviation 13.4; 120..280 is six deviations either side.
  assert.ok(lines.length > 120 && lines.length < 280, `${lines.length} lines logged of 2000 at 0.1`);
  const numbers = lines.map((l) => Number(l.split(' ')[1]));
  assert.ok(
    numbers.every((n, i) => i === 0 || n > numbers[i - 1]!),
    'transaction numbers count all transactions, logged or not',
  );
  assert.ok(numbers[numbers.length - 1]! > lines.length, 'the sampled lines skip numbers');
});
