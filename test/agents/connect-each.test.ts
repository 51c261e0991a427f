import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RunResult } from '../../src/result/result.js';
import { runCli } from '../helpers/cli.js';
import { connectFresh } from '../helpers/databases.js';
import { NATS_URL, TRUST, agentsListening, natsOrSkip, startAgent, uniquePrefix } from './helpers.js';

/**
 * -C with --agents: each agent's terminals open a new connection for every transaction, as a run
 * of one process does, and the result's average connection time is theirs (it was recorded as -C
 * while the agents kept their connections, and gave 0).
 */
test('postgres: -C with agents opens a connection per transaction on each agent, and the result gives their connection time', async (t) => {
  if (!(await natsOrSkip(t))) return;
  const fresh = await connectFresh(t, 'postgres');
  if (!fresh) return;
  const { db, conn } = fresh;
  const work = mkdtempSync(path.join(tmpdir(), 'headroom-agent-connect-'));
  t.after(() => rmSync(work, { recursive: true, force: true }));
  const init = await runCli(['init', 'tpcb', '-s', '1', '--db', db.url], { cwd: work });
  assert.equal(init.code, 0, init.stderr);
  const prefix = uniquePrefix();
  const agents = ['a0', 'a1'].map((name) => startAgent(t, prefix, name, ['--once']));
  for (const agent of agents) t.after(() => rmSync(agent.cwd, { recursive: true, force: true }));
  await agentsListening(agents);
  const sessionsSoFar = Number((await conn.query(`SELECT sessions FROM pg_stat_database WHERE datname = current_database()`))[0]![0]);
  const out = path.join(work, 'result.json');
  const args = ['run', 'tpcb', '-b', 'select-only', '-C', '-c', '2', '-t', '20', '--db', db.url, '--agents', '2'];
  const run = await runCli([...args, '--nats', NATS_URL, '--nats-subject', prefix, '--trust', TRUST, '--observe=false', '-P', '0', '-o', out], { cwd: work });
  assert.equal(run.code, 0, `${run.stderr}\n${agents.map((a) => a.stderr()).join('\n')}`);
  const result = JSON.parse(readFileSync(out, 'utf8')) as RunResult;
  assert.equal(result.config.connect, true);
  assert.equal(result.summary.transactions, 40);
  // The server saw a session per transaction (and a few more: the agents' and the coordinator's checks).
  const before = sessionsSoFar;
  const sessions = Number((await conn.query(`SELECT sessions FROM pg_stat_database WHERE datname = current_database()`))[0]![0]) - before;
  assert.ok(sessions >= 40, `the server counted ${sessions} new sessions for 40 transactions under -C`);
  assert.ok((result.summary.pgbench?.averageConnectionMs ?? 0) > 0, JSON.stringify(result.summary.pgbench));
});
