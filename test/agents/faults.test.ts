import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ServerTarget } from '../../src/config/target.js';
import { createDriver } from '../helpers/drivers.js';
import type { RunResult } from '../../src/result/result.js';
import { CLI, runCli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';
import { NATS_URL, TRUST, agentsListening, natsOrSkip, startAgent, uniquePrefix, waitFor } from './helpers.js';

const BUS = (prefix: string): string[] => ['--nats', NATS_URL, '--nats-subject', prefix, '--trust', TRUST];

/**
 * An agent killed mid-run (SIGKILL: no goodbye) falls silent; after 5 s the coordinator reports it,
 * and either goes on with the other two or stops the run, as --on-agent-loss says.
 */
for (const mode of ['continue', 'stop'] as const) {
  test(`postgres: an agent killed mid-run is reported, and the run ${mode === 'continue' ? 'goes on with the rest' : 'stops'} (--on-agent-loss ${mode})`, async (t) => {
    if (!(await natsOrSkip(t))) return;
    const db = await freshDatabase(t, 'postgres');
    if (!db) return;
    t.after(() => db.dispose());
    const prefix = uniquePrefix();
    const agents = ['a0', 'a1', 'a2'].map((name) => startAgent(t, prefix, name, ['--once']));
    await agentsListening(agents);
    const out = mkdtempSync(path.join(tmpdir(), 'headroom-coordinator-'));
    t.after(() => rmSync(out, { recursive: true, force: true }));
    const file = path.join(out, 'result.json');
    const victim = agents[1]!;
    let killedAt = 0;
    const run = await runCli(
      [
        'run',
        'tpcb',
        '-b',
        'select-only',
        '--db',
        db.url,
        '-c',
        '3',
        '-T',
        '12',
        '--on-agent-loss',
        mode,
        '--agents',
        '3',
        ...BUS(prefix),
        '-o',
        file,
        '--observe=false',
        '-P',
        '1',
      ],
      {
        cwd: out,
        // The third progress line: every agent is running and has streamed.
        whenStderr: [/(progress:.*\n){3}/, () => ((killedAt = Date.now()), victim.child.kill('SIGKILL'))],
      },
    );
    assert.ok(killedAt > 0, run.stderr);
    const result = JSON.parse(readFileSync(file, 'utf8')) as RunResult;
    const lost = result.agents!.members.filter((m) => m.lost);
    assert.equal(lost.length, 1, JSON.stringify(result.agents));
    assert.equal(lost[0]!.name, 'a1');
    assert.ok(lost[0]!.lost!.transactionsStreamed > 0, 'what it had done before it went');
    assert.ok(lost[0]!.lost!.afterSeconds >= 1 && lost[0]!.lost!.afterSeconds < 12, JSON.stringify(lost[0]));
    assert.match(run.stdout, /a1: .*LOST at/);
    const others = result.agents!.members.filter((m) => !m.lost);
    // The totals are the two survivors' own.
    assert.equal(
      result.summary.transactions,
      others.reduce((n, m) => n + m.transactions, 0),
    );
    if (mode === 'continue') {
      assert.equal(run.code, 0, run.stderr);
      assert.equal(result.status, 'completed');
      assert.match(run.stdout, /went on with the rest/);
      assert.ok(result.summary.measuredSeconds >= 11.5, `ran its whole time: ${result.summary.measuredSeconds}`);
      // report and compare say who was lost, when, and what it had done.
      const { at, afterSeconds, transactionsStreamed } = lost[0]!.lost!;
      const html = path.join(out, 'report.html');
      assert.equal((await runCli(['report', file, '-o', html], { cwd: out })).code, 0);
      assert.ok(
        readFileSync(html, 'utf8').includes(
          `<p class="warning">a1 lost at ${at} (${afterSeconds} s in) after ${transactionsStreamed} streamed transactions, not in the totals</p>`,
        ),
        'the HTML agents table names the loss',
      );
      const compare = await runCli(['compare', file, file], { cwd: out });
      assert.match(
        compare.stdout,
        new RegExp(`\\n  1: 3 agents \\(.*a1 \\d: ${lost[0]!.transactions}.*\\), clock offsets spread .*, lost a1 ${afterSeconds} s in\\n`),
      );
    } else {
      assert.equal(run.code, 1, run.stderr);
      assert.equal(result.status, 'failed');
      assert.match(result.statusReason ?? '', /agent a1 was lost .*--on-agent-loss stop/);
      assert.ok(result.summary.measuredSeconds < 11, `stopped early: ${result.summary.measuredSeconds}`);
    }
  });
}

/** A coordinator killed mid-run: every agent stops within seconds, closes its connections and (with --once) exits. */
test('postgres: killing the coordinator stops every agent within seconds and leaves no connection open', async (t) => {
  if (!(await natsOrSkip(t))) return;
  const db = await freshDatabase(t, 'postgres');
  if (!db) return;
  t.after(() => db.dispose());
  const prefix = uniquePrefix();
  const agents = ['a0', 'a1'].map((name) => startAgent(t, prefix, name, ['--once']));
  await agentsListening(agents);
  const app = `headroom_${prefix}`;
  const url = `${db.url}?application_name=${app}`;
  const coordinator = spawn(
    process.execPath,
    [CLI, 'run', 'tpcb', '-b', 'select-only', '--db', url, '-c', '4', '-T', '60', '--agents', '2', ...BUS(prefix), '--observe=false', '-o', '-'],
    {
      env: { ...process.env, DATABASE_URL: undefined },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  t.after(() => coordinator.kill('SIGKILL'));
  let stderr = '';
  coordinator.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await waitFor('two progress lines', () => (stderr.match(/progress:/g) ?? []).length >= 2, 60_000);
  const admin = createDriver(db.admin);
  const conn = await admin.connect();
  t.after(() => conn.close());
  const sessions = async (): Promise<number> =>
    Number(((await conn.query(`SELECT count(*) FROM pg_stat_activity WHERE application_name = '${app}'`)) as [[unknown]])[0][0]);
  assert.ok((await sessions()) >= 4, "the agents' terminals are connected");
  coordinator.kill('SIGKILL');
  const killed = Date.now();
  const codes = await Promise.all(agents.map((a) => a.exited));
  const stoppedMs = Date.now() - killed;
  assert.ok(stoppedMs < 15_000, `agents stopped ${stoppedMs} ms after the coordinator died`);
  for (const agent of agents) assert.match(agent.stderr(), /no heartbeat from the coordinator/);
  assert.deepEqual(codes, [0, 0]);
  assert.equal(await sessions(), 0, 'no terminal connection left');
  assert.equal((db.target as ServerTarget).dbms, 'postgres');
});

test('a NATS server that is not there is one line and exit code 2, for run and for agent', async (t) => {
  const run = await runCli(['run', 'tpcb', '--agents', '2', '--nats', 'nats://127.0.0.1:9', '--trust', TRUST]);
  assert.equal(run.code, 2);
  assert.equal(run.stderr.trim().split('\n').length <= 2, true, run.stderr);
  assert.match(run.stderr, /cannot reach the NATS server at nats:\/\/127\.0\.0\.1:9/);
  assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
  const agent = await runCli(['agent', '--nats', 'nats://127.0.0.1:9', '--trust', TRUST]);
  assert.equal(agent.code, 2);
  assert.match(agent.stderr, /cannot reach the NATS server/);
  const noSecret = await runCli(['agent', '--nats', NATS_URL], { env: { ...process.env, HEADROOM_TRUST: undefined } });
  assert.equal(noSecret.code, 2);
  assert.match(noSecret.stderr, /no shared secret/);
  t.diagnostic('checked run, agent, and an agent without a secret');
});
