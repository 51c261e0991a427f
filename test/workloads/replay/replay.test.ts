import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import type { ServerTarget } from '../../../src/config/target.js';
import { createDriver } from '../../helpers/drivers.js';
import type { Connection, DbmsName } from '../../../src/drivers/driver.js';
import type { RunResult } from '../../../src/result/result.js';
import type { CaptureFile, CapturedSession, CapturedStatement, StatementKind } from '../../../src/workloads/replay/capture-file.js';
import { runCli } from '../../helpers/cli.js';
import { freshDatabase, type TestDatabase } from '../../helpers/databases.js';

type Step = [atS: number, sql: string, kind: StatementKind, extra?: Partial<CapturedStatement>];

/** A capture written by hand, as headroom capture would write it, for sessions of [atS, sql, kind, extra] steps. */
function capture(dbms: 'postgres' | 'mariadb', sessions: Step[][], extra: { database?: string; server?: CaptureFile['source']['server'] } = {}): CaptureFile {
  const captured: CapturedSession[] = sessions.map((steps, i) => ({
    id: `s${i}`,
    ...(extra.database === undefined ? {} : { database: extra.database }),
    startS: steps[0]![0],
    statements: steps.map(([atS, sql, kind, more], n) => ({ atS, sql, kind, from: `test.log:${i * 100 + n + 1}`, ...more })),
  }));
  const all = captured.flatMap((s) => s.statements);
  const durationS = Math.max(...all.map((s) => s.atS + (s.durationMs ?? 0) / 1000));
  const byKind = { select: 0, insert: 0, update: 0, delete: 0, begin: 0, commit: 0, rollback: 0, other: 0 };
  for (const s of all) byKind[s.kind]++;
  return {
    format: 'headroom-capture',
    version: 1,
    source: {
      dbms,
      kind: dbms === 'postgres' ? 'stderr' : 'general-log-file',
      files: ['/tmp/test.log'],
      capturedAt: new Date().toISOString(),
      ...(extra.server ? { server: extra.server } : {}),
    },
    startedAt: new Date().toISOString(),
    durationS,
    sessions: captured,
    skipped: [],
    summary: {
      sessions: captured.length,
      statements: all.length,
      byKind,
      reads: byKind.select,
      writes: byKind.insert + byKind.update + byKind.delete,
      transactions: 0,
      perSecond: [],
    },
  };
}

interface Fixture {
  db: TestDatabase;
  conn: Connection;
  dir: string;
  /** Runs headroom replay on the fixture's database; the capture is written first. */
  replay(file: CaptureFile, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; result: RunResult | undefined }>;
}

async function fixture(t: TestContext, dbms: 'postgres' | 'mariadb'): Promise<Fixture | undefined> {
  const db = await freshDatabase(t, dbms);
  if (!db) return undefined;
  const driver = createDriver(db.target);
  const conn = await driver.connect();
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-replay-'));
  t.after(async () => {
    await conn.close().catch(() => {});
    await driver.close();
    await db.dispose();
    rmSync(dir, { recursive: true, force: true });
  });
  let n = 0;
  return {
    db,
    conn,
    dir,
    async replay(file, ...args) {
      const captureFile = path.join(dir, `capture-${++n}.json`);
      const out = path.join(dir, `result-${n}.json`);
      writeFileSync(captureFile, JSON.stringify(file));
      const run = await runCli(['replay', captureFile, '--db', db.url, '-o', out, '-P', '0', '--observe=false', ...args]);
      let result: RunResult | undefined;
      try {
        result = JSON.parse(readFileSync(out, 'utf8')) as RunResult;
      } catch {
        result = undefined;
      }
      return { ...run, result };
    },
  };
}

const PARAM = (dbms: DbmsName, n: number): string => (dbms === 'postgres' ? `$${n}` : '?');

