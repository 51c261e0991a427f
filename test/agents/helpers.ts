import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import type { NatsConnection } from 'nats';
import { CLI } from '../helpers/cli.js';
import { skipOrFail } from '../helpers/skip-or-fail.js';

export const NATS_URL = process.env['HEADROOM_TEST_NATS'] ?? 'nats://127.0.0.1:4222';
export const TRUST = 'test-secret-0123456789abcdef';

/** NATS at NATS_URL answers, or the test fails under CI=true (is skipped elsewhere) saying how to start it. */
export async function natsOrSkip(t: TestContext): Promise<boolean> {
  const url = new URL(NATS_URL);
  const reachable = await new Promise<boolean>((resolve) => {
    const socket = connect(Number(url.port || 4222), url.hostname);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
  return !skipOrFail(t, reachable ? undefined : `NATS is not reachable at ${NATS_URL}: start it with nats-server -js (or set HEADROOM_TEST_NATS)`);
}

/** A subject prefix of its own per test, so tests running at once never see each other's plans. */
export function uniquePrefix(): string {
  return `headroom_test_${randomBytes(4).toString('hex')}`;
}

export interface AgentProcess {
  child: ChildProcess;
  name: string;
  cwd: string;
  stderr(): string;
  exited: Promise<number | null>;
}

/** `headroom agent` as a separate process, in a folder of its own (its -l files land there); killed after the test. */
export function startAgent(t: TestContext, prefix: string, name: string, extra: string[] = [], env: NodeJS.ProcessEnv = {}): AgentProcess {
  const cwd = mkdtempSync(path.join(tmpdir(), 'headroom-agent-'));
  const child = spawn(process.execPath, [CLI, 'agent', '--nats', NATS_URL, '--nats-subject', prefix, '--name', name, ...extra], {
    cwd,
    env: { ...process.env, DATABASE_URL: undefined, HEADROOM_TRUST: TRUST, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return { child, name, cwd, stderr: () => stderr, exited };
}

/** Resolves once `check` holds, polling; rejects after `ms` saying what was awaited. */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, ms: number): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return Date.now() - started;
}

/** Waits until every agent says it is listening, so the coordinator's first plan reaches them all. */
export async function agentsListening(agents: readonly AgentProcess[]): Promise<void> {
  await waitFor('agents listening', () => agents.every((a) => a.stderr().includes('waiting for plans')), 15_000);
}

/** Where an agent takes plans, and the instance (this process of it) a plan must be addressed to, as its first line says. */
export function planAddress(agent: AgentProcess): { subject: string; instance: string | undefined } {
  const subject = /waiting for plans on (\S+)/.exec(agent.stderr())?.[1];
  assert.ok(subject, `the agent names where it takes plans: ${agent.stderr()}`);
  return { subject, instance: /instance ([0-9a-f]+)/.exec(agent.stderr())?.[1] };
}

/** A plan as a coordinator would send it to `instance`; nothing answers its claims, so a fooled agent only asks. */
export function planBody(runId: string, instance: string | undefined): Record<string, unknown> {
  return {
    kind: 'plan',
    runId,
    instance,
    coordinator: 'test',
    agents: 1,
    target: { dbms: 'sqlite', file: '/tmp/headroom-never.db' },
    workload: 'tpcb',
    options: {},
    files: [],
    scale: 1,
    clients: 1,
    jobs: 1,
    durationSeconds: 1,
    warmupSeconds: 0,
    maxTries: 1,
    seed: 1,
    protocol: 'prepared',
    perCommand: false,
    acceptRefusals: false,
    sessionStatements: [],
  };
}

/** The run ids of the plans an agent claimed a shard of, as they go by on the bus. */
export function claimsOn(nc: NatsConnection, prefix: string): string[] {
  const claims: string[] = [];
  nc.subscribe(`${prefix}.run.*.claim`, { callback: (_e, m) => claims.push(m.subject.split('.')[2]!) });
  return claims;
}
