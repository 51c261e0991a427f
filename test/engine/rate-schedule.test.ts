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

/** Every committed line of the log files of `prefix` (one per job). */
function readLog(dir: string, prefix: string): Line[] {
  const files = readdirSync(dir).filter((f) => f.startsWith(`${prefix}.`));
  assert.ok(files.length > 0, `no log file ${prefix}.* in ${dir}`);
  return files.flatMap((file) =>
    readFileSync(path.join(dir, file), 'utf8')
      .trim()
      .split('\n')
      .map((text) => {
        const f = text.split(' ');
        assert.equal(f.length, 7, `client transaction latency script sec usec lag: ${text}`);
        assert.match(f[2]!, /^\d+$/, `a committed transaction: ${text}`);
        return { client: Number(f[0]), transaction: Number(f[1]), latencyUs: Number(f[2]), endUs: Number(f[4]) * 1e6 + Number(f[5]), lagUs: Number(f[6]) };
      }),
  );
}

/**
 * Each client's scheduled starts (end time less latency, which counts from the scheduled start)
 * relative to its first: the sums of the drawn inter-arrival gaps, the same in every run with the
 * same seed, whatever the clock at start or the speed of the server.
 */
function scheduleOffsets(lines: readonly Line[]): Map<number, number[]> {
  const byClient = new Map<number, Line[]>();
  for (const line of lines) byClient.set(line.client, [...(byClient.get(line.client) ?? []), line]);
  const offsets = new Map<number, number[]>();
  for (const [client, own] of byClient) {
    own.sort((a, b) => a.transaction - b.transaction);
    assert.equal(own[0]!.transaction, 1, `client ${client} logs from its first transaction`);
    const first = own[0]!.endUs - own[0]!.latencyUs;
    offsets.set(
      client,
      own.map((l) => l.endUs - l.latencyUs - first),
    );
  }
  return offsets;
}

test('-R: no transaction starts before its scheduled time, and --seed gives the same schedule with -j 1 and -j 2', async (t) => {
  const db = await freshDatabase(t, 'postgres');
  if (!db) return;
  t.after(() => db.dispose());
  const cwd = workdir(t);
  const init = await runCli(['init', 'tpcb', '--pgbench', '-s', '1', '--db', db.url], { cwd });
  assert.equal(init.code, 0, init.stderr);
  const run = async (prefix: string, seed: string, jobs: string): Promise<Line[]> => {
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
      jobs,
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
  const first = await run('a', '7', '1');
  const again = await run('b', '7', '2');

  for (const line of [...first, ...again]) {
    // A timer that fires early must not start the transaction early: pgbench's lag is never negative either.
    assert.ok(line.lagUs >= 0, `negative schedule lag: ${JSON.stringify(line)}`);
    // Latency counts from the scheduled start: the lag plus the transaction's own run time, never less.
    assert.ok(line.latencyUs > line.lagUs, `latency shorter than lag plus run time: ${JSON.stringify(line)}`);
  }

  const a = scheduleOffsets(first);
  const b = scheduleOffsets(again);
  assert.deepEqual([...a.keys()].sort(), [0, 1, 2, 3]);
  assert.deepEqual([...b.keys()].sort(), [0, 1, 2, 3]);
  for (const [client, offsets] of a) {
    const other = b.get(client)!;
    const common = Math.min(offsets.length, other.length);
    assert.ok(common > 100, `client ${client}: about 200 transactions in 2 s at 100 tps each, got ${common}`);
    // Each offset is (end - latency) less the first's: four values rounded to the microsecond (the
    // end's epoch time also carries a double's 0.24 us grain at today's epoch in ms), so each run's
    // offset is off by up to 2.25 us, and the two runs' by up to 4.5 us: 5 us apart at most. A
    // different schedule is ~10 ms apart (4 clients at 400 tps).
    for (let i = 0; i < common; i++)
      assert.ok(
        Math.abs(offsets[i]! - other[i]!) <= 5,
        `client ${client}, transaction ${i + 1}: scheduled at +${offsets[i]} us in one run, +${other[i]} us in the other`,
      );
  }
  // Each client draws its own gaps: the comparison above can tell two schedules apart.
  const [zero, one] = [a.get(0)!, a.get(1)!];
  assert.ok(
    zero.slice(1, 50).some((v, i) => Math.abs(v - one[i + 1]!) > 100),
    'clients 0 and 1 share one schedule',
  );
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
