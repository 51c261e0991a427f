import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadReactor } from '../../src/drivers/transport/native-transport.js';
import type { RunResult } from '../../src/result/result.js';
import { runCli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';
import { skipOrFail } from '../helpers/skip-or-fail.js';
import { NATS_URL, TRUST, agentsListening, natsOrSkip, startAgent, uniquePrefix } from './helpers.js';

/**
 * Agents started with different HEADROOM_SPIN settings: the coordinator's result says the waits
 * were `mixed` rather than naming one agent's mode for all, and where the agents agree it names
 * theirs (the coordinator's own setting plays no part: it runs no terminal).
 */
test('agents with different HEADROOM_SPIN: the result records the waits as mixed; agents that agree record their mode', async (t) => {
  if (!(await natsOrSkip(t))) return;
  if (!loadReactor() && skipOrFail(t, 'the native reactor is not built: npm run build:native (Linux, python3, make, a C compiler)')) return;
  const db = await freshDatabase(t, 'postgres');
  if (!db) return;
  t.after(() => db.dispose());
  const work = mkdtempSync(path.join(tmpdir(), 'headroom-agent-waits-'));
  t.after(() => rmSync(work, { recursive: true, force: true }));
  const init = await runCli(['init', 'tpcb', '--pgbench', '-s', '1', '--db', db.url], { cwd: work });
  assert.equal(init.code, 0, init.stderr);

  const runWith = async (spins: readonly string[]): Promise<RunResult> => {
    const prefix = uniquePrefix();
    const agents = spins.map((spin, i) => startAgent(t, prefix, `a${i}`, ['--once'], { HEADROOM_TRANSPORT: 'native', HEADROOM_SPIN: spin }));
    for (const agent of agents) t.after(() => rmSync(agent.cwd, { recursive: true, force: true }));
    await agentsListening(agents);
    const out = path.join(work, `result-${spins.join('-')}.json`);
    const args = ['run', 'tpcb', '-b', 'select-only', '-c', String(spins.length), '-t', '50', '--db', db.url, '--agents', String(spins.length)];
    const run = await runCli([...args, '--nats', NATS_URL, '--nats-subject', prefix, '--trust', TRUST, '--observe=false', '-P', '0', '-o', out], {
      cwd: work,
      env: { ...process.env, DATABASE_URL: undefined, HEADROOM_SPIN: 'auto' },
    });
    assert.equal(run.code, 0, `${run.stderr}\n${agents.map((a) => a.stderr()).join('\n')}`);
    return JSON.parse(readFileSync(out, 'utf8')) as RunResult;
  };

  const mixed = await runWith(['on', 'off']);
  assert.equal(mixed.summary.transactions, 100);
  // Neither on nor off runs trials: the sum is 0 either way, the mode is what tells them apart.
  assert.deepEqual(mixed.summary.clientCpu.waits, { mode: 'mixed', trials: 0, pollingWon: 0 });
  // The agents' job threads' wait for a CPU travels with their totals too: one job thread each.
  assert.equal(mixed.summary.clientCpu.runQueue?.threads, 2, JSON.stringify(mixed.summary.clientCpu));

  const agreed = await runWith(['off', 'off']);
  assert.equal(agreed.summary.transactions, 100);
  assert.deepEqual(agreed.summary.clientCpu.waits, { mode: 'off', trials: 0, pollingWon: 0 });
});
