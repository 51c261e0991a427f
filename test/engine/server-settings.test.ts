import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { resolveTarget } from '../../src/config/target.js';
import type { Connection } from '../../src/drivers/driver.js';
import { createDriver } from '../helpers/drivers.js';
import type { RunResult } from '../../src/result/result.js';
import { runCli, type CliRun } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';
import { startThrowawayMariadb, throwawayMariadbUnavailable } from '../helpers/throwaway-mariadb.js';
import { startThrowawayPostgres, throwawayPostgresUnavailable } from '../helpers/throwaway-postgres.js';
import { skipOrFail } from '../helpers/skip-or-fail.js';

async function valueOf(url: string, sql: string): Promise<string> {
  const driver = createDriver(resolveTarget(url));
  const conn: Connection = await driver.connect();
  try {
    return String((await conn.query(sql))[0]![0]);
  } finally {
    await conn.close();
    await driver.close();
  }
}

test('postgres (throwaway cluster): --set per session makes the run non-durable, a sighup parameter is applied and put back (also after Ctrl-C and an error), a postmaster one is refused', async (t) => {
  if (skipOrFail(t, throwawayPostgresUnavailable())) return;
  const cluster = await startThrowawayPostgres(['host all all 127.0.0.1/32 trust'], []);
  const folder = mkdtempSync(path.join(tmpdir(), 'headroom-set-'));
  t.after(() => {
    cluster.stop();
    rmSync(folder, { recursive: true, force: true });
  });
  const url = `postgres://postgres@127.0.0.1:${cluster.port}/postgres`;
  const before = await valueOf(url, 'SHOW checkpoint_timeout');
  assert.equal(before, '5min');

  const file = path.join(folder, 'set.json');
  const run = await runCli([
    'run',
    'tpcb',
    '--db',
    url,
    '-c',
    '2',
    '-T',
    '1',
    '--live=false',
    '--set',
    'synchronous_commit=off',
    '--set',
    'checkpoint_timeout=13min',
    '-o',
    file,
  ]);
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(readFileSync(file, 'utf8')) as RunResult;
  assert.equal(result.target.durable, false);
  assert.deepEqual(result.target.durabilityRisks, ['synchronous_commit=off']);
  assert.equal(result.target.settings['synchronous_commit'], 'off');
  assert.equal(result.target.settings['checkpoint_timeout'], '13min', 'the run saw the reloaded value');
  assert.deepEqual(result.config.serverSettings, {
    asked: [
      { name: 'synchronous_commit', value: 'off' },
      { name: 'checkpoint_timeout', value: '13min' },
    ],
    applied: [
      { name: 'synchronous_commit', value: 'off', scope: 'session' },
      { name: 'checkpoint_timeout', value: '13min', scope: 'global', previous: '5min', restored: true },
    ],
  });
  assert.match(run.stdout, /--set synchronous_commit=off \(per session\), checkpoint_timeout=13min \(server-wide, put back to 5min\)/);
  assert.equal(await valueOf(url, 'SHOW checkpoint_timeout'), '5min', 'put back after the run');
  assert.equal(await valueOf(url, 'SHOW synchronous_commit'), 'on', 'a session setting never reaches other sessions');

  // Ctrl-C in the middle of the run: the partial result is written and the setting put back.
  const interrupted = await runCli(
    ['run', 'tpcb', '--db', url, '-c', '1', '-T', '30', '--live=false', '--set', 'checkpoint_timeout=14min', '-o', path.join(folder, 'int.json')],
    {
      whenStderr: [/progress: /, (pid) => process.kill(pid, 'SIGINT')],
    },
  );
  assert.equal(interrupted.code, 130, interrupted.stderr);
  assert.equal(await valueOf(url, 'SHOW checkpoint_timeout'), '5min', 'put back after Ctrl-C');

  // An error after the setting was applied (more clients than the server takes): put back too.
  const refused = await runCli(['run', 'tpcb', '--db', url, '-c', '500', '--set', 'checkpoint_timeout=15min']);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /the server accepts \d+ more connections/);
  assert.equal(await valueOf(url, 'SHOW checkpoint_timeout'), '5min', 'put back after an error');

  // A restart-only parameter is refused before anything changes, even beside an accepted one.
  const postmaster = await runCli(['run', 'tpcb', '--db', url, '-T', '1', '--set', 'checkpoint_timeout=16min', '--set', 'shared_buffers=64MB']);
  assert.equal(postmaster.code, 2);
  assert.equal(postmaster.stderr.trim().split('\n').length, 1, postmaster.stderr);
  assert.match(
    postmaster.stderr,
    /^headroom: --set shared_buffers: PostgreSQL applies shared_buffers only at server start, so a restart is needed and headroom does not restart servers/,
  );
  assert.equal(await valueOf(url, 'SHOW checkpoint_timeout'), '5min');
  assert.equal(await valueOf(url, 'SHOW shared_buffers'), '16MB');

  // The experiments take --set the same way, record it in their file, and put it back.
  const experimentFile = path.join(folder, 'peak.json');
  const experiment = await runCli([
    'experiment',
    'peak',
    '--db',
    url,
    '--queries',
    '1',
    '-c',
    '1',
    '-T',
    '1',
    '--set',
    'synchronous_commit=off',
    '--set',
    'checkpoint_timeout=17min',
    '-o',
    experimentFile,
  ]);
  assert.equal(experiment.code, 0, experiment.stderr);
  const peak = JSON.parse(readFileSync(experimentFile, 'utf8')) as {
    target: RunResult['target'];
    serverSettings: RunResult['config']['serverSettings'];
    runs: RunResult[];
  };
  assert.equal(peak.target.durable, false);
  assert.equal(peak.serverSettings?.applied[1]?.restored, true);
  assert.equal(peak.runs[0]?.target.settings['checkpoint_timeout'], '17min');
  assert.equal(await valueOf(url, 'SHOW checkpoint_timeout'), '5min', 'put back after the experiment');

  const unknown = await runCli(['run', 'tpcb', '--db', url, '--set', 'no_such_parameter=1']);
  assert.match(unknown.stderr, /^headroom: --set no_such_parameter: PostgreSQL has no parameter/);
  const malformed = await runCli(['run', 'tpcb', '--db', url, '--set', 'fsync']);
  assert.match(malformed.stderr, /^headroom: --set needs NAME=VALUE/);
});

