import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RunResult } from '../../src/result/result.js';
import { runCli } from '../helpers/cli.js';
import { startThrowawayPostgres, throwawayPostgresUnavailable } from '../helpers/throwaway-postgres.js';

/**
 * The server is killed with SIGKILL in the middle of a journaled run and started again. headroom
 * must reconnect and finish; with durable settings no acknowledged commit may be missing, and with
 * synchronous_commit=off whatever was lost is counted and the result says it is not durable.
 * A cluster of the test's own takes the crash, never the machine's shared server.
 */
test('postgres: a server crash mid-run loses no acknowledged commit with durable settings, and says so when it may', async (t) => {
  const unavailable = throwawayPostgresUnavailable();
  if (unavailable) {
    if (process.env['CI'] === 'true') throw new Error(unavailable);
    t.skip(unavailable);
    return;
  }
  const cluster = await startThrowawayPostgres(['host all all 127.0.0.1/32 trust'], []);
  const work = mkdtempSync(path.join(tmpdir(), 'headroom-crash-'));
  t.after(() => {
    cluster.stop();
    rmSync(work, { recursive: true, force: true });
  });
  const db = `postgres://postgres@127.0.0.1:${cluster.port}/postgres`;

  for (const setting of ['on', 'off'] as const) {
    cluster.psql(`ALTER SYSTEM SET synchronous_commit = ${setting}`);
    cluster.psql('SELECT pg_reload_conf()');
    const journal = path.join(work, `journal-${setting}.log`);
    const out = path.join(work, `result-${setting}.json`);
    const run = await runCli(['run', 'tpcb', '--db', db, '-c', '4', '-T', '9', '--journal', journal, '--out', out], {
      whenStderr: [
        /progress: 2\.0 s/,
        () => {
          cluster.crash();
          setTimeout(() => cluster.start(), 500);
        },
      ],
    });
    assert.equal(run.code, 0, `synchronous_commit=${setting}: ${run.stderr}`);
    const result = JSON.parse(readFileSync(out, 'utf8')) as RunResult;
    assert.equal(result.status, 'completed');
    assert.equal(result.target.durable, setting === 'on');
    const [outage, ...more] = result.summary.connections.outages;
    assert.ok(outage, 'the crash shows as an outage');
    assert.deepEqual(more, [], 'one crash, one outage');
    assert.ok(outage.recovered && outage.terminals === result.summary.failures.connection_lost && outage.seconds > 0, JSON.stringify(result.summary));
    const afterOutage = result.series.filter((p) => p.t > 4.5);
    assert.ok(afterOutage.some((p) => p.transactions > 0), 'transactions committed after the restart');
    assert.ok(result.summary.failures.connection_lost >= 1);

    const check = await runCli(['check', 'tpcb', '--db', db, '--journal', journal]);
    const line = /acknowledged commits kept: (\d+) of (\d+) acknowledged commits are in the database, (\d+) lost(?: \(first lost: [^)]*\))?; (\d+) in flight/.exec(check.stdout);
    assert.ok(line, check.stdout + check.stderr);
    const [, kept, acknowledged, lost] = line.map(Number);
    assert.ok(acknowledged! > 100, `only ${acknowledged} acknowledged commits`);
    assert.equal(kept! + lost!, acknowledged);
    assert.match(check.stdout, /ok {4}balances agree/, 'every transaction is atomic: the balances agree even after a crash');
    if (setting === 'on') assert.equal(lost, 0, check.stdout);
    assert.equal(check.code, lost === 0 ? 0 : 1, check.stdout);
    t.diagnostic(`synchronous_commit=${setting}: ${acknowledged} acknowledged, ${lost} lost, ${line[4]} in flight; outage ${outage.seconds} s`);
  }
});
