import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RunResult } from '../../src/result/result.js';
import type { ServerObservation } from '../../src/observe/run-observer.js';
import { runCli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';
import { startThrowawayPostgres, throwawayPostgresUnavailable } from '../helpers/throwaway-postgres.js';
import { skipOrFail } from '../helpers/skip-or-fail.js';

function workdir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-observe-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function run(t: { after(fn: () => void): void }, db: string): Promise<RunResult & { server: ServerObservation; stdout: string }> {
  const dir = workdir(t);
  const out = path.join(dir, 'r.json');
  const cli = await runCli(['run', 'tpcb', '--db', db, '-c', '2', '-T', '3', '-P', '0', '--out', out]);
  assert.equal(cli.code, 0, cli.stderr);
  const result = JSON.parse(readFileSync(out, 'utf8')) as RunResult;
  assert.ok(result.server, 'every run is observed unless --observe=false');
  return { ...result, server: result.server, stdout: cli.stdout };
}

test('postgres with pg_stat_statements: the run reports its top statements, the server processes, waits and sizes', async (t) => {
  if (skipOrFail(t, throwawayPostgresUnavailable())) return;
  const cluster = await startThrowawayPostgres(
    ['host all all 127.0.0.1/32 trust'],
    ['CREATE EXTENSION pg_stat_statements'],
    ["shared_preload_libraries = 'pg_stat_statements'"],
  );
  t.after(() => cluster.stop());
  const result = await run(t, `postgres://postgres@127.0.0.1:${cluster.port}/postgres`);
  assert.ok('top' in result.server.statements, JSON.stringify(result.server.statements));
  const update = result.server.statements.top.find((s) => /UPDATE pgbench_accounts/.test(s.statement));
  assert.ok(update, JSON.stringify(result.server.statements.top));
  // Only the run counts (the load came before the snapshot); transactions still in flight when
  // the measured period closed ran on the server but are not counted: at most one per client.
  const done = result.summary.transactions + result.summary.failed;
  assert.ok(update.calls >= done && update.calls <= done + 2, `${update.calls} calls for ${done} transactions`);
  assert.ok(update.totalMs > 0 && update.meanMs > 0);
  assert.ok(result.server.host && result.server.host.cpuSeconds > 0 && result.server.host.processes > 0, JSON.stringify(result.server.host));
  assert.ok(result.server.waits && result.server.waits.length >= 2, 'a waits sample each second');
  const accounts = result.server.sizesAfter?.tables.find((table) => table.name === 'pgbench_accounts');
  // Row counts are the server's own estimates (n_live_tup), not exact counts.
  assert.ok(accounts && accounts.bytes > 1e6 && (accounts.rows ?? 0) > 0, JSON.stringify(accounts));
  assert.match(result.stdout, /^verdict: /m);
  assert.match(result.stdout, /^top statements by total time:$/m);
});

test('mariadb without performance_schema: sizes, process-list states and a statement of how to enable statistics', async (t) => {
  const db = await freshDatabase(t, 'mariadb');
  if (!db) return;
  t.after(() => db.dispose());
  const result = await run(t, db.url);
  assert.ok(
    'unavailable' in result.server.statements && /performance_schema/.test(result.server.statements.unavailable),
    JSON.stringify(result.server.statements),
  );
  assert.ok(result.server.sizesAfter?.tables.some((table) => table.name === 'pgbench_accounts' && table.bytes > 1e6));
  assert.ok(result.server.waits !== null);
  assert.ok(result.server.host && result.server.host.processes > 0);
});

test('sqlite: the database size, no server processes, and a verdict about the client alone', async (t) => {
  const dir = workdir(t);
  const result = await run(t, `sqlite:${path.join(dir, 'o.db')}`);
  assert.ok((result.server.sizesAfter?.databaseBytes ?? 0) > 1e6);
  assert.equal(result.server.host, null);
  assert.ok('unavailable' in result.server.statements);
  assert.match(result.stdout, /^verdict: .*(SQLite runs inside the client|client was saturated|unreliable: other processes used)/m);
});

test('--observe=false leaves the server alone and says so in the result', async (t) => {
  const dir = workdir(t);
  const out = path.join(dir, 'r.json');
  const cli = await runCli(['run', 'tpcb', '--db', `sqlite:${path.join(dir, 'n.db')}`, '-t', '10', '-P', '0', '--observe=false', '--out', out]);
  assert.equal(cli.code, 0, cli.stderr);
  assert.equal((JSON.parse(readFileSync(out, 'utf8')) as RunResult).server, null);
  assert.match(cli.stdout, /^verdict: /m);
  assert.doesNotMatch(cli.stdout, /^statements: /m);
});
