import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RunResult } from '../../src/result/result.js';
import { verdict } from '../../src/reports/server-text.js';
import { runCli } from '../helpers/cli.js';

function workdir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-verdict-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function run(dir: string, args: string[], code = 0): Promise<{ result: RunResult; stdout: string }> {
  const out = path.join(dir, `r${Math.random().toString(16).slice(2)}.json`);
  const cli = await runCli(['run', '--db', `sqlite:${path.join(dir, 'v.db')}`, '-P', '0', '--out', out, ...args], { cwd: dir });
  assert.equal(cli.code, code, cli.stderr);
  return { result: JSON.parse(readFileSync(out, 'utf8')) as RunResult, stdout: cli.stdout };
}

test('clients that aborted on a script error are not judged saturated: the verdict says they aborted', async (t) => {
  const dir = workdir(t);
  writeFileSync(path.join(dir, 'bad.sql'), '\\set x 1 / 0\nSELECT :x;\n');
  const { result, stdout } = await run(dir, ['-f', 'bad.sql', '-c', '2', '-T', '2'], 1);
  assert.match(stdout, /^verdict: 2 of 2 client\(s\) aborted \(division by zero\)/m);
  assert.doesNotMatch(stdout, /saturated/);
  // As seen: 94% of a core measured over a period in which every client had aborted.
  const busy = { ...result, summary: { ...result.summary, clientCpu: { ...result.summary.clientCpu, percentOfOneCore: 94 } } };
  assert.match(verdict(busy, 2), /^verdict: 2 of 2 client\(s\) aborted/);
});

test('a process burning a core beside the run: the verdict says other processes took the CPU and the figures are unreliable', async (t) => {
  const dir = workdir(t);
  const burner = spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' });
  t.after(() => burner.kill('SIGKILL'));
  const { result, stdout } = await run(dir, ['-c', '1', '-T', '3', '--rate', '50']);
  const machine = result.server?.machine;
  assert.ok(machine, 'the machine is sampled on Linux');
  // The burner alone is one core of the machine's; the rate-limited client uses little.
  assert.ok(machine.cpuPercentOfOneCore - machine.clientCpuPercentOfOneCore >= 90, JSON.stringify(machine));
  assert.match(stdout, /^verdict: unreliable: other processes used \d+% of one core .*figures are unreliable/m);
});

test('the verdict from measured shares: others above a quarter of the machine make it unreliable, below they do not', async (t) => {
  const dir = workdir(t);
  const { result } = await run(dir, ['-c', '1', '-t', '20']);
  const at = (machineCpu: number, clientCpu: number, serverCpu?: number): string =>
    verdict(
      {
        ...result,
        summary: { ...result.summary, clientCpu: { ...result.summary.clientCpu, percentOfOneCore: clientCpu } },
        server: {
          ...result.server!,
          host: serverCpu === undefined ? null : { processes: 3, cpuSeconds: 1, cpuPercentOfOneCore: serverCpu, readBytes: 0, writeBytes: 0, series: [] },
          machine: { cpuPercentOfOneCore: machineCpu, clientCpuPercentOfOneCore: clientCpu, disks: ['vda'], diskReadBytes: 0, diskWriteBytes: 0 },
        },
      },
      2,
    );
  // 2 cores: a quarter of the machine is 50% of one core.
  assert.match(at(160, 40, 60), /^verdict: unreliable: other processes used 60% of one core \(30% of the machine's 2 cores\)/);
  assert.match(at(140, 40, 60), /the time went to waiting/);
  assert.match(at(150, 95), /^verdict: unreliable: other processes used 55% /);
  assert.match(at(120, 95), /client was saturated/);
});
