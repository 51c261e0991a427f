import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RunResult } from '../../src/result/result.js';
import type { SweepResult } from '../../src/result/sweep.js';
import { runCli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';
import { NATS_URL, TRUST, agentsListening, natsOrSkip, startAgent, uniquePrefix, type AgentProcess } from './helpers.js';

/** Every "run ID: completed, N transactions" line an agent printed, in order. */
function agentCounts(agent: AgentProcess): number[] {
  return [...agent.stderr().matchAll(/completed, (\d+) transactions/g)].map((m) => Number(m[1]));
}

/** A step's agents section: both agents, the step's terminals dealt once, the step's count theirs. */
function assertAgentsOf(step: RunResult, clients: number): void {
  const record = step.agents;
  assert.ok(record, `step of ${clients} clients has no agents section`);
  assert.equal(record.count, 2);
  const dealt = record.members.map((m) => m.terminals).sort((a, b) => a.first - b.first);
  assert.equal(dealt[0]!.first, 0);
  assert.equal(dealt[1]!.first, dealt[0]!.count);
  assert.equal(dealt[0]!.count + dealt[1]!.count, clients);
  assert.ok(step.summary.transactions > 0);
  assert.equal(
    step.summary.transactions,
    record.members.reduce((n, m) => n + m.transactions, 0),
  );
}

const bus = (prefix: string): string[] => ['--agents', '2', '--nats', NATS_URL, '--nats-subject', prefix, '--trust', TRUST];

test('postgres: a sweep -c 2,4 over 2 agents records each step sharded across both, and the counts add up', async (t) => {
  if (!(await natsOrSkip(t))) return;
  const db = await freshDatabase(t, 'postgres');
  if (!db) return;
  t.after(() => db.dispose());
  const prefix = uniquePrefix();
  const agents = ['s0', 's1'].map((name) => startAgent(t, prefix, name));
  await agentsListening(agents);
  const out = mkdtempSync(path.join(tmpdir(), 'headroom-sweep-'));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  const file = path.join(out, 'sweep.json');
  const run = await runCli(['run', 'tpcb', '-b', 'select-only', '--db', db.url, '-c', '2,4', '-T', '1', ...bus(prefix), '-o', file, '--observe=false'], {
    cwd: out,
  });
  assert.equal(run.code, 0, run.stderr);
  const sweep = JSON.parse(readFileSync(file, 'utf8')) as SweepResult;
  assert.equal(sweep.status, 'completed');
  assert.deepEqual(
    sweep.steps.map((s) => s.config.clients),
    [2, 4],
  );
  for (const step of sweep.steps) assertAgentsOf(step, step.config.clients);
  // Each agent served both steps; what they counted in their own processes is what the steps hold.
  const own = agents.map(agentCounts);
  assert.deepEqual(
    own.map((counts) => counts.length),
    [2, 2],
    agents.map((a) => a.stderr()).join('\n'),
  );
  const sum = (ns: number[]): number => ns.reduce((a, b) => a + b, 0);
  assert.equal(sum(own.flat()), sum(sweep.steps.map((s) => s.summary.transactions)));
});

test('postgres: experiment growth with 2 agents records the agents in every step it measured', async (t) => {
  if (!(await natsOrSkip(t))) return;
  const db = await freshDatabase(t, 'postgres');
  if (!db) return;
  t.after(() => db.dispose());
  const prefix = uniquePrefix();
  const agents = ['g0', 'g1'].map((name) => startAgent(t, prefix, name));
  await agentsListening(agents);
  const out = mkdtempSync(path.join(tmpdir(), 'headroom-growth-'));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  const file = path.join(out, 'growth.json');
  const run = await runCli(
    [
      'experiment',
      'growth',
      '--workload',
      'tpcb',
      '-b',
      'select-only',
      '-s',
      '1,2',
      '-c',
      '3',
      '-T',
      '1',
      '--db',
      db.url,
      ...bus(prefix),
      '-o',
      file,
      '--observe=false',
    ],
    { cwd: out },
  );
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(readFileSync(file, 'utf8')) as { status: string; runs: RunResult[]; rows: { tps: number }[] };
  assert.equal(result.status, 'completed');
  assert.equal(result.runs.length, 2);
  for (const step of result.runs) assertAgentsOf(step, 3);
  const own = agents.map(agentCounts);
  assert.deepEqual(
    own.map((counts) => counts.length),
    [2, 2],
    agents.map((a) => a.stderr()).join('\n'),
  );
  assert.equal(
    own.flat().reduce((a, b) => a + b, 0),
    result.runs.reduce((n, r) => n + r.summary.transactions, 0),
  );
});

for (const name of ['peak', 'chain-study']) {
  test(`experiment ${name} refuses --agents in one line, exit 2, before it connects anywhere`, async () => {
    const run = await runCli(['experiment', name, '--agents', '2', '--nats', NATS_URL, '--trust', TRUST, '--db', 'postgres://postgres@127.0.0.1:1/none']);
    assert.equal(run.code, 2, run.stderr);
    const lines = run.stderr.trim().split('\n');
    assert.match(lines[0]!, new RegExp(`experiment ${name} does not take --agents: \\S`));
    assert.doesNotMatch(run.stderr, /\n\s+at /);
  });
}
