import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CapturedSession, StatementKind } from '../../../src/workloads/replay/capture-file.js';
import { readCaptureFile } from '../../../src/workloads/replay/capture-io.js';
import type { RunResult } from '../../../src/result/result.js';
import { runCli } from '../../helpers/cli.js';
import { skipOrFail } from '../../helpers/skip-or-fail.js';
import { startThrowawayMariadb, throwawayMariadbUnavailable } from '../../helpers/throwaway-mariadb.js';

/** sysbench's `queries performed:` lines: read, write and other, its transactions and its ignored errors. */
function performed(output: string): { read: number; write: number; other: number; transactions: number; ignored: number } {
  const figure = (label: string): number => {
    const m = new RegExp(`${label}:\\s+(\\d+)`).exec(output);
    assert.ok(m, `${label} in ${output}`);
    return Number(m[1]);
  };
  return { read: figure('read'), write: figure('write'), other: figure('other'), transactions: figure('transactions'), ignored: figure('ignored errors') };
}

function count(sessions: readonly CapturedSession[], ...kinds: StatementKind[]): number {
  return sessions.reduce((n, s) => n + s.statements.filter((st) => kinds.includes(st.kind)).length, 0);
}

test("sysbench oltp_read_write with and without prepared statements: the capture of MariaDB's general log file and table counts exactly what sysbench did", async (t) => {
  if (skipOrFail(t, throwawayMariadbUnavailable())) return;
  if (!existsSync('/usr/bin/sysbench') && skipOrFail(t, 'sysbench is not installed (apt-get install sysbench)')) return;
  const logs = mkdtempSync(path.join(tmpdir(), 'headroom-capture-mariadb-'));
  t.after(() => rmSync(logs, { recursive: true, force: true }));
  // The server writes its general log as the mysql user.
  chownSync(logs, Number(execFileSync('id', ['-u', 'mysql'])), Number(execFileSync('id', ['-g', 'mysql'])));
  const generalLog = path.join(logs, 'general.log');
  const server = await startThrowawayMariadb(['--general-log=1', `--general-log-file=${generalLog}`, '--log-output=FILE,TABLE']);
  t.after(() => server.stop());
  const modes = { prepared: 'auto', text: 'disable' } as const;
  server.sql('CREATE DATABASE capture_sysbench');
  // One user per mode: the Connect lines tell each run's sessions apart in the one log.
  for (const mode of Object.keys(modes)) server.sql(`CREATE USER sb_${mode}@'%'; GRANT ALL ON *.* TO sb_${mode}@'%'`);
  const sysbench = (user: string, args: string[]): string =>
    execFileSync(
      'sysbench',
      [
        'oltp_read_write',
        '--db-driver=mysql',
        '--mysql-host=127.0.0.1',
        `--mysql-port=${server.port}`,
        `--mysql-user=${user}`,
        '--mysql-db=capture_sysbench',
        '--tables=1',
        '--table-size=10000',
        ...args,
      ],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
  sysbench('root', ['prepare']);
  const ran: Record<string, ReturnType<typeof performed>> = {};
  // --events rather than --time: a run cut off by its time leaves a statement logged that sysbench does not count.
  for (const [mode, psMode] of Object.entries(modes))
    ran[mode] = performed(sysbench(`sb_${mode}`, ['--threads=2', '--events=300', '--time=0', `--db-ps-mode=${psMode}`, 'run']));

  const out = path.join(logs, 'capture.json');
  const module = path.join(logs, 'sysbench-load.ts');
  const db = `mariadb://root@127.0.0.1:${server.port}/capture_sysbench`;
  const cli = await runCli(['capture', generalLog, '-o', out, '--module', module, '--server', db]);
  assert.equal(cli.code, 0, cli.stderr);
  const capture = readCaptureFile(out);
  assert.equal(capture.source.kind, 'general-log-file');
  for (const mode of Object.keys(modes)) {
    const did = ran[mode]!;
    const sessions = capture.sessions.filter((s) => s.user === `sb_${mode}`);
    assert.equal(sessions.length, 2, `${mode}: one session per sysbench thread`);
    assert.ok(did.transactions > 0, mode);
    // A statement that failed with an error sysbench ignores (a deadlock between its two threads,
    // 1213) is in the log but in none of sysbench's counts, and sysbench runs that transaction again
    // from its BEGIN: each such error adds one statement and one BEGIN to the capture. Without
    // one (the common case) every figure below is exact.
    const reads = count(sessions, 'select');
    assert.ok(reads >= did.read && reads <= did.read + did.ignored, `${mode}: ${reads} reads captured, sysbench ${did.read} (${did.ignored} ignored errors)`);
    // sysbench counts a statement with no result set that changed no row as "other", not "write"
    // (its drivers: affected rows > 0 ? write : other), so an UPDATE or DELETE that found nothing to
    // change moves from its writes to its others: the sum is exact, the split is not.
    const writes = count(sessions, 'insert', 'update', 'delete');
    const others = count(sessions, 'begin', 'commit', 'rollback');
    assert.equal(reads + writes + others, did.read + did.write + did.other + did.ignored, `${mode}: statements (${did.ignored} ignored errors)`);
    assert.ok(
      writes >= did.write && others <= did.other + did.ignored,
      `${mode}: ${writes} writes, ${others} others captured; sysbench ${did.write} and ${did.other}`,
    );
    const begins = count(sessions, 'begin');
    assert.ok(begins >= did.transactions && begins <= did.transactions + did.ignored, `${mode}: ${begins} transactions begun, sysbench ${did.transactions}`);
    // Prepared statements reach the log as Execute entries with their values written in.
    assert.ok(sessions.every((s) => s.database === 'capture_sysbench' && s.statements.every((st) => !st.sql.includes('?'))));
  }
  assert.match(cli.stdout, /note: MariaDB's general log file times entries to the second/);
  assert.equal(capture.source.server?.port, server.port);

  // mysql.general_log holds the same entries, to the microsecond.
  const tableOut = path.join(logs, 'table.json');
  const table = await runCli(['capture', '--db', db, '--from-table', '-o', tableOut]);
  assert.equal(table.code, 0, table.stderr);
  const fromTable = readCaptureFile(tableOut);
  assert.equal(fromTable.source.kind, 'general-log-table');
  assert.equal(fromTable.source.server?.port, server.port);
  const statements = (sessions: readonly CapturedSession[]) =>
    sessions
      .filter((s) => s.user?.startsWith('sb_'))
      .map((s) => ({ id: s.id, user: s.user, statements: s.statements.map((st) => [st.kind, st.sql]) }))
      .sort((a, b) => Number(a.id) - Number(b.id));
  assert.deepEqual(statements(fromTable.sessions), statements(capture.sessions));
  const times = fromTable.sessions.flatMap((s) => s.statements.map((st) => st.atS));
  assert.ok(
    times.some((s) => s % 1 !== 0),
    'the table times statements within the second',
  );

  // The module written with the capture runs the sysbench mix against the same database.
  assert.match(cli.stdout, /wrote .*sysbench-load\.ts: \d+ transaction shapes/);
  const result = path.join(logs, 'module-run.json');
  const run = await runCli(['run', module, '--db', db, '-c', '1', '-t', '20', '-o', result]);
  assert.equal(run.code, 0, run.stderr);
  const measured = JSON.parse(readFileSync(result, 'utf8')) as RunResult;
  assert.equal(
    measured.transactions.reduce((n, tx) => n + tx.count, 0),
    20,
  );
  assert.ok(
    measured.transactions.every((tx) => tx.failed === 0),
    JSON.stringify(measured.transactions.map((tx) => [tx.name, tx.failed, tx.firstError])),
  );
});
