import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RunResult } from '../../src/result/result.js';
import type { SweepResult } from '../../src/result/sweep.js';
import { CLI, runCli, type CliRun } from '../helpers/cli.js';
import { smallDisk } from '../helpers/small-disk.js';

/** A folder on the ordinary disk for the database and what the test writes where there is room. */
function workdir(t: TestContext): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-full-disk-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function sqliteTpcb(cwd: string): Promise<string> {
  const db = `sqlite:${path.join(cwd, 'bench.db')}`;
  const init = await runCli(['init', 'tpcb', '-s', '1', '--db', db], { cwd });
  assert.equal(init.code, 0, init.stderr);
  return db;
}

/**
 * The one line that says a file could not be written, and where its content went instead; the
 * fallback file is removed when the test ends. Nothing else in stderr may be an error or a stack.
 */
function fallbackOf(t: TestContext, run: CliRun, prefix: string, what: string, asked: string): string {
  assert.doesNotMatch(run.stderr, /^\s+at /m, `no stack trace: ${run.stderr}`);
  assert.doesNotMatch(run.stderr, /unexpected error/, run.stderr);
  const lines = run.stderr.split('\n').filter((line) => /cannot write|ENOSPC|no space/i.test(line));
  assert.equal(lines.length, 1, `one line tells the full disk: ${run.stderr}`);
  const escaped = asked.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(`^${prefix}cannot write the ${what} to ${escaped}: no space left on the device; it was written to (\\S+) instead$`).exec(lines[0]!);
  assert.ok(match, lines[0]);
  const fallback = match[1]!;
  t.after(() => rmSync(fallback, { force: true }));
  return fallback;
}

/** What is on the small disk besides the filler: no temporary file may be left there. */
function leftOn(dir: string): string[] {
  return readdirSync(dir).filter((name) => name !== 'filler');
}

/** A short, cheap run: one select-only client for a second. */
const SELECT_ONLY = ['-b', 'select-only', '-P', '0', '--observe=false'];
const ONE = [...SELECT_ONLY, '-c', '1', '-T', '1'];

test('-o on a disk full from the start: the summary is printed, one line names the fallback that holds the whole result, exit 1, no temporary file', async (t) => {
  const disk = smallDisk(t, 64);
  if (!disk) return;
  const cwd = workdir(t);
  const db = await sqliteTpcb(cwd);
  // Full, but an empty file can still be made: the up-front check of -o passes, the write after the run fails.
  disk.fill();
  const out = path.join(disk.dir, 'r.json');
  const run = await runCli(['run', 'tpcb', ...ONE, '--db', db, '-o', out], { cwd });
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stdout, /^transaction type: <builtin: select only>$/m, "pgbench's block is printed");
  const processed = Number(/^number of transactions actually processed: (\d+)$/m.exec(run.stdout)?.[1]);
  assert.ok(processed > 0, run.stdout);
  assert.match(run.stdout, /^latency ms: avg/m, "headroom's summary is printed");
  assert.doesNotMatch(run.stdout, /^result: /m, 'no result file is claimed');
  const fallback = fallbackOf(t, run, 'headroom: ', 'result', out);
  const result = JSON.parse(readFileSync(fallback, 'utf8')) as RunResult;
  assert.equal(result.status, 'completed');
  assert.equal(result.summary.transactions, processed, 'the fallback holds the figures the summary printed');
  assert.ok(result.series.length > 0 && result.terminals.length === 1, 'the whole result, series and terminals');
  assert.deepEqual(leftOn(disk.dir), [], 'no temporary file is left');
  assert.equal(existsSync(out), false);
});

test('-o on a disk that fills during the run (its -l log fills it): failed in the summary, the result in the fallback, exit 1, no temporary file', async (t) => {
  const disk = smallDisk(t, 64);
  if (!disk) return;
  const cwd = workdir(t);
  const db = await sqliteTpcb(cwd);
  const out = path.join(disk.dir, 'r.json');
  const run = await runCli(['run', 'tpcb', ...SELECT_ONLY, '-c', '1', '-T', '20', '-l', '--log-prefix', path.join(disk.dir, 'txlog'), '--db', db, '-o', out], {
    cwd,
  });
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stdout, /^status: failed \(a job failed mid-run, the run was stopped: writing the transaction log failed: ENOSPC/m, run.stdout);
  assert.match(run.stdout, /^transaction type: /m);
  const fallback = fallbackOf(t, run, 'headroom: ', 'result', out);
  const result = JSON.parse(readFileSync(fallback, 'utf8')) as RunResult;
  assert.equal(result.status, 'failed');
  assert.ok(result.summary.transactions > 0, 'what was measured before the disk filled is kept');
  assert.deepEqual(
    leftOn(disk.dir).filter((name) => !name.startsWith('txlog.')),
    [],
    'no temporary file is left, only the log that filled the disk',
  );
});

