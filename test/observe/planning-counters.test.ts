import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RunResult } from '../../src/result/result.js';
import { runCli } from '../helpers/cli.js';
import { skipOrFail } from '../helpers/skip-or-fail.js';
import { startThrowawayPostgres, throwawayPostgresUnavailable } from '../helpers/throwaway-postgres.js';

test("postgres with pg_stat_statements.track_planning: the chain study's joins' planning as the server counted it over the run", async (t) => {
  if (skipOrFail(t, throwawayPostgresUnavailable())) return;
  const cluster = await startThrowawayPostgres(
    ['host all all 127.0.0.1/32 trust'],
    ['CREATE EXTENSION pg_stat_statements'],
    ["shared_preload_libraries = 'pg_stat_statements'", 'pg_stat_statements.track_planning = on'],
  );
  t.after(() => cluster.stop());
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-planning-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const db = `postgres://postgres@127.0.0.1:${cluster.port}/postgres`;
  const runs: Record<string, RunResult & { stdout: string }> = {};
  for (const style of ['study', 'prepared']) {
    const out = path.join(dir, `${style}.json`);
    const cli = await runCli(['run', 'chain', '--db', db, '-s', '1/5000', '--statements', style, '-c', '2', '-T', '2', '-P', '0', '-o', out]);
    assert.equal(cli.code, 0, cli.stderr);
    runs[style] = { ...(JSON.parse(readFileSync(out, 'utf8')) as RunResult), stdout: cli.stdout };
  }
  const join = (r: RunResult) => {
    const top = (r.server!.statements as { top: { statement: string; calls: number; totalMs: number; planMs?: number }[] }).top;
    return top.find((s) => /from client c left join address a/i.test(s.statement))!;
  };
  const literal = join(runs['study']!);
  assert.ok(literal && literal.calls > 0 && literal.planMs! > 0, JSON.stringify(literal));
  // Planned at every call as text; prepared, its plan is reused (generic after five executions).
  const prepared = (runs['prepared']!.server!.statements as { top: { statement: string; calls: number; planMs?: number }[] }).top.find((s) =>
    /FROM client c\s+LEFT JOIN address/i.test(s.statement),
  )!;
  assert.ok(prepared, JSON.stringify(runs['prepared']!.server!.statements));
  assert.ok(
    literal.planMs! / literal.calls > 5 * (prepared.planMs! / prepared.calls),
    `${literal.planMs}/${literal.calls} against ${prepared.planMs}/${prepared.calls}`,
  );
  assert.match(
    runs['study']!.stdout,
    /^planning \(the server's counters, pg_stat_statements with track_planning\): \d+ of \d+ ms of the top statements' server time \(\d+%\)/m,
  );
  // The study's finding on PostgreSQL: with the joins sent as text, planning is most of what the
  // server spends on the unit's statements; prepared, it is not.
  assert.match(runs['study']!.stdout, /^planning \(the server's counters.*\(\d+%\): most of the server's time went to planning$/m);
  assert.doesNotMatch(runs['prepared']!.stdout, /most of the server's time went to planning/);
  for (const style of ['study', 'prepared'])
    for (const line of runs[style]!.stdout.split('\n').filter((l) => /^planning|^ {2}parsing|^tps = \d+\.\d{3}$/.test(l))) t.diagnostic(`${style}: ${line}`);
  assert.match(runs['study']!.stdout, /^ {2}statement +calls +total ms +plan ms +mean ms +rows$/m);
});