// Each test has its own database: they run side by side, so the file takes seconds, not a minute.
describe('headroom replay', { concurrency: 4 }, () => {
  for (const dbms of ['postgres', 'mariadb'] as const) {
    test(`${dbms}: a capture replayed at speed 1 runs every captured statement per kind and commits what the recording committed`, async (t) => {
      const f = await fixture(t, dbms);
      if (!f) return;
      await f.conn.query('CREATE TABLE acct (id int primary key, bal int not null)');
      await f.conn.query('INSERT INTO acct VALUES (1, 0), (2, 0), (3, 0), (4, 0)');
      const p = (n: number): string => PARAM(dbms, n);
      const file = capture(dbms, [
        [
          [0, 'BEGIN', 'begin'],
          [0.02, `UPDATE acct SET bal = bal + ${p(1)} WHERE id = ${p(2)}`, 'update', { params: ['10', '1'], rows: 1 }],
          [0.04, 'COMMIT', 'commit'],
          [0.3, `SELECT bal FROM acct WHERE id = ${p(1)}`, 'select', { params: ['1'], rows: 1 }],
        ],
        [
          [0.1, `INSERT INTO acct VALUES (${p(1)}, ${p(2)})`, 'insert', { params: ['5', '5'], rows: 1 }],
          [0.2, 'BEGIN', 'begin'],
          [0.22, 'UPDATE acct SET bal = bal + 100 WHERE id = 2', 'update', { rows: 1 }],
          [0.24, 'ROLLBACK', 'rollback'],
          [0.4, 'SELECT * FROM no_such_table', 'select', { error: 'relation "no_such_table" does not exist' }],
        ],
        [
          [0.15, 'UPDATE acct SET bal = bal - 3 WHERE id = 3', 'update', { rows: 1 }],
          [0.35, 'DELETE FROM acct WHERE id = 4', 'delete', { rows: 1 }],
        ],
      ]);
      const { code, stderr, stdout, result } = await f.replay(file);
      assert.equal(code, 0, stderr);
      const replay = result!.replay!;
      for (const [kind, counts] of Object.entries(replay.byKind)) assert.equal(counts.executed, counts.captured, `${kind}: ${JSON.stringify(counts)}`);
      assert.deepEqual(Object.fromEntries(Object.entries(replay.byKind).map(([k, c]) => [k, c.captured])), {
        begin: 2,
        update: 3,
        commit: 1,
        select: 2,
        insert: 1,
        rollback: 1,
        delete: 1,
      });
      assert.equal(replay.statements.executed, 11);
      assert.equal(replay.statements.failed, 0);
      assert.deepEqual(replay.recordedErrors, { captured: 1, again: 1, gone: 0 });
      assert.deepEqual(replay.rows, { checked: 6, differ: 0 });
      // The recording's effect: id 1 +10 committed, id 2's +100 rolled back, id 3 -3, id 4 deleted, id 5 inserted with 5.
      const [[count, sum]] = (await f.conn.query('SELECT COUNT(*), SUM(bal) FROM acct')) as [[unknown, unknown]];
      assert.equal(Number(count), 4);
      assert.equal(Number(sum), 12);
      assert.match(stdout, /statements: 11 of 11 captured \(all ran\), 0 failed/);
      assert.ok(result!.summary.scheduleLagMs, 'the result has the schedule lag');
    });

    test(`${dbms}: statements 1 s apart take about 1 s each at speed 1 and 0.5 s at speed 2`, async (t) => {
      const f = await fixture(t, dbms);
      if (!f) return;
      const file = capture(dbms, [
        [
          [0, 'SELECT 1', 'select'],
          [1, 'SELECT 2', 'select'],
          [2, 'SELECT 3', 'select'],
        ],
      ]);
      const slow = await f.replay(file);
      assert.equal(slow.code, 0, slow.stderr);
      const fast = await f.replay(file, '--speed', '2');
      assert.equal(fast.code, 0, fast.stderr);
      const at1 = slow.result!.replay!;
      const at2 = fast.result!.replay!;
      assert.equal(at1.targetSeconds, 2);
      assert.equal(at2.targetSeconds, 1);
      // The last statement is due at 2 s (1 s): the replay cannot end before it; it ends soon after
      // (the bound leaves room for a loaded machine running the other tests beside it).
      assert.ok(at1.replaySeconds >= 2 && at1.replaySeconds < 2.25, `speed 1 took ${at1.replaySeconds} s`);
      assert.ok(at2.replaySeconds >= 1 && at2.replaySeconds < 1.25, `speed 2 took ${at2.replaySeconds} s`);
      for (const at of [at1, at2]) assert.equal(at.keepsUp, at.replaySeconds <= at.targetSeconds * 1.05, 'kept up: within 5% of the target');
      assert.equal(at2.statements.executed, 3);
    });

    test(`${dbms}: a session's connection closes when its last recorded statement is done`, async (t) => {
      const f = await fixture(t, dbms);
      if (!f) return;
      // The connections to this database when it runs: the test's own, headroom's session and B's, once A's has closed.
      const connections =
        dbms === 'postgres'
          ? "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'"
          : 'SELECT ID FROM information_schema.PROCESSLIST WHERE DB = DATABASE()';
      const file = capture(dbms, [[[0, 'SELECT 1', 'select']], [[0.6, connections, 'select', { rows: 3 }]]]);
      const { code, stderr, result } = await f.replay(file);
      assert.equal(code, 0, stderr);
      assert.deepEqual(result!.replay!.rows, { checked: 1, differ: 0 });
    });

    test(`${dbms}: a replay onto the capture's own server and database is refused in one line unless told`, async (t) => {
      const f = await fixture(t, dbms);
      if (!f) return;
      const target = f.db.target as ServerTarget;
      const file = capture(dbms, [[[0, 'SELECT 1', 'select']]], { database: target.database, server: { host: target.host, port: target.port } });
      const refused = await f.replay(file);
      assert.equal(refused.code, 2);
      assert.equal(refused.stderr.trim().split('\n').length, 1, refused.stderr);
      assert.match(refused.stderr, /refusing to replay onto .*it is the server and database the capture was recorded from .*--i-know-this-is-production/);
      assert.equal(refused.result, undefined);
      const told = await f.replay(file, '--i-know-this-is-production');
      assert.equal(told.code, 0, told.stderr);
      // Another database on the same server is a copy: allowed.
      const other = await f.replay(capture(dbms, [[[0, 'SELECT 1', 'select']]], { database: 'production', server: { host: target.host, port: target.port } }));
      assert.equal(other.code, 0, other.stderr);
      assert.match(other.stderr, /not the captured server: compared host .* and database production against /);
    });
  }

  test("postgres: the server's system identifier marks the capture's own server", async (t) => {
    const f = await fixture(t, 'postgres');
    if (!f) return;
    const [[id]] = (await f.conn.query('SELECT system_identifier::text FROM pg_control_system()')) as [[string]];
    const target = f.db.target as ServerTarget;
    const refused = await f.replay(
      capture('postgres', [[[0, 'SELECT 1', 'select']]], { database: target.database, server: { systemId: id, host: 'db.example', port: 1 } }),
    );
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, new RegExp(`compared server identity ${id}`));
    const elsewhere = await f.replay(capture('postgres', [[[0, 'SELECT 1', 'select']]], { database: target.database, server: { systemId: '1234' } }));
    assert.equal(elsewhere.code, 0, elsewhere.stderr);
  });

  /**
   * One session, twenty 50 ms statements 100 ms apart, replayed --until CONDITION: from speed 2 on
   * they are due as fast as they run or faster, and queue; at speed 3 each starts about 17 ms later
   * than the last, the twentieth some 300 ms behind. The factor found lies at 1.5 or 2.
   */
  async function saturatingUntil(t: TestContext, condition: string) {
    const f = await fixture(t, 'postgres');
    if (!f) return undefined;
    const steps: Step[] = Array.from({ length: 20 }, (_, i): Step => [i * 0.1, 'SELECT pg_sleep(0.05)', 'select', { durationMs: 50 }]);
    const replayed = await f.replay(capture('postgres', [steps]), '--until', condition);
    assert.equal(replayed.code, 0, replayed.stderr);
    const sweep = replayed.result!.replay!.sweep!;
    assert.equal(sweep.ended, 'failed');
    assert.ok(sweep.factor !== null && sweep.factor >= 1.5 && sweep.factor <= 2, `factor ${sweep.factor}`);
    return { ...replayed, sweep, held: sweep.steps.at(-2)!, failed: sweep.steps.at(-1)! };
  }

  test('postgres: --until finds the headroom factor of a capture that saturates, and shows the next step failing', async (t) => {
    const run = await saturatingUntil(t, 'p99<250ms');
    if (!run) return;
    const { stdout, result, sweep, held, failed } = run;
    assert.equal(held.speed, sweep.factor);
    assert.ok(held.holds && held.p99Ms < 250);
    assert.ok(!failed.holds && failed.p99Ms >= 250, JSON.stringify(failed));
    assert.equal(result!.replay!.speed, sweep.factor, 'the result written is the step that held');
    assert.match(stdout, new RegExp(`headroom factor: ${sweep.factor}x`));
    assert.match(stdout, new RegExp(`next step failed: ${failed.speed}x: p99<250ms`));
    assert.match(stdout, /data: the database given, with the writes of the earlier replays/);
  });

  test('postgres: --until lag-p99 holds while the statements start on time and fails once they queue behind each other', async (t) => {
    // At speed 2 each statement is due as the one before ends (a few ms of lag in all); at 3 the last is some 300 ms late.
    const run = await saturatingUntil(t, 'lag-p99<100ms');
    if (!run) return;
    const { stdout, held, failed } = run;
    assert.ok(held.holds && held.lagP99Ms !== null && held.lagP99Ms < 100, JSON.stringify(held));
    assert.ok(!failed.holds && failed.lagP99Ms !== null && failed.lagP99Ms >= 100, JSON.stringify(failed));
    assert.match(stdout, new RegExp(`next step failed: ${failed.speed}x: lag-p99<100ms`));
  });

  test('postgres: --until goes below 1 when the recorded speed fails, and shows the step above the factor failing', async (t) => {
    const f = await fixture(t, 'postgres');
    if (!f) return;
    // One session, twenty 50 ms statements recorded 40 ms apart (as if the recording server had been
    // faster): at speed 1 each starts 10 ms later than the one before, the last about 190 ms late;
    // at 0.75 they are due 53 ms apart and none waits.
    const steps: Step[] = Array.from({ length: 20 }, (_, i): Step => [i * 0.04, 'SELECT pg_sleep(0.05)', 'select', { durationMs: 50 }]);
    const { code, stdout, stderr, result } = await f.replay(capture('postgres', [steps]), '--until', 'p99<150ms');
    assert.equal(code, 0, stderr);
    const sweep = result!.replay!.sweep!;
    assert.deepEqual(
      sweep.steps.map((s) => [s.speed, s.holds]),
      [
        [1, false],
        [0.75, true],
      ],
      JSON.stringify(sweep.steps),
    );
    assert.equal(sweep.factor, 0.75);
    assert.equal(sweep.ended, 'failed');
    assert.ok(sweep.steps[0]!.p99Ms >= 150 && sweep.steps[1]!.p99Ms < 150, JSON.stringify(sweep.steps));
    assert.equal(result!.replay!.speed, 0.75, 'the result written is the step that held');
    assert.match(stderr, /the recorded speed fails: trying 0\.75x, 0\.5x until one holds/);
    assert.match(stdout, /headroom factor: 0\.75x, below 1 \(p99<150ms held at 0\.75x of the recorded speed, not at 1x\)/);
    assert.match(stdout, /next step failed: 1x: p99<150ms/);
    // The HTML report of the result shows the replay's own part: statements per kind and the speeds tried.
    const resultFile = path.join(f.dir, 'below-one.json');
    writeFileSync(resultFile, JSON.stringify(result));
    const html = path.join(f.dir, 'below-one.html');
    const report = await runCli(['report', resultFile, '-o', html]);
    assert.equal(report.code, 0, report.stderr);
    const page = readFileSync(html, 'utf8');
    assert.match(page, /statements: 20 of 20 captured \(all ran\), 0 failed/);
    assert.match(page, /<tr><td>select<\/td><td class="num">20<\/td><td class="num">20<\/td>/);
    assert.match(page, /<h3>Speeds tried \(--until p99&lt;150ms\)<\/h3>/);
    assert.match(
      page,
      /headroom factor: 0\.75x, below 1 \(p99&lt;150ms held at 0\.75x of the recorded speed, not at 1x\)<br>next step failed: 1x: p99&lt;150ms/,
    );
  });

  test('postgres: --pace transactions sends a transaction on as its statements end, so a recorded lock wait is not replayed; a timed client gap is kept', async (t) => {
    const f = await fixture(t, 'postgres');
    if (!f) return;
    await f.conn.query('CREATE TABLE acct (id int primary key, bal int not null)');
    await f.conn.query('INSERT INTO acct VALUES (1, 0)');
    // As log_statement = all records a lock wait (no durations): session 0 updated the row and
    // committed 400 ms later; session 1's update of the same row was logged in between and waited.
    const update = 'UPDATE acct SET bal = bal + 1 WHERE id = 1';
    const locked = capture('postgres', [
      [
        [0, 'BEGIN', 'begin'],
        [0.01, update, 'update'],
        [0.4, 'COMMIT', 'commit'],
      ],
      [
        [0.02, 'BEGIN', 'begin'],
        [0.03, update, 'update'],
        [0.41, 'COMMIT', 'commit'],
      ],
    ]);
    const maxUpdateMs = (result: RunResult): number => result.transactions.find((x) => x.name.startsWith('UPDATE acct'))!.latencyMs.max;
    const asRecorded = await f.replay(locked);
    assert.equal(asRecorded.code, 0, asRecorded.stderr);
    assert.equal(asRecorded.result!.replay!.pace, 'statements');
    assert.match(asRecorded.stdout, /each statement due at its recorded start \(--pace statements\)/);
    // Session 1's update waits for session 0's commit, due 370 ms after it.
    assert.ok(maxUpdateMs(asRecorded.result!) >= 300, `statements pace: update max ${maxUpdateMs(asRecorded.result!)} ms`);
    const paced = await f.replay(locked, '--pace', 'transactions');
    assert.equal(paced.code, 0, paced.stderr);
    assert.equal(paced.result!.replay!.pace, 'transactions');
    assert.match(paced.stdout, /each transaction's first statement due at its recorded start, the rest following the one before \(--pace transactions\)/);
    assert.ok(maxUpdateMs(paced.result!) < 200, `transactions pace: update max ${maxUpdateMs(paced.result!)} ms`);
    assert.equal(paced.result!.replay!.statements.executed, 6);
    assert.equal(paced.result!.replay!.statements.failed, 0);
    const [[bal]] = (await f.conn.query('SELECT bal FROM acct WHERE id = 1')) as [[unknown]];
    assert.equal(Number(bal), 4, 'both replays committed both updates');
    // Where the log timed each statement, the client's own time between them is kept: the select
    // took 5 ms and the commit came 300 ms after it began, so the transaction lasts 300 ms.
    const timed = capture('postgres', [
      [
        [0, 'BEGIN', 'begin', { durationMs: 0.1 }],
        [0.001, 'SELECT 1', 'select', { durationMs: 5 }],
        [0.3, 'COMMIT', 'commit', { durationMs: 0.1 }],
      ],
    ]);
    const kept = await f.replay(timed, '--pace', 'transactions');
    assert.equal(kept.code, 0, kept.stderr);
    assert.ok(kept.result!.replay!.replaySeconds >= 0.28, `replay took ${kept.result!.replay!.replaySeconds} s`);
    assert.ok(kept.result!.summary.latencyMs.max < 100, 'the commit waited for its time without counting it as latency');
  });

  test('postgres: --fresh-from replays into a new copy of the template each time and drops it', async (t) => {
    const f = await fixture(t, 'postgres');
    if (!f) return;
    await f.conn.query('CREATE TABLE acct (id int primary key, bal int not null)');
    const template = (f.db.target as ServerTarget).database;
    // The replay connects to the admin database: PostgreSQL copies a template nobody is connected to.
    await f.conn.close();
    const file = capture('postgres', [[[0, 'INSERT INTO acct VALUES ($1, 1)', 'insert', { params: ['7'], rows: 1 }]]]);
    const captureFile = path.join(f.dir, 'fresh.json');
    writeFileSync(captureFile, JSON.stringify(file));
    const admin = f.db.url.replace(/\/[^/]*$/, '/postgres');
    for (const round of [1, 2]) {
      const out = path.join(f.dir, `fresh-${round}.json`);
      const run = await runCli(['replay', captureFile, '--db', admin, '--fresh-from', template, '-o', out, '-P', '0', '--observe=false']);
      assert.equal(run.code, 0, run.stderr);
      const result = JSON.parse(readFileSync(out, 'utf8')) as RunResult;
      // The same key inserted in both rounds: each round started from the template's empty table.
      assert.equal(result.replay!.statements.failed, 0, `round ${round}`);
      assert.match(run.stdout, new RegExp(`data: a fresh copy of ${template}, dropped after the replay`));
    }
    const driver = createDriver(f.db.admin);
    const check = await driver.connect();
    try {
      const copies = await check.query("SELECT datname FROM pg_database WHERE datname LIKE 'headroom_replay_%'");
      assert.deepEqual(copies, []);
    } finally {
      await check.close();
      await driver.close();
    }
    const again = await createDriver(f.db.target).connect();
    const [[rows]] = (await again.query('SELECT COUNT(*) FROM acct')) as [[unknown]];
    await again.close();
    assert.equal(Number(rows), 0, 'the template is left as it was');
  });

  test('postgres: Ctrl-C ends a replay with its result written, the statements not yet due counted as not run', async (t) => {
    const f = await fixture(t, 'postgres');
    if (!f) return;
    const file = capture('postgres', [
      [
        [0, 'SELECT 1', 'select'],
        [0.2, 'SELECT 2', 'select'],
        [60, 'SELECT 3', 'select'],
      ],
    ]);
    const captureFile = path.join(f.dir, 'interrupted.json');
    const out = path.join(f.dir, 'interrupted-result.json');
    writeFileSync(captureFile, JSON.stringify(file));
    const started = performance.now();
    const run = await runCli(['replay', captureFile, '--db', f.db.url, '-o', out, '-P', '1', '--observe=false'], {
      whenStderr: [/progress: /, (pid) => process.kill(pid, 'SIGINT')],
    });
    assert.equal(run.code, 130, run.stderr);
    assert.ok(performance.now() - started < 20_000, "it ended soon after Ctrl-C, not at the capture's end");
    const result = JSON.parse(readFileSync(out, 'utf8')) as RunResult;
    assert.equal(result.status, 'interrupted');
    assert.equal(result.replay!.statements.executed, 2);
    assert.equal(result.replay!.statements.captured, 3);
    assert.match(run.stdout, /statements: 2 of 3 captured \(1 not run\)/);
  });

  test('a capture file of another format or version is refused in one line, before any connection', async (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'headroom-replay-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const refuse = async (content: unknown): Promise<{ code: number | null; stderr: string }> => {
      const file = path.join(dir, 'capture.json');
      writeFileSync(file, JSON.stringify(content));
      // Nothing listens on port 1: a refusal that connected first would say so instead.
      return runCli(['replay', file, '--db', 'postgres://postgres@127.0.0.1:1/none']);
    };
    const newer = await refuse({ ...capture('postgres', [[[0, 'SELECT 1', 'select']]]), version: 2 });
    assert.equal(newer.code, 2);
    assert.equal(newer.stderr.trim().split('\n').length, 1, newer.stderr);
    assert.match(newer.stderr, /version 2; this headroom reads version 1/);
    const badUntil = await runCli(['replay', path.join(dir, 'capture.json'), '--db', 'postgres://postgres@127.0.0.1:1/none', '--until', 'p99<abc']);
    assert.equal(badUntil.code, 2);
    assert.match(badUntil.stderr, /^headroom: --until 'p99<abc' is not a condition \(keeps-up, or /);
    const other = await refuse({ format: 'pgreplay' });
    assert.equal(other.code, 2);
    assert.equal(other.stderr.trim().split('\n').length, 1, other.stderr);
    assert.match(other.stderr, /is not a headroom capture file/);
  });
});
