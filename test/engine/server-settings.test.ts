import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { resolveTarget } from '../../src/config/target.js';
import type { Connection } from '../../src/drivers/driver.js';
import { createDriver } from '../../src/drivers/registry.js';
import type { RunResult } from '../../src/result/result.js';
import { runCli } from '../helpers/cli.js';
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
  const run = await runCli(['run', 'tpcb', '--db', url, '-c', '2', '-T', '1', '--live=false', '--set', 'synchronous_commit=off', '--set', 'checkpoint_timeout=13min', '-o', file]);
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(readFileSync(file, 'utf8')) as RunResult;
  assert.equal(result.target.durable, false);
  assert.deepEqual(result.target.durabilityRisks, ['synchronous_commit=off']);
  assert.equal(result.target.settings['synchronous_commit'], 'off');
  assert.equal(result.target.settings['checkpoint_timeout'], '13min', 'the run saw the reloaded value');
  assert.deepEqual(result.config.serverSettings, {
    asked: [{ name: 'synchronous_commit', value: 'off' }, { name: 'checkpoint_timeout', value: '13min' }],
    applied: [
      { name: 'synchronous_commit', value: 'off', scope: 'session' },
      { name: 'checkpoint_timeout', value: '13min', scope: 'global', previous: '5min', restored: true },
    ],
  });
  assert.match(run.stdout, /--set synchronous_commit=off \(per session\), checkpoint_timeout=13min \(server-wide, put back to 5min\)/);
  assert.equal(await valueOf(url, 'SHOW checkpoint_timeout'), '5min', 'put back after the run');
  assert.equal(await valueOf(url, 'SHOW synchronous_commit'), 'on', 'a session setting never reaches other sessions');

  // Ctrl-C in the middle of the run: the partial result is written and the setting put back.
  const interrupted = await runCli(['run', 'tpcb', '--db', url, '-c', '1', '-T', '30', '--live=false', '--set', 'checkpoint_timeout=14min', '-o', path.join(folder, 'int.json')], {
    whenStderr: [/progress: /, (pid) => process.kill(pid, 'SIGINT')],
  });
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
  assert.match(postmaster.stderr, /^headroom: --set shared_buffers: PostgreSQL applies shared_buffers only at server start, so a restart is needed and headroom does not restart servers/);
  assert.equal(await valueOf(url, 'SHOW checkpoint_timeout'), '5min');
  assert.equal(await valueOf(url, 'SHOW shared_buffers'), '16MB');

  // The experiments take --set the same way, record it in their file, and put it back.
  const experimentFile = path.join(folder, 'peak.json');
  const experiment = await runCli(['experiment', 'peak', '--db', url, '--queries', '1', '-c', '1', '-T', '1', '--set', 'synchronous_commit=off', '--set', 'checkpoint_timeout=17min', '-o', experimentFile]);
  assert.equal(experiment.code, 0, experiment.stderr);
  const peak = JSON.parse(readFileSync(experimentFile, 'utf8')) as { target: RunResult['target']; serverSettings: RunResult['config']['serverSettings']; runs: RunResult[] };
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
  const run = await runCli(['run', 'peak', '--db', url, '-c', '3', '-T', '3', '--live=false', '--observe=false', '--set', `application_name=${name}`, '-o', path.join(tmpdir(), `${name}.json`)], {
    whenStderr: [/progress: /, () => void valueOf(url, `SELECT count(*) FROM pg_stat_activity WHERE application_name = '${name}'`).then((n) => (seen = Number(n)))],
  });
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
  const run = await runCli(['run', 'tpcb', '--db', url, '-c', '2', '-T', '1', '--live=false', '--set', 'innodb_flush_log_at_trx_commit=2', '--set', 'tx_isolation=READ-COMMITTED', '-o', file]);
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
  const firebird = await runCli(['run', 'tpcb', '--db', db.url, '--set', 'forced_writes=off'], { env: { ...process.env, DATABASE_URL: undefined, ISC_PASSWORD: 'masterkey' } });
  assert.equal(firebird.code, 2);
  assert.equal(firebird.stderr.trim().split('\n').length, 1, firebird.stderr);
  assert.match(firebird.stderr, /^headroom: --set forced_writes: Firebird 3 has no SQL to change server settings, so headroom cannot apply it \(set it in firebird.conf/);
});
