#!/usr/bin/env node
// The cost of coordination: one coordinator and three `headroom agent` processes (each one thread)
// against a single `headroom run -j 3`, the same total terminals, select-only on PostgreSQL,
// side by side (alternating, --rounds times). Prints TPS and client CPU per transaction of each,
// and their ratios. The agents' CPU is what they spent in the measured window (summary.clientCpu,
// as for -j 3); the coordinator's CPU over its whole run (result.agents.coordinatorCpuUs) is added
// to give the distributed run's full client cost. Not a test; keep it short on a shared machine.
//
//   node bench/agents.mjs --db postgres://postgres@127.0.0.1:5432/headroom_bench [--clients 6] [--time 5] [--rounds 2] [--nats nats://127.0.0.1:4222]
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { HEADROOM_CLI as CLI, headroom } from './lib/headroom-cli.mjs';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    clients: { type: 'string', default: '6' },
    time: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '2' },
    nats: { type: 'string', default: 'nats://127.0.0.1:4222' },
  },
});
if (!values.db) {
  console.error('usage: node bench/agents.mjs --db postgres://USER@HOST/DB [--clients 6] [--time 5] [--rounds 2] [--nats URL]');
  process.exit(2);
}
const trust = randomBytes(16).toString('hex');
const work = mkdtempSync(path.join(tmpdir(), 'headroom-agents-bench-'));
const common = ['tpcb', '-b', 'select-only', '--db', values.db, '-c', values.clients, '-T', values.time, '-P', '0', '--observe=false'];

function agent(prefix, name) {
  const child = spawn(process.execPath, [CLI, 'agent', '--nats', values.nats, '--nats-subject', prefix, '--name', name, '--once'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, DATABASE_URL: '', HEADROOM_TRUST: trust },
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const listening = new Promise((resolve, reject) => {
    child.stderr.on('data', () => stderr.includes('waiting for plans') && resolve());
    child.on('exit', (code) => reject(new Error(`agent ${name} exited ${code}: ${stderr}`)));
  });
  return { child, listening, exited: new Promise((resolve) => child.on('exit', resolve)) };
}

function local(round) {
  const out = path.join(work, `local-${round}.json`);
  headroom(['run', ...common, '-j', '3', '-o', out]);
  const r = JSON.parse(readFileSync(out, 'utf8'));
  return { tps: r.summary.tps, cpuPerTx: r.summary.clientCpu.usPerTransaction, tx: r.summary.transactions };
}

async function distributed(round) {
  const prefix = `headroom_bench_${randomBytes(4).toString('hex')}`;
  const agents = ['a0', 'a1', 'a2'].map((name) => agent(prefix, name));
  await Promise.all(agents.map((a) => a.listening));
  const out = path.join(work, `agents-${round}.json`);
  // Async: the bench's own event loop must stay free while the coordinator and agents run.
  const code = await new Promise((resolve) => {
    const run = spawn(process.execPath, [CLI, 'run', ...common, '-j', '1', '--agents', '3', '--nats', values.nats, '--nats-subject', prefix, '-o', out], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, DATABASE_URL: '', HEADROOM_TRUST: trust },
    });
    run.on('exit', resolve);
  });
  await Promise.all(agents.map((a) => a.exited));
  if (code !== 0) throw new Error(`the distributed run exited ${code}`);
  const r = JSON.parse(readFileSync(out, 'utf8'));
  const agentsUs = r.summary.clientCpu.userUs + r.summary.clientCpu.systemUs;
  const tx = r.summary.transactions + r.summary.failed;
  return {
    tps: r.summary.tps,
    cpuPerTx: r.summary.clientCpu.usPerTransaction,
    withCoordinator: (agentsUs + r.agents.coordinatorCpuUs) / tx,
    tx: r.summary.transactions,
    clockSpreadMs: r.agents.clockSpreadMs,
    startSpreadMs: r.agents.startSpreadMs,
  };
}

try {
  headroom(['init', 'tpcb', '--db', values.db, '-s', '1']);
  const rows = [];
  for (let round = 1; round <= Number(values.rounds); round++) {
    // Alternating order, so that neither side always runs on a warmer or quieter machine.
    const a = round % 2 === 1 ? local(round) : await distributed(round);
    const b = round % 2 === 1 ? await distributed(round) : local(round);
    const [l, d] = round % 2 === 1 ? [a, b] : [b, a];
    rows.push({ l, d });
    console.log(
      `round ${round}: -j 3: ${l.tps.toFixed(0)} tps, ${l.cpuPerTx} us/tx | 3 agents: ${d.tps.toFixed(0)} tps, ${d.cpuPerTx} us/tx in the agents, ` +
        `${d.withCoordinator.toFixed(1)} us/tx with the coordinator; clocks within ${d.clockSpreadMs} ms, started within ${d.startSpreadMs} ms`,
    );
  }
  const mean = (f) => rows.reduce((s, r) => s + f(r), 0) / rows.length;
  console.log(
    `agents / -j 3: tps ${mean((r) => r.d.tps / r.l.tps).toFixed(3)}, client cpu per transaction ${mean((r) => r.d.cpuPerTx / r.l.cpuPerTx).toFixed(3)} (agents), ${mean((r) => r.d.withCoordinator / r.l.cpuPerTx).toFixed(3)} (agents + coordinator)`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