test('postgres: a session --set reaches every terminal connection', async (t) => {
  const db = await freshDatabase(t, 'postgres');
  if (!db) return;
  t.after(() => db.dispose());
  const url = db.url;
  // application_name is per session and harmless on the shared server; three terminals must carry it.
  const name = `headroom_set_${process.pid}`;
  let seen = 0;
  const run = await runCli(
    [
      'run',
      'peak',
      '--db',
      url,
      '-c',
      '3',
      '-T',
      '3',
      '--live=false',
      '--observe=false',
      '--set',
      `application_name=${name}`,
      '-o',
      path.join(tmpdir(), `${name}.json`),
    ],
    {
      whenStderr: [
        /progress: /,
        () => void valueOf(url, `SELECT count(*) FROM pg_stat_activity WHERE application_name = '${name}'`).then((n) => (seen = Number(n))),
      ],
    },
  );
  rmSync(path.join(tmpdir(), `${name}.json`), { force: true });
  assert.equal(run.code, 0, run.stderr);
  // The admin connection carries it too (so serverInfo sees session settings): 3 terminals + 1.
  assert.equal(seen, 4);
});

test('mariadb (throwaway server): innodb_flush_log_at_trx_commit=2 is applied server-wide, marks the run non-durable, and is put back; a read-only variable is refused', async (t) => {
  if (skipOrFail(t, throwawayMariadbUnavailable())) return;
  const server = await startThrowawayMariadb();
  const folder = mkdtempSync(path.join(tmpdir(), 'headroom-set-'));
  t.after(async () => {
    await server.stop();
    rmSync(folder, { recursive: true, force: true });
  });
  server.sql('CREATE DATABASE bench');
  const url = `mariadb://root@127.0.0.1:${server.port}/bench`;
  assert.equal(await valueOf(url, 'SELECT @@global.innodb_flush_log_at_trx_commit'), '1');
  const file = path.join(folder, 'set.json');
  const run = await runCli([
    'run',
    'tpcb',
    '--db',
    url,
    '-c',
    '2',
    '-T',
    '1',
    '--live=false',
    '--set',
    'innodb_flush_log_at_trx_commit=2',
    '--set',
    'tx_isolation=READ-COMMITTED',
    '-o',
    file,
  ]);
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(readFileSync(file, 'utf8')) as RunResult;
  assert.equal(result.target.durable, false);
  assert.deepEqual(result.target.durabilityRisks, ['innodb_flush_log_at_trx_commit=2']);
  assert.deepEqual(result.config.serverSettings?.applied, [
    { name: 'innodb_flush_log_at_trx_commit', value: '2', scope: 'global', previous: '1', restored: true },
    { name: 'tx_isolation', value: 'READ-COMMITTED', scope: 'session' },
  ]);
  assert.equal(await valueOf(url, 'SELECT @@global.innodb_flush_log_at_trx_commit'), '1', 'put back after the run');

  const readOnly = await runCli(['run', 'tpcb', '--db', url, '--set', 'innodb_page_size=4096']);
  assert.equal(readOnly.code, 2);
  assert.match(readOnly.stderr, /^headroom: --set innodb_page_size: MariaDB reads innodb_page_size only at server start, so a restart is needed/);
});

