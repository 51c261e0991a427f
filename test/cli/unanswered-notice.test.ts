import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type { RunResult } from '../../src/result/result.js';
import { runCli, type CliRun } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';
import { createDriver } from '../helpers/drivers.js';

/** How each DBMS's session takes a lock that keeps others from reading the table, and lets it go. */
const LOCKS = {
  postgres: { take: ['BEGIN', 'LOCK TABLE pgbench_branches IN ACCESS EXCLUSIVE MODE'], letGo: 'COMMIT' },
  mariadb: { take: ['LOCK TABLES pgbench_branches WRITE'], letGo: 'UNLOCK TABLES' },
} as const;

/**
 * Before a run reads the data's scale, a lock another session holds on pgbench_branches keeps the
 * server from answering: the command says what it waits for after 5 s instead of waiting in
 * silence (on PostgreSQL, which session holds the lock), and once the lock is let go it runs as
 * usual, or Ctrl-C ends it saying so; headroom check the same. A run nothing holds up says nothing
 * of it.
 */
for (const [dbms, lock] of Object.entries(LOCKS) as [keyof typeof LOCKS, (typeof LOCKS)[keyof typeof LOCKS]][]) {
  test(`${dbms}: a statement before the run that waits on another session's lock is told after 5 s, as is one of a check; both go on once the lock is let go, and Ctrl-C ends a held-up run saying so`, async (t) => {
    const db = await freshDatabase(t, dbms);
    if (!db) return;
    t.after(() => db.dispose());
    const cwd = mkdtempSync(path.join(tmpdir(), 'headroom-unanswered-'));
    t.after(() => rmSync(cwd, { recursive: true, force: true }));
    const env = { ...process.env, DATABASE_URL: undefined };
    const init = await runCli(['init', 'tpcb', '--pgbench', '-s', '1', '--db', db.url], { cwd, env });
    assert.equal(init.code, 0, init.stderr);
    const args = (out: string): string[] => ['run', 'tpcb', '-c', '2', '-T', '1', '-P', '0', '--live=false', '--db', db.url, '-o', out];

    const locker = await createDriver(db.target).connect();
    t.after(() => locker.close());
    /**
     * Runs the command while the lock is held, letting it go at the first notice (or after 20 s, so
     * that a command that never tells still ends and fails the test); or, with `interrupt`, sending
     * Ctrl-C at the notice and letting the lock go once the command has ended.
     */
    const heldUp = async (command: string[], atNotice: 'release' | 'interrupt' = 'release'): Promise<CliRun & { notices: string[] }> => {
      for (const sql of lock.take) await locker.query(sql);
      let released: Promise<unknown> | undefined;
      const release = (): void => void (released ??= locker.query(lock.letGo));
      const deadline = setTimeout(release, 20_000);
      const started = performance.now();
      let toldAfterS = 0;
      const run = await runCli(command, {
        cwd,
        env,
        whenStderr: [
          /still waiting after/,
          (pid) => {
            toldAfterS = (performance.now() - started) / 1000;
            if (atNotice === 'release') release();
            else process.kill(pid, 'SIGINT');
          },
        ],
      });
      clearTimeout(deadline);
      release();
      await released;
      const notices = run.stderr.split('\n').filter((line) => line.startsWith('still waiting'));
      assert.equal(notices.length, 1, run.stderr);
      assert.ok(Number(/after (\d+) s/.exec(notices[0]!)![1]) >= 5, notices[0]);
      assert.ok(toldAfterS >= 5, `told ${toldAfterS.toFixed(1)} s after the command started`);
      return { ...run, notices };
    };
    // PostgreSQL names the session holding the lock (who and how long, never its statement); MariaDB cannot tell.
    const because =
      dbms === 'postgres'
        ? `it waits for a lock held by pid ${locker.serverSessionId!()} (headroom: idle in transaction, its transaction open for N s)`
        : 'another session may hold a lock on a table it reads, the server may have stopped answering, or the statement takes this long here';
    const figuresOut = (notice: string): string => notice.replace(/after \d+ s/, 'after N s').replace(/open for \d+ s/, 'open for N s');

    const run = await heldUp(args('held.json'));
    assert.equal(run.code, 0, run.stderr);
    assert.equal(
      figuresOut(run.notices[0]!),
      `still waiting after N s for the server to answer "SELECT COUNT(*) FROM pgbench_branches" before the run: ${because} (Ctrl-C stops; nothing has been measured yet)`,
    );
    const result = JSON.parse(readFileSync(path.join(cwd, 'held.json'), 'utf8')) as RunResult;
    assert.ok(result.summary.transactions > 0, 'the run measured once the lock was let go');

    // Ctrl-C while it waits ends the command at once, in a line saying what it stopped (it used to
    // end with no word); nothing was measured, so there is no result.
    const stopped = await heldUp(args('stopped.json'), 'interrupt');
    assert.equal(stopped.code, 130, stopped.stderr);
    assert.equal(stopped.stderr.trim().split('\n').at(-1), 'interrupted before the run: nothing has been measured yet', stopped.stderr);
    assert.ok(!existsSync(path.join(cwd, 'stopped.json')));

    // headroom check, held up the same way, says so in its own words, then checks.
    const check = await heldUp(['check', 'tpcb', '--db', db.url]);
    assert.equal(check.code, 0, check.stderr);
    assert.equal(
      figuresOut(check.notices[0]!),
      `still waiting after N s for the server to answer "SELECT COUNT(*) FROM pgbench_branches" while checking the data: ${because} (Ctrl-C stops; the check only reads)`,
    );
    assert.match(check.stdout, /^all \d+ checks passed$/m);

    const free = await runCli(args('free.json'), { cwd, env });
    assert.equal(free.code, 0, free.stderr);
    assert.doesNotMatch(free.stderr, /still waiting/);
    assert.ok(existsSync(path.join(cwd, 'free.json')));
  });
}
