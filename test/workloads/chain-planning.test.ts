import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Connection } from '../../src/drivers/driver.js';
import { planningResult } from '../../src/result/planning.js';
import type { RunResult } from '../../src/result/result.js';
import { planningLines } from '../../src/reports/server-text.js';
import { chain } from '../../src/workloads/chain/index.js';
import { PLANNING_SAMPLES } from '../../src/workloads/chain/planning.js';
import { runCli } from '../helpers/cli.js';
import { connectFresh } from '../helpers/databases.js';

const SCALE = 0.0002;

async function loaded(conn: Connection, ctx: Parameters<NonNullable<typeof chain.samplePlanning>>[0]): Promise<void> {
  await chain.load(ctx);
  // Operations for every client, so that the join of step 3 has rows to return.
  await conn.query('INSERT INTO operation (summa, client_id, op_time) SELECT 1, id, CURRENT_TIMESTAMP FROM client');
}

test('planning share: planning per unit over the server CPU per unit; no CPU seen is no figure; the summary says when it is most', () => {
  const sample = {
    method: 'sampled: x',
    statements: [{ name: 'a', planningMs: 0.6, executionMs: 0.1 }],
    planningMsPerUnit: 0.6,
    executionMsPerUnit: 0.1,
    avoidedBy: 'preparing',
  };
  const result = (cpuSeconds: number): Pick<RunResult, 'server' | 'summary'> =>
    ({ server: { host: { cpuSeconds } }, summary: { transactions: 900, failed: 100 } }) as unknown as Pick<RunResult, 'server' | 'summary'>;
  const measured = planningResult(sample, result(0.8));
  assert.equal(measured.serverCpuMsPerUnit, 0.8);
  assert.equal(measured.shareOfServerCpu, 0.75);
  const withText = planningResult({ ...sample, textOverheadMsPerUnit: 0.2 }, result(0.8));
  assert.equal(withText.textShareOfServerCpu, 0.25);
  const lines = (planning: RunResult['planning']): string[] => planningLines({ planning } as RunResult);
  assert.match(
    lines(measured)[0]!,
    /^planning: 0\.600 ms planning and 0\.100 ms executing per unit \(86% of the joins' server time; a: 0\.600 \+ 0\.100 ms\)$/,
  );
  assert.match(lines(measured)[1]!, /^  the server's processes used 0\.800 ms of CPU per unit, so planning took most of the server's time: about 75%$/);
  assert.match(lines(measured)[2]!, /^  measured by sampled: x; what avoids it: preparing$/);
  assert.equal(lines(measured).length, 3);
  // Literal text: the verdict rests on parsing and planning the text, the planner's own share beside it.
  assert.match(
    lines(withText)[1]!,
    /^  the server's processes used 0\.800 ms of CPU per unit; parsing and planning the joins' literal text cost 0\.200 ms per unit beyond running them prepared: part of the server's time, about 25% \(the planner alone about 75%\)$/,
  );
  assert.match(lines({ ...measured, statistics: 'operation (9 rows) never analyzed' })[3]!, /^  statistics: operation \(9 rows\) never analyzed$/);
  const unseen = planningResult(sample, result(0));
  assert.equal(unseen.shareOfServerCpu, null);
  assert.match(lines(unseen)[1]!, /^  the server's CPU per unit was not measured/);
  assert.match(
    lines(planningResult({ ...sample, textOverheadMsPerUnit: 0.2 }, result(0)))[1]!,
    /^  parsing and planning .* cost 0\.200 ms .*; the server's CPU per unit was not measured/,
  );
});

for (const dbms of ['postgres', 'mariadb'] as const) {
  test(`${dbms}: chain samples planning apart from execution, for the style the run used`, async (t) => {
    const fresh = await connectFresh(t, dbms);
    if (!fresh) return;
    const { driver, conn } = fresh;
    const ctx = { conn, driver, dbms, scale: SCALE, options: { load: 'bulk' }, log: () => {} };
    await loaded(conn, ctx);
    // The insert's row counts reach the server's statistics views when this session next goes idle.
    if (dbms === 'postgres') await conn.query('SELECT pg_stat_force_next_flush()');
    // Which method carried each statement, on the session's connection and on those the sampling opens.
    const sent: [string, string][] = [];
    const recorded = (c: Connection): Connection =>
      new Proxy(c, {
        get(target, key, receiver) {
          const value = Reflect.get(target, key, receiver) as unknown;
          if ((key !== 'query' && key !== 'queryUnnamed') || typeof value !== 'function') return value;
          return (sql: string, ...rest: unknown[]) => (sent.push([key, sql]), (value as (...a: unknown[]) => unknown).call(target, sql, ...rest));
        },
      });
    const recordedDriver = new Proxy(driver, {
      get: (target, key, receiver) => (key === 'connect' ? async () => recorded(await target.connect()) : (Reflect.get(target, key, receiver) as unknown)),
    });
    const study = (await chain.samplePlanning!({ ...ctx, conn: recorded(conn), driver: recordedDriver, options: { statements: 'study' } }))!;
    const literalJoins = sent.filter(([, sql]) => / where c\.id=\d+/.test(sql));
    assert.ok(literalJoins.length >= 2 * PLANNING_SAMPLES, `${literalJoins.length} literal joins sent`);
    assert.deepEqual(
      [...new Set(literalJoins.map(([how]) => how))],
      [dbms === 'postgres' ? 'queryUnnamed' : 'query'],
      'the literal joins go as the run sent them: on PostgreSQL through the unnamed statement, EXPLAIN and the round trips alike',
    );
    if (dbms === 'postgres')
      assert.match(study.method, /literal text through the unnamed statement \(Parse, Bind, Describe, Execute, Sync\), as this run sent it/);
    const prepared = (await chain.samplePlanning!({ ...ctx, options: { statements: 'prepared' } }))!;
    for (const sample of [study, prepared]) {
      assert.match(sample.method, new RegExp(`^sampled: .*${PLANNING_SAMPLES} calls of each`));
      assert.equal(sample.statements.length, 2);
      assert.ok(
        sample.statements.every((s) => s.planningMs > 0 && s.executionMs > 0),
        JSON.stringify(sample.statements),
      );
    }
    if (dbms === 'postgres') {
      // The literal text is planned at every call; the prepared joins reuse their generic plan.
      assert.ok(study.planningMsPerUnit > 5 * prepared.planningMsPerUnit, `${study.planningMsPerUnit} ms against ${prepared.planningMsPerUnit} ms`);
      assert.match(study.avoidedBy, /--statements prepared/);
      // Parsing and planning the text, against the same join prepared: only where the text is sent.
      assert.ok(study.textOverheadMsPerUnit! > 0, `text cost ${study.textOverheadMsPerUnit} ms`);
      assert.equal(prepared.textOverheadMsPerUnit, undefined);
      assert.match(prepared.method, /EXECUTE/);
      assert.deepEqual(await conn.query('SELECT count(*)::int FROM pg_prepared_statements'), [[0]], 'the sampling deallocates what it prepared');
      // operation was filled after the load's ANALYZE: its plans rest on default estimates, and the sample says so.
      assert.match(
        study.statistics ?? '',
        /^operation \([\d,]+ rows\) never analyzed \(autovacuum (is off on this server|has not analyzed it yet)\): .*ANALYZE operation/,
      );
      await conn.query('ANALYZE operation');
      const analyzed = (await chain.samplePlanning!({ ...ctx, options: { statements: 'prepared' } }))!;
      assert.equal(analyzed.statistics, undefined, 'no note once every table holding rows was analyzed');
    } else {
      assert.match(study.method, /ANALYZE FORMAT=JSON/);
      assert.match(study.avoidedBy, /MariaDB optimises every execution/);
    }
  });
}

test('postgres: a study run and a prepared run; the summary tells planning, compare names the difference', async (t) => {
  const fresh = await connectFresh(t, 'postgres');
  if (!fresh) return;
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-chain-planning-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const files = [];
  for (const style of ['study', 'prepared']) {
    const out = path.join(dir, `${style}.json`);
    const run = await runCli(['run', 'chain', '--db', fresh.db.url, '-s', '1/5000', '--statements', style, '-c', '2', '-T', '2', '-P', '0', '-o', out]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^planning: [\d.]+ ms planning and [\d.]+ ms executing per unit/m);
    files.push(out);
  }
  const compare = await runCli(['compare', ...files]);
  assert.equal(compare.code, 0, compare.stderr);
  assert.match(compare.stdout, /^statements sent differ: 1: study .*; 2: prepared /m);
  assert.match(compare.stdout, /^  2 against 1: tps x[\d.]+; planning per unit [\d.]+ -> [\d.]+ ms .*the difference is planning the two joins at every call/m);
  const html = path.join(dir, 'report.html');
  const report = await runCli(['report', ...files, '-o', html]);
  assert.equal(report.code, 0, report.stderr);
  const page = readFileSync(html, 'utf8');
  assert.match(page, /<li>planning: [\d.]+ ms planning and [\d.]+ ms executing per unit/);
  assert.match(page, /<dt>statements sent<\/dt><dd>study \(/);
  assert.match(page, /the difference is planning the two joins at every call/);
});