test('sqlite: --set is a PRAGMA on every connection', async (t) => {
  const folder = mkdtempSync(path.join(tmpdir(), 'headroom-set-'));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  const file = path.join(folder, 'set.json');
  const run = await runCli(['run', 'tpcb', '--db', `sqlite:${path.join(folder, 'x.db')}`, '-T', '1', '--live=false', '--set', 'synchronous=OFF', '-o', file]);
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(readFileSync(file, 'utf8')) as RunResult;
  assert.deepEqual(result.target.durabilityRisks, ['synchronous=OFF']);
  const unknown = await runCli(['run', 'tpcb', '--db', `sqlite:${path.join(folder, 'x.db')}`, '--set', 'no_such_pragma=1']);
  assert.match(unknown.stderr, /^headroom: --set no_such_pragma: SQLite has no PRAGMA no_such_pragma/);
});

test('firebird: --set is refused in one line saying what to do instead', async (t) => {
  const db = await freshDatabase(t, 'firebird');
  if (!db) return;
  t.after(() => db.dispose());
  const firebird = await runCli(['run', 'tpcb', '--db', db.url, '--set', 'forced_writes=off'], {
    env: { ...process.env, DATABASE_URL: undefined, ISC_PASSWORD: 'masterkey' },
  });
  assert.equal(firebird.code, 2);
  assert.equal(firebird.stderr.trim().split('\n').length, 1, firebird.stderr);
  assert.match(
    firebird.stderr,
    /^headroom: --set forced_writes: Firebird 3 has no SQL to change server settings, so headroom cannot apply it \(set it in firebird.conf/,
  );
});

/** The value once a reload has reached new sessions (pg_reload_conf only signals the server). */
async function settledValue(url: string, sql: string, expected: string): Promise<string> {
  let value = await valueOf(url, sql);
  for (let tries = 0; tries < 40 && value !== expected; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await valueOf(url, sql);
  }
  return value;
}

/** The CLI with its pending-settings records in `stateDir`, as a user's would be in ~/.local/state/headroom. */
function cliIn(stateDir: string): typeof runCli {
  return (args, options = {}) => runCli(args, { ...options, env: { ...process.env, DATABASE_URL: undefined, HEADROOM_STATE_DIR: stateDir, ...options.env } });
}

const killAtProgress: [RegExp, (pid: number) => void] = [/progress: /, (pid) => process.kill(pid, 'SIGKILL')];

test('postgres (throwaway cluster): a client killed during --set fsync=off leaves a record; the next command puts fsync back, one changed by hand is left alone, one of a run still going is not touched, a remote server needs --i-accept-data-loss', async (t) => {
  if (skipOrFail(t, throwawayPostgresUnavailable())) return;
  // Also on this machine's own non-loopback address, which headroom takes for a server elsewhere.
  const cluster = await startThrowawayPostgres(
    ['host all all 127.0.0.1/32 trust', 'host all all 192.0.2.2/32 trust'],
    [],
    ["listen_addresses = '127.0.0.1,192.0.2.2'"],
  );
  const stateDir = mkdtempSync(path.join(tmpdir(), 'headroom-state-'));
  t.after(() => {
    cluster.stop();
    rmSync(stateDir, { recursive: true, force: true });
  });
  const cli = cliIn(stateDir);
  const url = `postgres://postgres@127.0.0.1:${cluster.port}/postgres`;
  const autoConf = (name: string): string =>
    `SELECT coalesce((SELECT setting FROM pg_file_settings WHERE name = '${name}' AND sourcefile LIKE '%postgresql.auto.conf'), 'none')`;
  const records = (): string[] => readdirSync(path.join(stateDir, 'pending-settings')).filter((f) => f.endsWith('.json'));

  const killed = await cli(
    ['run', 'tpcb', '--db', url, '-c', '2', '-T', '30', '--live=false', '--observe=false', '--set', 'fsync=off', '-o', path.join(stateDir, 'r.json')],
    { whenStderr: killAtProgress },
  );
  assert.equal(killed.signal, 'SIGKILL', killed.stderr);
  assert.match(killed.stderr, /changing fsync to off \(was on\) for everyone on the server; .* by hand: ALTER SYSTEM RESET fsync; SELECT pg_reload_conf\(\)/);
  assert.equal(await valueOf(url, 'SHOW fsync'), 'off', 'the killed client could not put it back');
  assert.equal(await valueOf(url, autoConf('fsync')), 'off');
  assert.equal(records().length, 1, 'the client-side record');
  assert.match(await valueOf(url, autoConf('headroom.pending_settings')), /"name":"fsync","set":"off","restoreTo":null/, 'the server-side record');

  // Any verb: the next command puts it back before it does its own work, and says so.
  const next = await cli(['check', 'tpcb', '--db', url]);
  assert.equal(next.code, 0, next.stderr);
  assert.match(next.stderr, /put fsync back to on: it was left at off by headroom run on .* pid \d+ at .*, which ended before it could put it back/);
  assert.equal(await settledValue(url, 'SHOW fsync', 'on'), 'on');
  assert.equal(await valueOf(url, autoConf('fsync')), 'none', 'ALTER SYSTEM RESET, as it was before');
  assert.equal(await valueOf(url, autoConf('headroom.pending_settings')), 'none');
  assert.deepEqual(records(), []);
  const nothing = await cli(['restore-settings', '--db', url]);
  assert.equal(nothing.code, 0, nothing.stderr);
  assert.match(nothing.stdout, /no changes by headroom are left to put back/);

  // Killed again, then someone sets it by hand: headroom leaves their value and says so.
  const again = await cli(
    ['run', 'tpcb', '--db', url, '-c', '1', '-T', '30', '--live=false', '--observe=false', '--set', 'fsync=off', '-o', path.join(stateDir, 'r.json')],
    { whenStderr: killAtProgress },
  );
  assert.equal(again.signal, 'SIGKILL', again.stderr);
  cluster.psql("ALTER SYSTEM SET fsync = 'on'");
  const byHand = await cli(['restore-settings', '--db', url]);
  assert.equal(byHand.code, 0, byHand.stderr);
  assert.match(
    byHand.stderr,
    /left fsync alone: it is on now, not the off set by headroom run on .*, so it was changed since; headroom drops its record \(to go back to on by hand: ALTER SYSTEM RESET fsync/,
  );
  assert.equal(await valueOf(url, autoConf('fsync')), 'on', 'the value set by hand stays');
  assert.deepEqual(records(), []);

  // A server elsewhere: fsync=off is refused in one line without the flag, before anything changes.
  const remote = `postgres://postgres@192.0.2.2:${cluster.port}/postgres`;
  const refused = await cli(['run', 'tpcb', '--db', remote, '-T', '1', '--set', 'fsync=off']);
  assert.equal(refused.code, 2);
  assert.equal(refused.stderr.trim().split('\n').length, 1, refused.stderr);
  assert.match(
    refused.stderr,
    /^headroom: --set fsync=off would let the server at 192\.0\.2\.2:\d+ lose commits it acknowledged, .* \(add --i-accept-data-loss/,
  );
  assert.equal(await valueOf(url, autoConf('fsync')), 'on');
  const accepted = await cli([
    'run',
    'tpcb',
    '--db',
    remote,
    '-T',
    '1',
    '--live=false',
    '--observe=false',
    '--set',
    'fsync=off',
    '--i-accept-data-loss',
    '-o',
    path.join(stateDir, 'remote.json'),
  ]);
  assert.equal(accepted.code, 0, accepted.stderr);
  const result = JSON.parse(readFileSync(path.join(stateDir, 'remote.json'), 'utf8')) as RunResult;
  assert.equal(result.target.durable, false);
  assert.deepEqual(result.target.durabilityRisks, ['fsync=off']);
  assert.equal(await valueOf(url, autoConf('fsync')), 'on', 'put back to the value set by hand');
  assert.deepEqual(records(), []);

  // A command beside a run that is still going leaves the run's changes alone. The run is long and
  // ended by Ctrl-C once checked, so that a slow machine cannot finish it before the check starts.
  let progress!: (pid: number) => void;
  const running = new Promise<number>((resolve) => (progress = resolve));
  const run = cli(
    [
      'run',
      'tpcb',
      '--db',
      url,
      '-c',
      '1',
      '-T',
      '120',
      '--live=false',
      '--observe=false',
      '--set',
      'checkpoint_timeout=14min',
      '-o',
      path.join(stateDir, 'r.json'),
    ],
    {
      whenStderr: [/progress: /, (pid) => progress(pid)],
    },
  );
  const runPid = await running;
  const beside = await cli(['restore-settings', '--db', url]);
  assert.match(beside.stderr, /^left in place: checkpoint_timeout=14min, set by headroom run on .*, which is still running \(server session \d+@/);
  assert.equal(await valueOf(url, 'SHOW checkpoint_timeout'), '14min');
  process.kill(runPid, 'SIGINT');
  const ended = await run;
  assert.equal(ended.code, 130, ended.stderr);
  assert.equal(await settledValue(url, 'SHOW checkpoint_timeout', '5min'), '5min');
  assert.deepEqual(records(), []);
});

test('mariadb (throwaway server): a client killed during --set innodb_flush_log_at_trx_commit=0 is undone by the next command, from the server-side record alone; a value changed by hand is left alone', async (t) => {
  if (skipOrFail(t, throwawayMariadbUnavailable())) return;
  const server = await startThrowawayMariadb();
  const stateDir = mkdtempSync(path.join(tmpdir(), 'headroom-state-'));
  t.after(async () => {
    await server.stop();
    rmSync(stateDir, { recursive: true, force: true });
  });
  server.sql('CREATE DATABASE bench');
  const cli = cliIn(stateDir);
  const url = `mariadb://root@127.0.0.1:${server.port}/bench`;
  const flush = 'SELECT @@global.innodb_flush_log_at_trx_commit';
  const recordTables = "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_NAME = 'headroom_pending_settings'";
  const args = [
    'run',
    'tpcb',
    '--db',
    url,
    '-c',
    '2',
    '-T',
    '30',
    '--live=false',
    '--observe=false',
    '--set',
    'innodb_flush_log_at_trx_commit=0',
    '-o',
    path.join(stateDir, 'r.json'),
  ];

  const killed = await cli(args, { whenStderr: killAtProgress });
  assert.equal(killed.signal, 'SIGKILL', killed.stderr);
  assert.match(
    killed.stderr,
    /changing innodb_flush_log_at_trx_commit to 0 \(was 1\) for everyone on the server; .* by hand: SET GLOBAL innodb_flush_log_at_trx_commit = 1/,
  );
  assert.equal(await valueOf(url, flush), '0');
  assert.equal(await valueOf(url, recordTables), '1');
  // Another client machine has no file of its own: the server's record is what it finds.
  rmSync(path.join(stateDir, 'pending-settings'), { recursive: true, force: true });
  const next = await cli(['check', 'tpcb', '--db', url]);
  assert.equal(next.code, 0, next.stderr);
  assert.match(next.stderr, /put innodb_flush_log_at_trx_commit back to 1: it was left at 0 by headroom run on .*, which ended before it could put it back/);
  assert.equal(await valueOf(url, flush), '1');
  assert.equal(await valueOf(url, recordTables), '0', 'the record table goes with its last record');

  const again = await cli(args, { whenStderr: killAtProgress });
  assert.equal(again.signal, 'SIGKILL', again.stderr);
  server.sql('SET GLOBAL innodb_flush_log_at_trx_commit = 2');
  const byHand = await cli(['restore-settings', '--db', url]);
  assert.equal(byHand.code, 0, byHand.stderr);
  assert.match(
    byHand.stderr,
    /left innodb_flush_log_at_trx_commit alone: it is 2 now, not the 0 set by headroom .*, so it was changed since; headroom drops its record/,
  );
  assert.equal(await valueOf(url, flush), '2');
  assert.equal(await valueOf(url, recordTables), '0');
  assert.deepEqual(
    readdirSync(path.join(stateDir, 'pending-settings')).filter((f) => f.endsWith('.json')),
    [],
  );
});

test("postgres: a dead-rows experiment killed while it holds the table's autovacuum off is undone by the next command", async (t) => {
  const db = await freshDatabase(t, 'postgres');
  if (!db) return;
  const stateDir = mkdtempSync(path.join(tmpdir(), 'headroom-state-'));
  t.after(async () => {
    await db.dispose();
    rmSync(stateDir, { recursive: true, force: true });
  });
  const cli = cliIn(stateDir);
  const options = "SELECT COALESCE(array_to_string(reloptions, ','), '') FROM pg_class WHERE relname = 'numbers'";
  const killed = await cli(['experiment', 'dead-rows', '--db', db.url, '-s', '1000', '-c', '1', '-T', '30', '-o', path.join(stateDir, 'dead-rows.json')], {
    whenStderr: [/step 1\/5: read/, (pid) => process.kill(pid, 'SIGKILL')],
  });
  assert.equal(killed.signal, 'SIGKILL', killed.stderr);
  assert.match(
    killed.stderr,
    /changing autovacuum_enabled of table numbers \(database \w+\) to false \(was unset\); .* by hand: ALTER TABLE numbers RESET \(autovacuum_enabled\)/,
  );
  assert.equal(await valueOf(db.url, options), 'autovacuum_enabled=false', 'the killed experiment could not reset it');
  assert.match(await valueOf(db.url, "SELECT obj_description('numbers'::regclass, 'pg_class')"), /^headroom\.pending_settings /, 'the server-side record');
  // Another client machine: the table's comment is what it finds.
  rmSync(path.join(stateDir, 'pending-settings'), { recursive: true, force: true });
  const next = await cli(['restore-settings', '--db', db.url]);
  assert.equal(next.code, 0, next.stderr);
  assert.match(
    next.stderr,
    /put autovacuum_enabled of table numbers \(database \w+\) back to unset: it was left at false by headroom on .*, which ended before it could put it back/,
  );
  assert.equal(await valueOf(db.url, options), '');
  assert.equal(await valueOf(db.url, "SELECT COALESCE(obj_description('numbers'::regclass, 'pg_class'), 'none')"), 'none');
});

/** A command left running: its pid once its first progress line is out, and how it ended. */
function startedRun(cli: typeof runCli, args: readonly string[]): { pid: Promise<number>; ended: Promise<CliRun> } {
  let progress!: (pid: number) => void;
  const pid = new Promise<number>((resolve) => (progress = resolve));
  const ended = cli(args, { whenStderr: [/progress: /, (p) => progress(p)] });
  // A run that fails before its first progress line must not leave the test waiting for ever.
  void ended.then(() => progress(-1));
  return { pid, ended };
}

test('postgres (throwaway cluster): a second --set of a server-wide parameter another command holds is refused naming it (from any database or machine), a value changed under a run is left and recorded, a killed holder blocks nothing', async (t) => {
  if (skipOrFail(t, throwawayPostgresUnavailable())) return;
  const cluster = await startThrowawayPostgres(['host all all 127.0.0.1/32 trust'], ['CREATE DATABASE other']);
  const stateDir = mkdtempSync(path.join(tmpdir(), 'headroom-state-'));
  const elsewhere = mkdtempSync(path.join(tmpdir(), 'headroom-state-'));
  t.after(() => {
    cluster.stop();
    rmSync(stateDir, { recursive: true, force: true });
    rmSync(elsewhere, { recursive: true, force: true });
  });
  const cli = cliIn(stateDir);
  const url = `postgres://postgres@127.0.0.1:${cluster.port}/postgres`;
  const autoConf =
    "SELECT coalesce((SELECT setting FROM pg_file_settings WHERE name = 'checkpoint_timeout' AND sourcefile LIKE '%postgresql.auto.conf'), 'none')";
  const short = ['-c', '1', '-T', '1', '--live=false', '--observe=false'];
  for (const db of [url, url.replace(/postgres$/, 'other')]) assert.equal((await cli(['init', 'tpcb', '--db', db])).code, 0);

  const fileA = path.join(stateDir, 'a.json');
  const a = startedRun(cli, [
    'run',
    'tpcb',
    '--db',
    url,
    '-c',
    '1',
    '-T',
    '120',
    '--live=false',
    '--observe=false',
    '--set',
    'checkpoint_timeout=120s',
    '-o',
    fileA,
  ]);
  const aPid = await a.pid;
  if (aPid < 0) assert.fail((await a.ended).stderr);
  const refusal = new RegExp(
    `^headroom: --set checkpoint_timeout=240s: headroom run on \\S+ pid ${aPid} \\(server session \\d+\\) holds checkpoint_timeout on 127\\.0\\.0\\.1:${cluster.port}: it set it to 120s at \\S+ and puts 5min back when it ends \\(run once it has ended.*: SELECT pg_terminate_backend\\(\\d+\\)\\)$`,
    'm',
  );
  // The same database, then another database of the cluster from another machine (its own state folder).
  const second = await cli(['run', 'tpcb', '--db', url, ...short, '--set', 'checkpoint_timeout=240s']);
  assert.equal(second.code, 2, second.stderr);
  assert.match(second.stderr, refusal);
  const fromElsewhere = await cliIn(elsewhere)(['run', 'tpcb', '--db', url.replace(/postgres$/, 'other'), ...short, '--set', 'checkpoint_timeout=240s']);
  assert.equal(fromElsewhere.code, 2, fromElsewhere.stderr);
  assert.match(fromElsewhere.stderr, refusal);
  assert.equal(await valueOf(url, autoConf), '120s', 'the refused commands changed nothing');
  // A per-session setting is each connection's own: no hold, no refusal.
  const session = await cli(['run', 'tpcb', '--db', url, ...short, '--set', 'synchronous_commit=off', '-o', path.join(stateDir, 's.json')]);
  assert.equal(session.code, 0, session.stderr);

  // Someone changes it while A runs: A leaves their value, says so, and its result records it.
  cluster.psql("ALTER SYSTEM SET checkpoint_timeout = '3min'");
  cluster.psql('SELECT pg_reload_conf()');
  process.kill(aPid, 'SIGINT');
  const endedA = await a.ended;
  assert.equal(endedA.code, 130, endedA.stderr);
  assert.match(
    endedA.stderr,
    /^left checkpoint_timeout at 3min: it is not the 120s this command set, so it was changed while this command ran, which did not run all its time at 120s; headroom leaves the value in force \(to go back to 5min by hand: ALTER SYSTEM RESET checkpoint_timeout; SELECT pg_reload_conf\(\)\)$/m,
  );
  const resultA = JSON.parse(readFileSync(fileA, 'utf8')) as RunResult;
  assert.deepEqual(resultA.config.serverSettings?.applied, [
    { name: 'checkpoint_timeout', value: '120s', scope: 'global', previous: '5min', restored: false, changedTo: '3min' },
  ]);
  assert.match(
    endedA.stdout,
    /--set checkpoint_timeout=120s \(server-wide, changed to 3min during the run by someone else, left at that, not put back to 5min\)/,
  );
  assert.equal(await valueOf(url, autoConf), '3min', 'the value set by hand stays');
  assert.deepEqual(readdirSync(path.join(stateDir, 'pending-settings')), [], 'no record left for the next command to undo');
  cluster.psql('ALTER SYSTEM RESET checkpoint_timeout');
  cluster.psql('SELECT pg_reload_conf()');

  // A killed holder: its session ends with it, and so does its hold; the next run goes ahead at once.
  const killed = await cli(['run', 'tpcb', '--db', url, '-c', '1', '-T', '120', '--live=false', '--observe=false', '--set', 'checkpoint_timeout=120s'], {
    whenStderr: killAtProgress,
  });
  assert.equal(killed.signal, 'SIGKILL', killed.stderr);
  const next = await cli(['run', 'tpcb', '--db', url, ...short, '--set', 'checkpoint_timeout=240s', '-o', path.join(stateDir, 'n.json')]);
  assert.equal(next.code, 0, next.stderr);
  assert.match(next.stderr, /put checkpoint_timeout back to 5min: it was left at 120s by headroom run on /);
  assert.equal(await valueOf(url, autoConf), 'none');

  // A hold no record names (taken a moment before its record is written) is refused too, with what the server tells of it.
  const driver = createDriver(resolveTarget(url));
  const holding = await driver.connect();
  try {
    assert.equal(await driver.pendingStore!.hold(holding, 'checkpoint_timeout'), undefined);
    const [[pid]] = (await holding.query('SELECT pg_backend_pid()')) as [[number]];
    const unnamed = await cli(['run', 'tpcb', '--db', url, ...short, '--set', 'checkpoint_timeout=240s']);
    assert.equal(unnamed.code, 2, unnamed.stderr);
    assert.match(
      unnamed.stderr,
      new RegExp(
        `^headroom: --set checkpoint_timeout=240s: another headroom command \\(server session ${pid} \\(user postgres, from 127\\.0\\.0\\.1, application "headroom", connected at [^)]+\\)\\) holds checkpoint_timeout on 127\\.0\\.0\\.1:\\d+ \\(.*SELECT pg_terminate_backend\\(${pid}\\)\\)$`,
        'm',
      ),
    );
  } finally {
    await holding.close();
    await driver.close();
  }
  assert.equal(await valueOf(url, autoConf), 'none');
});

test('mariadb (throwaway server): a second --set innodb_flush_log_at_trx_commit while another command holds it is refused naming it, the first leaves a value changed under it, a killed holder blocks nothing, and a value MariaDB spells its own way is still taken for headroom’s', async (t) => {
  if (skipOrFail(t, throwawayMariadbUnavailable())) return;
  const server = await startThrowawayMariadb();
  const stateDir = mkdtempSync(path.join(tmpdir(), 'headroom-state-'));
  t.after(async () => {
    await server.stop();
    rmSync(stateDir, { recursive: true, force: true });
  });
  server.sql('CREATE DATABASE bench');
  const cli = cliIn(stateDir);
  const url = `mariadb://root@127.0.0.1:${server.port}/bench`;
  const flush = 'SELECT @@global.innodb_flush_log_at_trx_commit';
  const short = ['-c', '1', '-T', '1', '--live=false', '--observe=false'];
  assert.equal((await cli(['init', 'tpcb', '--db', url])).code, 0);

  const fileA = path.join(stateDir, 'a.json');
  const a = startedRun(cli, [
    'run',
    'tpcb',
    '--db',
    url,
    '-c',
    '1',
    '-T',
    '120',
    '--live=false',
    '--observe=false',
    '--set',
    'innodb_flush_log_at_trx_commit=2',
    '-o',
    fileA,
  ]);
  const aPid = await a.pid;
  if (aPid < 0) assert.fail((await a.ended).stderr);
  const second = await cli(['run', 'tpcb', '--db', url, ...short, '--set', 'innodb_flush_log_at_trx_commit=0']);
  assert.equal(second.code, 2, second.stderr);
  assert.match(
    second.stderr,
    new RegExp(
      `^headroom: --set innodb_flush_log_at_trx_commit=0: headroom run on \\S+ pid ${aPid} \\(server session (\\d+)\\) holds innodb_flush_log_at_trx_commit on 127\\.0\\.0\\.1:${server.port}: it set it to 2 at \\S+ and puts 1 back when it ends \\(run once it has ended.*: KILL \\1\\)$`,
      'm',
    ),
  );
  assert.equal(await valueOf(url, flush), '2', 'the refused command changed nothing');

  server.sql('SET GLOBAL innodb_flush_log_at_trx_commit = 0');
  process.kill(aPid, 'SIGINT');
  const endedA = await a.ended;
  assert.equal(endedA.code, 130, endedA.stderr);
  assert.match(endedA.stderr, /^left innodb_flush_log_at_trx_commit at 0: it is not the 2 this command set, so it was changed while this command ran/m);
  const resultA = JSON.parse(readFileSync(fileA, 'utf8')) as RunResult;
  assert.deepEqual(resultA.config.serverSettings?.applied, [
    { name: 'innodb_flush_log_at_trx_commit', value: '2', scope: 'global', previous: '1', restored: false, changedTo: '0' },
  ]);
  assert.equal(await valueOf(url, flush), '0', 'the value set by hand stays');
  server.sql('SET GLOBAL innodb_flush_log_at_trx_commit = 1');

  const killed = await cli(
    ['run', 'tpcb', '--db', url, '-c', '1', '-T', '120', '--live=false', '--observe=false', '--set', 'innodb_flush_log_at_trx_commit=2'],
    {
      whenStderr: killAtProgress,
    },
  );
  assert.equal(killed.signal, 'SIGKILL', killed.stderr);
  const next = await cli(['run', 'tpcb', '--db', url, ...short, '--set', 'innodb_flush_log_at_trx_commit=0', '-o', path.join(stateDir, 'n.json')]);
  assert.equal(next.code, 0, next.stderr);
  assert.match(next.stderr, /put innodb_flush_log_at_trx_commit back to 1: it was left at 2 by headroom run on /);
  assert.equal(await valueOf(url, flush), '1');

  // A boolean given as ON reads back as ON in SYSTEM_VARIABLES but 1 in @@GLOBAL; given as 1, it reads back ON: both are headroom's own value.
  const hash = "SELECT GLOBAL_VALUE FROM information_schema.SYSTEM_VARIABLES WHERE VARIABLE_NAME = 'INNODB_ADAPTIVE_HASH_INDEX'";
  assert.equal(await valueOf(url, hash), 'OFF');
  const asNumber = await cli(['run', 'tpcb', '--db', url, ...short, '--set', 'innodb_adaptive_hash_index=1', '-o', path.join(stateDir, 'h.json')]);
  assert.equal(asNumber.code, 0, asNumber.stderr);
  const resultH = JSON.parse(readFileSync(path.join(stateDir, 'h.json'), 'utf8')) as RunResult;
  assert.deepEqual(resultH.config.serverSettings?.applied, [
    { name: 'innodb_adaptive_hash_index', value: '1', scope: 'global', previous: 'OFF', restored: true },
  ]);
  assert.equal(await valueOf(url, hash), 'OFF');
  const killedOn = await cli(
    ['run', 'tpcb', '--db', url, '-c', '1', '-T', '120', '--live=false', '--observe=false', '--set', 'innodb_adaptive_hash_index=ON'],
    {
      whenStderr: killAtProgress,
    },
  );
  assert.equal(killedOn.signal, 'SIGKILL', killedOn.stderr);
  const settled = await cli(['restore-settings', '--db', url]);
  assert.equal(settled.code, 0, settled.stderr);
  assert.match(settled.stderr, /put innodb_adaptive_hash_index back to OFF: it was left at ON by headroom run on /);
  assert.equal(await valueOf(url, hash), 'OFF');
});
