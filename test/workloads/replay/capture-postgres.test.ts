import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CaptureFile, CapturedStatement } from '../../../src/workloads/replay/capture-file.js';
import { readCaptureFile } from '../../../src/workloads/replay/capture-io.js';
import type { RunResult } from '../../../src/result/result.js';
import { runCli } from '../../helpers/cli.js';
import { skipOrFail } from '../../helpers/skip-or-fail.js';
import { startThrowawayPostgres, throwawayPostgresUnavailable } from '../../helpers/throwaway-postgres.js';

/** pgbench's built-in tpcb-like script: BEGIN, three updates, a select, an insert, END. */
const PER_TRANSACTION = { begin: 1, update: 3, select: 1, insert: 1, commit: 1 };

/** What pgbench says it did: `number of transactions actually processed: N`. */
function processed(output: string): number {
  const m = /number of transactions actually processed: (\d+)/.exec(output);
  assert.ok(m, output);
  return Number(m[1]);
}

/** The statements of a capture with where they were read left out (stderr and csvlog place them differently). */
function placeless(capture: CaptureFile): unknown {
  return capture.sessions.map((s) => ({ ...s, statements: s.statements.map(({ from: _from, ...rest }) => rest) }));
}

test('pgbench -c 4 under the simple, extended and prepared protocols: the capture of the stderr log and the csvlog counts exactly what pgbench did', async (t) => {
  if (skipOrFail(t, throwawayPostgresUnavailable())) return;
  if (!existsSync('/usr/bin/pgbench') && skipOrFail(t, 'pgbench is not installed (apt-get install postgresql-client)')) return;
  const logs = mkdtempSync(path.join(tmpdir(), 'headroom-capture-pg-'));
  t.after(() => rmSync(logs, { recursive: true, force: true }));
  // The server writes its logs as the postgres user.
  chownSync(logs, Number(execFileSync('id', ['-u', 'postgres'])), Number(execFileSync('id', ['-g', 'postgres'])));
  const modes = ['simple', 'extended', 'prepared'] as const;
  const cluster = await startThrowawayPostgres(
    ['host all all 127.0.0.1/32 trust'],
    // One role per protocol: the log's %u tells each run's sessions apart in the one log.
    ['CREATE DATABASE capture_pgbench', ...modes.map((mode) => `CREATE ROLE pgbench_${mode} SUPERUSER LOGIN`)],
    [
      'logging_collector = on',
      "log_destination = 'stderr,csvlog'",
      `log_directory = '${logs}'`,
      "log_filename = 'server.log'",
      "log_line_prefix = '%m|%u|%d|%c|'",
      "log_statement = 'all'",
      'log_min_duration_statement = 0',
      'log_connections = on',
      'log_disconnections = on',
      "lc_messages = 'C'",
    ],
  );
  t.after(() => cluster.stop());
  const pgbench = (user: string, args: string[]): string =>
    execFileSync('pgbench', ['-h', '127.0.0.1', '-p', String(cluster.port), '-U', user, ...args, 'capture_pgbench'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  pgbench('postgres', ['-i', '-s', '1', '-q']);
  const ran: Record<string, number> = {};
  for (const mode of modes) ran[mode] = processed(pgbench(`pgbench_${mode}`, ['-n', '-c', '4', '-T', mode === 'simple' ? '3' : '2', '-M', mode]));
  // The last entries reach the file once the server's log collector has written them.
  await new Promise((resolve) => setTimeout(resolve, 500));

  const db = `postgres://postgres@127.0.0.1:${cluster.port}/capture_pgbench`;
  // The csvlog holds the same entries: the same capture (read first: --server's question is logged too).
  const csvOut = path.join(logs, 'csv.json');
  const csv = await runCli(['capture', path.join(logs, 'server.csv'), '-o', csvOut]);
  assert.equal(csv.code, 0, csv.stderr);
  const stderrLog = path.join(logs, 'server.log');
  const out = path.join(logs, 'capture.json');
  const module = path.join(logs, 'pgbench-load.ts');
  const cli = await runCli(['capture', stderrLog, '-o', out, '--server', db, '--module', module]);
  assert.equal(cli.code, 0, cli.stderr);
  const capture = readCaptureFile(out);
  for (const mode of modes) {
    const transactions = ran[mode]!;
    assert.ok(transactions > 0, `pgbench ran no transaction under ${mode}`);
    const sessions = capture.sessions.filter((s) => s.user === `pgbench_${mode}`);
    // Four clients and pgbench's own connection, which asks the scale and whether pgbench_accounts is partitioned.
    const clients = sessions.filter((s) => s.statements.some((st) => st.kind === 'begin'));
    assert.equal(clients.length, 4, `${mode}: ${sessions.map((s) => s.id).join(' ')}`);
    assert.equal(sessions.length, 5, mode);
    assert.ok(sessions.every((s) => s.database === 'capture_pgbench'));
    for (const [kind, per] of Object.entries(PER_TRANSACTION))
      assert.equal(
        clients.reduce((n, s) => n + s.statements.filter((st) => st.kind === kind).length, 0),
        transactions * per,
        `${mode}: ${kind} statements, pgbench processed ${transactions} transactions`,
      );
    const setup = sessions.find((s) => !clients.includes(s))!;
    assert.deepEqual(
      setup.statements.map((s) => s.kind),
      ['select', 'select'],
      setup.statements.map((s) => s.sql).join('; '),
    );
    assert.equal(
      sessions.reduce((n, s) => n + s.statements.length, 0),
      transactions * 7 + 2,
      mode,
    );
    // log_min_duration_statement = 0 with log_statement = all: each statement once, with its duration.
    const all: CapturedStatement[] = sessions.flatMap((s) => s.statements);
    assert.ok(
      all.every((s) => s.durationMs !== undefined),
      all
        .filter((s) => s.durationMs === undefined)
        .map((s) => s.from)
        .join(' '),
    );
    const updates = all.filter((s) => s.sql.startsWith('UPDATE pgbench_accounts'));
    assert.equal(updates.length, transactions);
    if (mode === 'simple') assert.ok(updates.every((s) => s.params === undefined && /abalance \+ -?\d+ WHERE aid = \d+/.test(s.sql)));
    else
      assert.ok(
        updates.every((s) => s.params?.length === 2 && s.params.every((p) => /^-?\d+$/.test(p!)) && s.sql.includes('$2')),
        mode,
      );
  }
  // Within a session the statements keep the server's order and time.
  for (const session of capture.sessions)
    for (let i = 1; i < session.statements.length; i++) assert.ok(session.statements[i]!.atS >= session.statements[i - 1]!.atS, session.id);
  // pgbench -i loads pgbench_accounts with COPY FROM STDIN, whose rows the log does not hold.
  assert.deepEqual(
    capture.skipped.map((s) => [s.reason, s.count]),
    [['COPY ... FROM STDIN (its rows are not in the log)', 1]],
  );
  assert.match(cli.stdout, /not captured:\n  1 COPY \.\.\. FROM STDIN \(its rows are not in the log\); first at .*server\.log:\d+\n  that leaves out 1 of /);
  assert.match(capture.source.server?.systemId ?? '', /^\d+$/);
  assert.equal(capture.source.server?.port, cluster.port);
  assert.ok(!readFileSync(out, 'utf8').includes('password'));

  const fromCsv = readCaptureFile(csvOut);
  assert.equal(fromCsv.source.kind, 'csvlog');
  assert.deepEqual(placeless(fromCsv), placeless(capture));
  assert.deepEqual(fromCsv.summary, capture.summary);

  // The module written with the capture runs the captured mix against the same database.
  assert.match(cli.stdout, /wrote .*pgbench-load\.ts: \d+ transaction shapes/);
  assert.match(readFileSync(module, 'utf8'), /UPDATE pgbench_accounts SET abalance = abalance \+ \? WHERE aid = \?/);
  const history = (): number =>
    Number(
      execFileSync(
        'psql',
        ['-h', '127.0.0.1', '-p', String(cluster.port), '-U', 'postgres', '-d', 'capture_pgbench', '-Atc', 'SELECT count(*) FROM pgbench_history'],
        {
          encoding: 'utf8',
        },
      ),
    );
  const rowsBefore = history();
  const result = path.join(logs, 'module-run.json');
  const run = await runCli(['run', module, '--db', db, '-c', '2', '-t', '25', '-o', result]);
  assert.equal(run.code, 0, run.stderr);
  const measured = JSON.parse(readFileSync(result, 'utf8')) as RunResult;
  const tpcb = measured.transactions.find((tx) => tx.name.includes('pgbench_accounts'))!;
  assert.ok(tpcb && tpcb.count > 0 && tpcb.failed === 0, JSON.stringify(measured.transactions));
  assert.equal(
    measured.transactions.reduce((n, tx) => n + tx.count + tx.failed, 0),
    50,
  );
  // Each run of the captured transaction inserted its history row, as pgbench's did.
  assert.equal(history() - rowsBefore, tpcb.count);
});
