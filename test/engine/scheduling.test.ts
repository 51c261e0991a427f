import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { clientScheduling, schedulingOf } from '../../src/engine/scheduling.js';
import type { RunResult } from '../../src/result/result.js';
import { CLI } from '../helpers/cli.js';

/** A /proc/PID/stat line with the given command name, nice value (field 19) and policy (field 41). */
function statLine(comm: string, nice: number, policy: number): string {
  const fields = Array.from({ length: 52 }, (_, i) => String(i + 1));
  fields[19 - 1] = String(nice);
  fields[41 - 1] = String(policy);
  return `${fields[0]} (${comm}) ${fields.slice(2).join(' ')}\n`;
}

test("the client's scheduling is read from /proc's stat line, whatever its command name holds", () => {
  assert.deepEqual(schedulingOf(statLine('node', 0, 0)), { policy: 'other', nice: 0 });
  assert.deepEqual(schedulingOf(statLine('a) b (c', 10, 3)), { policy: 'batch', nice: 10 });
  assert.deepEqual(schedulingOf(statLine('node', -5, 5)), { policy: 'idle', nice: -5 });
  assert.equal(schedulingOf(statLine('node', 0, 4)), undefined, 'no such policy');
  assert.equal(schedulingOf(undefined), undefined, 'no /proc');
});

/** headroom run on SQLite, started through `prefix` (chrt, nice); its result and its summary. */
function run(prefix: string[], t: { after(fn: () => void): void }): { result: RunResult; stdout: string } {
  const cwd = mkdtempSync(path.join(tmpdir(), 'headroom-scheduling-'));
  t.after(() => rmSync(cwd, { recursive: true, force: true }));
  const out = path.join(cwd, 'result.json');
  const [command, ...args] = [...prefix, process.execPath, CLI, 'run', '-t', '10', '-c', '1', '-P', '0', '--out', out];
  const child = spawnSync(command!, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: undefined },
  });
  assert.equal(child.status, 0, child.stderr);
  return { result: JSON.parse(readFileSync(out, 'utf8')) as RunResult, stdout: child.stdout };
}

test('a run says in its result and summary when the client ran under chrt or nice', (t) => {
  if (process.platform !== 'linux') return t.skip('scheduling policies are Linux');
  // This process's own, which a child started without chrt or nice inherits (the default, unless
  // the suite itself was started under one).
  const own = clientScheduling();
  const plain = run([], t);
  assert.deepEqual(plain.result.summary.clientCpu.scheduling, own);
  if (own?.policy === 'other' && own.nice === 0) assert.doesNotMatch(plain.stdout, /scheduled/);
  const nice = Math.min(19, (own?.nice ?? 0) + 3);
  const batch = run(['chrt', '-b', '0', 'nice', '-n', '3'], t);
  assert.deepEqual(batch.result.summary.clientCpu.scheduling, { policy: 'batch', nice });
  assert.match(batch.stdout, new RegExp(`^client cpu: .*% of one core \\(scheduled SCHED_BATCH, nice ${nice}\\);`, 'm'));
});