test("headroom pgbench --headroom-out on a full disk: pgbench's block, then one line naming the fallback, exit 1", async (t) => {
  const disk = smallDisk(t, 64);
  if (!disk) return;
  const cwd = workdir(t);
  const db = `sqlite:${path.join(cwd, 'bench.db')}`;
  const init = await runCli(['pgbench', '-i', '-q', db], { cwd });
  assert.equal(init.code, 0, init.stderr);
  disk.fill();
  const out = path.join(disk.dir, 'r.json');
  const run = await runCli(['pgbench', '-S', '-c', '1', '-T', '1', '--headroom-out', out, db], { cwd });
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stdout, /^transaction type: <builtin: select only>$/m);
  const processed = Number(/^number of transactions actually processed: (\d+)$/m.exec(run.stdout)?.[1]);
  const fallback = fallbackOf(t, run, 'headroom pgbench: error: ', 'result', out);
  assert.equal((JSON.parse(readFileSync(fallback, 'utf8')) as RunResult).summary.transactions, processed);
  assert.deepEqual(leftOn(disk.dir), []);
});

test('a sweep on a full disk: the table, one line, every step in the fallback, exit 1', async (t) => {
  const disk = smallDisk(t, 64);
  if (!disk) return;
  const cwd = workdir(t);
  const db = await sqliteTpcb(cwd);
  disk.fill();
  const out = path.join(disk.dir, 'sweep.json');
  const run = await runCli(['run', 'tpcb', ...SELECT_ONLY, '-T', '1', '-c', '1,2', '--db', db, '-o', out], { cwd });
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stdout, /^sweep: completed$/m, run.stdout);
  const fallback = fallbackOf(t, run, 'headroom: ', 'sweep', out);
  const sweep = JSON.parse(readFileSync(fallback, 'utf8')) as SweepResult;
  assert.deepEqual(
    sweep.steps.map((s) => s.config.clients),
    [1, 2],
    'one file with every step',
  );
  assert.deepEqual(leftOn(disk.dir), []);
});

test('an experiment on a full disk: its table, one line, the fallback, exit 1', async (t) => {
  const disk = smallDisk(t, 64);
  if (!disk) return;
  const cwd = workdir(t);
  disk.fill();
  const out = path.join(disk.dir, 'peak.json');
  const db = `sqlite:${path.join(cwd, 'peak.db')}`;
  const run = await runCli(['experiment', 'peak', '--queries', 'constant', '-c', '1', '-T', '1', '--observe=false', '--db', db, '-o', out], { cwd });
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stdout, /peak: the best 1-second window/);
  const fallback = fallbackOf(t, run, 'headroom: ', 'experiment', out);
  const experiment = JSON.parse(readFileSync(fallback, 'utf8')) as { rows: unknown[]; runs: RunResult[] };
  assert.equal(experiment.rows.length, 1);
  assert.ok(experiment.runs[0]!.summary.transactions > 0);
  assert.deepEqual(leftOn(disk.dir), []);
});

test('report -o on a full disk: one line, exit 2, no temporary file', async (t) => {
  const disk = smallDisk(t, 64);
  if (!disk) return;
  const cwd = workdir(t);
  const db = await sqliteTpcb(cwd);
  const result = path.join(cwd, 'r.json');
  const run = await runCli(['run', 'tpcb', ...ONE, '--db', db, '-o', result], { cwd });
  assert.equal(run.code, 0, run.stderr);
  disk.fill();
  const html = path.join(disk.dir, 'report.html');
  const report = await runCli(['report', result, '-o', html], { cwd });
  assert.equal(report.code, 2, report.stderr);
  assert.equal(report.stderr, `headroom: cannot write ${html}: no space left on the device (free some space or choose a folder you can write to)\n`);
  assert.deepEqual(leftOn(disk.dir), [], 'no temporary file is left');
});

