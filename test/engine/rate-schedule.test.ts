import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';

function workdir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-rate-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** One committed line of a -l log under -R: client, its transaction number, latency, end time and schedule lag in microseconds. */
interface Line {
  client: number;
  transaction: number;
  latencyUs: number;
  endUs: number;
  lagUs: number;
}

/** Every committed line of the log files of `prefix`, by job (0 for PREFIX.PID, N for PREFIX.PID.N). */
function readLog(dir: string, prefix: string): Map<number, Line[]> {
  const files = readdirSync(dir).filter((f) => f.startsWith(`${prefix}.`));
  assert.ok(files.length > 0, `no log file ${prefix}.* in ${dir}`);
  return new Map(
    files.map((file) => [
      Number(file.split('.')[2] ?? 0),
      readFileSync(path.join(dir, file), 'utf8')
        .trim()
        .split('\n')
        .map((text) => {
          const f = text.split(' ');
          assert.equal(f.length, 7, `client transaction latency script sec usec lag: ${text}`);
          assert.match(f[2]!, /^\d+$/, `a committed transaction: ${text}`);
          return { client: Number(f[0]), transaction: Number(f[1]), latencyUs: Number(f[2]), endUs: Number(f[4]) * 1e6 + Number(f[5]), lagUs: Number(f[6]) };
        }),
    ]),
  );
}

/**
 * A job's scheduled starts (end time less latency, which counts from the scheduled start) in order,
 * relative to its first: the sums of the drawn inter-arrival gaps of the job's one stream, the same
 * in every run with the same seed and jobs, whichever client took which arrival and however fast
 * the server was.
 */
function scheduleOffsets(lines: readonly Line[]): number[] {
  const starts = lines.map((l) => l.endUs - l.latencyUs).sort((a, b) => a - b);
  return starts.map((at) => at - starts[0]!);
}

test('-R: no transaction starts before its scheduled time; --seed gives the same schedule again; the clients of a job share its one stream', async (t) => {
  const db = await freshDatabase(t, 'postgres');
  if (!db) return;
  t.after(() => db.dispose());
  const cwd = workdir(t);
  const init = await runCli(['init', 'tpcb', '--pgbench', '-s', '1', '--db', db.url], { cwd });
  assert.equal(init.code, 0, init.stderr);
  const run = async (prefix: string, seed: string): Promise<Map<number, Line[]>> => {
    const args = [
      'run',
      'tpcb',
      '-b',
      'select-only',
      '-R',
      '400',
      '-c',
      '4',
      '-j',
      '2',
      '-T',
      '2',
      '--seed',
      seed,
      '-l',
      '--log-prefix',
      prefix,
      '--observe=false',
      '-P',
      '0',
      '--db',
      db.url,
      '-o',
      `result-${prefix}.json`,
    ];
    const result = await runCli(args, { cwd });
    assert.equal(result.code, 0, result.stderr);
    return readLog(cwd, prefix);
  };
  const first = await run('a', '7');
  const again = await run('b', '7');
  const other = await run('c', '8');

  for (const line of [...first.values(), ...again.values()].flat()) {
    // A timer that fires early must not start the transaction early: pgbench's lag is never negative either.
    assert.ok(line.lagUs >= 0, `negative schedule lag: ${JSON.stringify(line)}`);
    // Latency counts from the scheduled start: the lag plus the transaction's own run time, never less.
    assert.ok(line.latencyUs > line.lagUs, `latency shorter than lag plus run time: ${JSON.stringify(line)}`);
  }
  assert.deepEqual([...first.keys()].sort(), [0, 1]);
  assert.deepEqual([...again.keys()].sort(), [0, 1]);
  const differs = (a: number[], b: number[]): boolean => a.slice(1, 50).some((v, i) => Math.abs(v - b[i + 1]!) > 100);
  for (const [job, lines] of first) {
    // Two of the four clients in each job, each taking arrivals from the job's stream.
    assert.deepEqual([...new Set(lines.map((l) => l.client))].sort(), job === 0 ? [0, 2] : [1, 3]);
    const offsets = scheduleOffsets(lines);
    const repeated = scheduleOffsets(again.get(job)!);
    const common = Math.min(offsets.length, repeated.length);
    assert.ok(common > 300, `job ${job}: about 400 transactions in 2 s at 200 tps, got ${common}`);
    // Each offset is (end - latency) less the first's: four values rounded to the microsecond (the
    // end's epoch time also carries a double's 0.24 us grain at today's epoch in ms), so each run's
    // offset is off by up to 2.25 us, and the two runs' by up to 4.5 us: 5 us apart at most. A
    // different schedule is ~5 ms apart (200 tps a job).
    for (let i = 0; i < common; i++)
      assert.ok(
        Math.abs(offsets[i]! - repeated[i]!) <= 5,
        `job ${job}, arrival ${i + 1}: scheduled at +${offsets[i]} us in one run, +${repeated[i]} us in the other`,
      );
    // The comparison above can tell two schedules apart: another seed, and the other job, draw others.
    assert.ok(differs(offsets, scheduleOffsets(other.get(job)!)), `job ${job}: --seed 8 drew the schedule of --seed 7`);
    assert.ok(differs(offsets, scheduleOffsets(first.get(1 - job)!)), 'the two jobs share one schedule');
    // One stream for the job at 200 per second: mean gap 5 ms (within 4 standard errors for ~400 gaps).
    const meanGapMs = offsets[offsets.length - 1]! / (offsets.length - 1) / 1000;
    assert.ok(Math.abs(meanGapMs - 5) < 1, `job ${job}: mean gap ${meanGapMs.toFixed(2)} ms between arrivals, not about 5`);
  }
});

test('--sampling-rate picks the same transactions in two runs with the same seed', async (t) => {
  const db = await freshDatabase(t, 'sqlite');
  if (!db) return;
  t.after(() => db.dispose());
  const cwd = workdir(t);
  const logged = async (prefix: string): Promise<string[]> => {
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
        '-t',
        '200',
        '--seed',
        '11',
        '-l',
        '--sampling-rate',
        '0.5',
        '--log-prefix',
        prefix,
        '--observe=false',
        '-P',
        '0',
        '--db',
        db.url,
        '-o',
        `result-${prefix}.json`,
      ],
      { cwd },
    );
    assert.equal(run.code, 0, run.stderr);
    const file = readdirSync(cwd).find((f) => f.startsWith(`${prefix}.`))!;
    return readFileSync(path.join(cwd, file), 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(' ')[1]!);
  };
  const first = await logged('s1');
  const second = await logged('s2');
  assert.ok(first.length > 50 && first.length < 150, `about half of 200 sampled: ${first.length}`);
  assert.deepEqual(second, first);
});
