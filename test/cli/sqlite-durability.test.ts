import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RunResult } from '../../src/result/result.js';
import { resolveTarget } from '../../src/config/target.js';
import { UserError } from '../../src/errors.js';
import { runCli } from '../helpers/cli.js';

function workdir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-sqlite-sync-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function runOnce(dir: string, url: string, out: string): Promise<{ result: RunResult; stdout: string }> {
  const run = await runCli(['run', '--db', url, '-T', '1', '-P', '0', '--live=false', '--observe=false', '-o', out], { cwd: dir });
  assert.equal(run.code, 0, run.stderr);
  return { result: JSON.parse(readFileSync(path.join(dir, out), 'utf8')) as RunResult, stdout: run.stdout };
}

test('sqlite: the first run of a new file and the next one run at the same synchronous, FULL by default, named in the summary', async (t) => {
  const dir = workdir(t);
  const first = await runOnce(dir, 'sqlite:fresh.db', 'first.json');
  const second = await runOnce(dir, 'sqlite:fresh.db', 'second.json');
  assert.equal(first.result.target.settings['synchronous'], '2 (FULL)');
  assert.equal(second.result.target.settings['synchronous'], '2 (FULL)');
  assert.deepEqual(second.result.target.durabilityRisks, []);
  assert.match(second.stdout, /^target: sqlite:fresh\.db \(SQLite [\d.]+, synchronous=FULL\)$/m);
});

test('sqlite: ?synchronous=normal and off are taken from the URL and labelled; the result is not durable', async (t) => {
  const dir = workdir(t);
  const normal = await runOnce(dir, 'sqlite:n.db?synchronous=normal', 'n.json');
  assert.equal(normal.result.target.settings['synchronous'], '1 (NORMAL)');
  assert.equal(normal.result.target.url, 'sqlite:n.db?synchronous=normal');
  assert.equal(normal.result.target.durable, false);
  assert.match(normal.stdout, /synchronous=NORMAL\)/);
  const off = await runOnce(dir, 'sqlite:n.db?synchronous=off', 'off.json');
  assert.equal(off.result.target.settings['synchronous'], '0 (OFF)');
  assert.deepEqual(off.result.target.durabilityRisks, ['synchronous=OFF']);
});

test('sqlite: an unknown synchronous value or parameter is one line, exit 2', async (t) => {
  assert.deepEqual(resolveTarget('sqlite:./a.db?synchronous=NORMAL', {}), { dbms: 'sqlite', file: './a.db', synchronous: 'normal' });
  assert.throws(
    () => resolveTarget('sqlite:./a.db?synchronous=extra', {}),
    (e: unknown) => e instanceof UserError && /synchronous=extra/.test(e.message) && /full, normal or off/.test(e.hint ?? ''),
  );
  assert.throws(
    () => resolveTarget('sqlite:./a.db?journal=wal', {}),
    (e: unknown) => e instanceof UserError && /unknown parameter "journal"/.test(e.message),
  );
  const run = await runCli(['run', '--db', 'sqlite:x.db?synchronous=sometimes', '-T', '1'], { cwd: workdir(t) });
  assert.equal(run.code, 2);
  assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
  assert.match(run.stderr, /^headroom: \?synchronous=sometimes is not a SQLite synchronous mode/);
});
