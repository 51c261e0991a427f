import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as hdr from 'hdr-histogram-js';
import type { RunResult } from '../../src/result/result.js';
import { runCli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';
import { NATS_URL, TRUST, agentsListening, natsOrSkip, startAgent, uniquePrefix } from './helpers.js';

function reference(): hdr.Histogram {
  return hdr.build({ bitBucketSize: 32, numberOfSignificantValueDigits: 3, lowestDiscernibleValue: 1, autoResize: true, useWebAssembly: false });
}

/** The committed transactions' latencies (us) of a pgbench-format -l file: `client_id transaction_no time script_no epoch us`. */
function loggedLatencies(folder: string): number[] {
  const files = readdirSync(folder).filter((f) => f.startsWith('pgbench_log.'));
  assert.ok(files.length > 0, `no -l file in ${folder}`);
  return files.flatMap((f) =>
    readFileSync(path.join(folder, f), 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => line.split(' ')[2]!)
      .filter((time) => time !== 'failed' && time !== 'skipped')
      .map(Number),
  );
}

/**
 * Three agents, each a process of its own writing its own -l file, run one select-only run; the
 * coordinator's result must hold exactly their transactions, and its histogram must be exactly
 * the histogram of every latency the agents logged (HdrHistogram's own port builds that one).
 */
for (const dbms of ['postgres', 'mariadb'] as const) {
  test(`${dbms}: K=3 agents make one result whose count is the sum of theirs and whose histogram is that of all their samples`, async (t) => {
    if (!(await natsOrSkip(t))) return;
    const db = await freshDatabase(t, dbms);
    if (!db) return;
    t.after(() => db.dispose());
    const prefix = uniquePrefix();
    const agents = ['a0', 'a1', 'a2'].map((name) => startAgent(t, prefix, name, ['--once']));
    await agentsListening(agents);
    const out = mkdtempSync(path.join(tmpdir(), 'headroom-coordinator-'));
    t.after(() => rmSync(out, { recursive: true, force: true }));
    const file = path.join(out, 'result.json');
    const run = await runCli(
      [
        'run',
        'tpcb',
        '-b',
        'select-only',
        '--db',
        db.url,
        '-c',
        '5',
        '-T',
        '2',
        '-l',
        '--agents',
        '3',
        '--nats',
        NATS_URL,
        '--nats-subject',
        prefix,
        '--trust',
        TRUST,
        '-o',
        file,
        '--observe=false',
      ],
      { cwd: out },
    );
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(readFileSync(file, 'utf8')) as RunResult;
    assert.equal(result.status, 'completed');
    const record = result.agents!;
    assert.equal(record.count, 3);
    // Terminals 0..4 dealt 2, 2, 1, each to exactly one agent.
    assert.deepEqual(
      record.members.map((m) => m.terminals).sort((a, b) => a.first - b.first),
      [
        { first: 0, count: 2 },
        { first: 2, count: 2 },
        { first: 4, count: 1 },
      ],
    );
    assert.deepEqual(result.terminals?.map((tt) => tt.terminal) ?? [0, 1, 2, 3, 4], [0, 1, 2, 3, 4]);
    await Promise.all(agents.map((a) => a.exited));
    // Each agent's own count, as it printed it in its own process.
    const own = agents.map((a) => Number(/completed, (\d+) transactions/.exec(a.stderr())?.[1] ?? NaN));
    assert.ok(
      own.every((n) => n > 0),
      agents.map((a) => a.stderr()).join('\n'),
    );
    assert.equal(result.summary.transactions, own[0]! + own[1]! + own[2]!);
    assert.equal(
      result.summary.transactions,
      record.members.reduce((n, m) => n + m.transactions, 0),
    );

    const samples = reference();
    let logged = 0;
    for (const agent of agents) {
      for (const us of loggedLatencies(agent.cwd)) {
        samples.recordValue(us);
        logged++;
      }
    }
    assert.equal(logged, result.summary.transactions, "every measured transaction is in some agent's log");
    // Both as stored: HdrHistogram's encoding keeps buckets, so a recorded histogram's exact max becomes its bucket's top.
    const merged = hdr.decodeFromCompressedBase64(result.transactions[0]!.histogram, 32, false);
    const stored = hdr.decodeFromCompressedBase64(hdr.encodeIntoCompressedBase64(samples), 32, false);
    assert.equal(merged.totalCount, stored.totalCount);
    assert.equal(merged.maxValue, stored.maxValue);
    assert.equal(merged.minNonZeroValue, stored.minNonZeroValue);
    // The last line gives the array's size, which depends on how the histogram grew, not on its counts.
    const distribution = (h: hdr.Histogram): string => h.outputPercentileDistribution().replace(/#\[Buckets.*\n?$/, '');
    assert.equal(distribution(merged), distribution(stored), 'every bucket the same');
    for (const agent of agents) rmSync(agent.cwd, { recursive: true, force: true });
  });
}
