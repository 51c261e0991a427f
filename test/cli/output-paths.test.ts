import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { UserError } from '../../src/errors.js';
import { runEngine } from '../../src/engine/engine.js';
import { createDriver } from '../helpers/drivers.js';
import type { ServerTarget } from '../../src/config/target.js';
import { runCli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';
import { engineConfig } from '../helpers/engine-config.js';

function workdir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-out-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Paths no run can write, even as root (where access() says yes to most folders): one under a
 * regular file, and one in sysfs, which refuses new files to everyone.
 */
function unwritable(cwd: string): { underFile: string; sysfs: string } {
  const file = path.join(cwd, 'file.txt');
  writeFileSync(file, 'a file, not a folder\n');
  return { underFile: path.join(file, 'out.json'), sysfs: '/sys/headroom-test-output' };
}

test('an unwritable -o, --log-prefix, --journal or default results folder is refused at once, before anything is loaded', async (t) => {
  const cwd = workdir(t);
  const { underFile, sysfs } = unwritable(cwd);
  const db = `sqlite:${path.join(cwd, 'bench.db')}`;
  const base = ['run', 'tpcb', '-b', 'select-only', '-c', '1', '-T', '2', '-P', '0', '--observe=false', '--db', db];
  for (const [args, message, options] of [
    [
      ['-o', underFile],
      /^headroom: cannot write the result to .*file\.txt\/out\.json: a part of the path is a file, not a folder \(give a writable path with -o/,
      {},
    ],
    [['-o', sysfs], /^headroom: cannot write the result to \/sys\/headroom-test-output: permission denied/, {}],
    [['-o', cwd], /^headroom: cannot write the result to .*: it is a folder/, {}],
    [
      ['-o', 'r.json', '-l', '--log-prefix', path.join(underFile, 'txlog')],
      /^headroom: cannot write the transaction log to .*txlog\.\d+: a part of the path is a file/,
      {},
    ],
    [['-o', 'r.json', '-l', '--log-prefix', `${sysfs}/txlog`], /^headroom: cannot write the transaction log to .*: permission denied/, {}],
    [['-o', 'r.json', '--journal', path.join(underFile, 'journal')], /^headroom: cannot write the journal to .*: a part of the path is a file/, {}],
    // No -o: the default folder headroom-results/ in the working folder; here that is a file.
    [
      [],
      /^headroom: cannot write the result into headroom-results\/: a part of the path is a file, not a folder \(run from a writable folder, or give -o FILE/,
      { results: 'headroom-results' },
    ],
  ] as const) {
    const folder = 'results' in options ? mkdtempSync(path.join(cwd, 'run-')) : cwd;
    if ('results' in options) writeFileSync(path.join(folder, options.results), 'a file where the results folder would be\n');
    const run = await runCli([...base, ...args], { cwd: folder });
    assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, message);
    assert.equal(run.stderr.trim().split('\n').length, 1, `one line, nothing loaded or run: ${run.stderr}`);
  }
  assert.equal(existsSync(path.join(cwd, 'bench.db')), false, 'nothing was loaded');
  assert.deepEqual(
    readdirSync(cwd).filter((f) => f.startsWith('.headroom-probe')),
    [],
    'the probe files are removed',
  );
});

test('-o - writes the result JSON alone to stdout, the summary to stderr', async (t) => {
  const cwd = workdir(t);
  const run = await runCli(
    [
      'run',
      'tpcb',
      '-b',
      'select-only',
      '-s',
      '1',
      '-c',
      '1',
      '-T',
      '1',
      '-P',
      '0',
      '--observe=false',
      '--db',
      `sqlite:${path.join(cwd, 'bench.db')}`,
      '-o',
      '-',
    ],
    { cwd },
  );
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(run.stdout) as { config: { workload: string }; summary: { transactions: number } };
  assert.equal(result.config.workload, 'tpcb');
  assert.ok(result.summary.transactions > 0);
  assert.match(run.stderr, /^tps = [\d.]+/m, 'the summary is on stderr');
  assert.doesNotMatch(run.stderr, /^result: /m, 'no result file is named');
  assert.equal(existsSync(path.join(cwd, 'headroom-results')), false, 'no file is written');
});

test('a -l file that cannot be created fails the run at once, with no connection left open (it used to hang)', async (t) => {
  const db = await freshDatabase(t, 'postgres');
  if (!db) return;
  t.after(() => db.dispose());
  const cwd = workdir(t);
  const { underFile } = unwritable(cwd);
  const transactionLog = {
    prefix: path.join(underFile, 'txlog'),
    pid: process.pid,
    aggregateSeconds: undefined,
    samplingRate: 1,
    rated: false,
    maxTries: 1,
    failuresDetailed: false,
  };
  const config = engineConfig(db.target, 'peak', { options: { query: 'constant', 'join-rows': 1 }, clients: 2, jobs: 2, durationSeconds: 1, transactionLog });
  for (const jobs of [1, 2]) {
    await assert.rejects(
      runEngine({ ...config, jobs }, new AbortController().signal, () => {}),
      (error: Error) => {
        assert.ok(error instanceof UserError, `${error.constructor.name}: ${error.message}`);
        assert.match(error.message, /^cannot write the transaction log .*txlog\.\d+: ENOTDIR/);
        return true;
      },
    );
    // Every connection the jobs opened is closed (the admin one below is the only one).
    const driver = createDriver(db.admin);
    const conn = await driver.connect();
    const [[open]] = (await conn.query(`SELECT count(*) FROM pg_stat_activity WHERE datname = '${(db.target as ServerTarget).database}'`)) as [[unknown]];
    await conn.close();
    assert.equal(Number(open), 0, `-j ${jobs}: connections left open to the test database`);
  }
});
