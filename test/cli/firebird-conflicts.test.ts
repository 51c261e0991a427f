import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type { ServerTarget } from '../../src/config/target.js';
import type { RunResult } from '../../src/result/result.js';
import { runCli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';

/**
 * Firebird 3 answers tpcb-like's concurrent updates of its one branch row with update conflicts:
 * at -c 4 without --max-tries most transactions fail. Such a run measured failures, and fails,
 * saying that a retry is what the conflicts need; headroom pgbench keeps pgbench's exit 0.
 */
test('firebird: tpcb -c 4 without --max-tries fails the run and suggests --max-tries; headroom pgbench still exits 0', async (t) => {
  const db = await freshDatabase(t, 'firebird');
  if (!db) return;
  const cwd = mkdtempSync(path.join(tmpdir(), 'headroom-fb-conflicts-'));
  t.after(async () => {
    rmSync(cwd, { recursive: true, force: true });
    await db.dispose();
  });
  const env = { ...process.env, DATABASE_URL: undefined, ISC_PASSWORD: (db.target as ServerTarget).password ?? '' };
  const cli = (args: string[]) => runCli([...args, '--db', db.url], { cwd, env });
  assert.equal((await cli(['init', 'tpcb', '-s', '1'])).code, 0);

  const run = await cli(['run', 'tpcb', '-c', '4', '-T', '3', '-P', '0', '-o', 'r.json']);
  const result = JSON.parse(readFileSync(path.join(cwd, 'r.json'), 'utf8')) as RunResult;
  const failed = result.failedWork?.[0];
  // On one branch row four clients conflict in most transactions; the rule needs more than 5%.
  assert.ok(result.summary.failed / (result.summary.failed + result.summary.transactions) > 0.05, JSON.stringify(result.summary.failures));
  assert.equal(run.code, 1, run.stdout + run.stderr);
  assert.equal(result.status, 'failed');
  assert.equal(failed?.type, 'tpcb-like');
  assert.equal(failed?.firstError?.errorClass, 'retryable');
  assert.match(
    result.statusReason ?? '',
    /^transaction type tpcb-like: [\d.]+% of its \d+ tries failed, above --max-failed 5%; first error: \(retryable \d+\) .*[Uu]pdate conflicts.*\[in tpcb-like, statement: UPDATE pgbench_\w+ .*\] \(a conflict that a new try redoes: add --max-tries, e\.g\. --max-tries 10, as pgbench does\)$/,
  );
  assert.match(run.stdout, /^run failed: transaction type tpcb-like: /m);
  assert.doesNotMatch(/^verdict: .*$/m.exec(run.stdout)?.[0] ?? '', /saturated|could do more/);

  // pgbench exits 0 with failed transactions, and so does headroom pgbench.
  const pgbench = await runCli(['pgbench', '-c', '4', '-T', '2', '-n', db.url], { cwd, env });
  assert.equal(pgbench.code, 0, pgbench.stderr);
  assert.match(pgbench.stdout, /^number of failed transactions: [1-9]\d* \(/m);
});
