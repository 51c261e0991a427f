import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CLI } from '../helpers/cli.js';

function hasScript(): boolean {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

test('on a terminal, run redraws a live view in place instead of printing progress lines', (t) => {
  if (!hasScript()) {
    // util-linux's script gives the run a real pseudo-terminal.
    if (process.env['CI'] === 'true') throw new Error('the command "script" is missing: apt-get install -y util-linux');
    t.skip('the command "script" (util-linux) is missing, so there is no terminal to run in');
    return;
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-live-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const command = [process.execPath, CLI, 'run', '-T', '2', '-c', '1', '--db', `sqlite:${path.join(dir, 'live.db')}`, '--out', path.join(dir, 'r.json')]
    .map((a) => `'${a}'`)
    .join(' ');
  const run = spawnSync('script', ['-qec', command, '/dev/null'], { cwd: dir, encoding: 'utf8', env: { ...process.env, TERM: 'xterm' }, timeout: 60_000 });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  const out = run.stdout;
  assert.doesNotMatch(out, /progress: /, 'no pgbench-style lines on a terminal');
  const frames = out.split('\x1b[5A');
  assert.equal(frames.length, 2, `two frames, the second drawn over the first:\n${JSON.stringify(out)}`);
  for (const frame of frames) {
    assert.match(frame, /\x1b\[2K[12] \/ 2 s {2}headroom tpcb on sqlite:/);
    assert.match(frame, /\x1b\[2K {2}tps +\d+\.\d +[▁▂▃▄▅▆▇█]+/);
    assert.match(frame, /\x1b\[2K {2}latency {2}p50 [\d.]+ ms {2}p99 [\d.]+ ms {2}max [\d.]+ ms/);
    assert.match(frame, /\x1b\[2K {2}failed {3}0/);
    assert.match(frame, /\x1b\[2K {2}client {3}cpu \d+% {2}event-loop lag p99 [\d.]+ ms {2}max [\d.]+ ms/);
  }
  assert.match(frames[1]!, /^\r?\n?\r?\x1b\[2K2 \/ 2 s/, 'the redraw starts at the first line of the frame');
  assert.match(out, /^tps = \d+\.\d{3}\r?$/m, 'the summary follows the last frame');
});