/** The CLI with its stdout on /dev/full: every write to it fails with ENOSPC, as stdout redirected to a full disk. */
function runToFullStdout(args: readonly string[], cwd: string): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const full = openSync('/dev/full', 'w');
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, DATABASE_URL: undefined }, stdio: ['ignore', full, 'pipe'] });
    closeSync(full);
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout: '', stderr }));
  });
}

test('stdout on a full disk: -o - puts the result in a fallback file, compare says so in one line; exit 1, no stack trace', async (t) => {
  const cwd = workdir(t);
  const db = await sqliteTpcb(cwd);
  const run = await runToFullStdout(['run', 'tpcb', ...ONE, '--db', db, '-o', '-'], cwd);
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stderr, /^tps = /m, 'the summary is on stderr with -o -');
  const fallback = fallbackOf(t, run, 'headroom: ', 'result', 'stdout');
  assert.ok((JSON.parse(readFileSync(fallback, 'utf8')) as RunResult).summary.transactions > 0);

  const results = [1, 2].map((n) => path.join(cwd, `r${n}.json`));
  for (const out of results) assert.equal((await runCli(['run', 'tpcb', ...ONE, '--db', db, '-o', out], { cwd })).code, 0);
  const compare = await runToFullStdout(['compare', ...results], cwd);
  assert.equal(compare.code, 1, compare.stderr);
  assert.equal(compare.stderr, 'headroom: cannot write to stdout: no space left on the device\n');
});

test('--journal on a disk that fills mid-run, or is full from the start: the run fails in one line, no stack trace; check reads the torn last line as torn, 0 lost', async (t) => {
  // 16 KB: a few hundred commits fill it, a few seconds even on a busy machine.
  const disk = smallDisk(t, 16);
  if (!disk) return;
  const cwd = workdir(t);
  const db = await sqliteTpcb(cwd);
  for (const fullAtStart of [false, true]) {
    if (fullAtStart) disk.fill();
    const journal = path.join(disk.dir, `journal-${fullAtStart}.log`);
    const out = path.join(cwd, `r-${fullAtStart}.json`);
    const started = performance.now();
    const run = await runCli(['run', 'tpcb', '-c', '2', '-T', '30', '-P', '0', '--observe=false', '--db', db, '--journal', journal, '-o', out], { cwd });
    const where = `full at the start: ${fullAtStart}`;
    assert.equal(run.code, 1, `${where}: ${run.stderr}`);
    assert.ok(performance.now() - started < 28_000, `${where}: the run stopped when the journal failed, not at -T 30`);
    assert.doesNotMatch(run.stderr, /^\s+at |unexpected error|JournalWriter/m, `${where}: no stack trace: ${run.stderr}`);
    const escaped = journal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const reason = new RegExp(`a job failed mid-run, the run was stopped: writing the journal ${escaped} failed: ENOSPC`);
    assert.match(run.stdout, new RegExp(`^status: failed \\(${reason.source}`, 'm'), `${where}: ${run.stdout}`);
    const result = JSON.parse(readFileSync(out, 'utf8')) as RunResult;
    assert.equal(result.status, 'failed');
    assert.match(result.statusReason ?? '', reason);
    assert.ok(result.summary.transactions > 0, `${where}: what was measured is kept`);

    const written = readFileSync(journal, 'utf8');
    if (fullAtStart) assert.equal(written, '', 'not a byte fitted');
    else assert.ok(written.length > 12_000, `the journal filled the disk: ${written.length} bytes`);
    const check = await runCli(['check', 'tpcb', '--db', db, '--journal', journal], { cwd });
    assert.equal(check.code, 0, `${where}: ${check.stdout}${check.stderr}`);
    const line = /acknowledged commits kept: (\d+) of (\d+) acknowledged commits are in the database, (\d+) lost/.exec(check.stdout);
    assert.ok(line, check.stdout);
    assert.equal(line[1], line[2]);
    assert.equal(line[3], '0', `${where}: a torn line is no lost commit: ${check.stdout}`);
    // The disk fills at a page's end: the last line is cut short unless a line happened to end there.
    const torn = written !== '' && !written.endsWith('\n');
    if (torn) assert.match(check.stdout, /; 1 torn line \(a write cut short/, check.stdout);
    else assert.doesNotMatch(check.stdout, /torn/);
    t.diagnostic(`${where}: ${line[0]}; torn: ${torn}`);
  }
});
