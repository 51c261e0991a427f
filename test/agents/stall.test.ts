import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RunResult } from '../../src/result/result.js';
import { runCli } from '../helpers/cli.js';
import { startThrowawayPostgres, throwawayPostgresUnavailable } from '../helpers/throwaway-postgres.js';
import { skipOrFail } from '../helpers/skip-or-fail.js';
import { NATS_URL, TRUST, agentsListening, natsOrSkip, startAgent, uniquePrefix } from './helpers.js';

/**
 * A server that stops answering an agents' run shows as it does in a run of one process: the
 * terminals still in a transaction at the end are in the coordinator's result (`stuck`, the time
 * each waited), and the run fails saying so. A server of the test's own takes the stall.
 */
test("postgres: a server that stops answering an agent's terminals fails the coordinator's run, which lists them as stuck", async (t) => {
  if (!(await natsOrSkip(t))) return;
  if (skipOrFail(t, throwawayPostgresUnavailable())) return;
  const cluster = await startThrowawayPostgres(['host all all 127.0.0.1/32 trust'], []);
  const url = `postgres://postgres@127.0.0.1:${cluster.port}/postgres`;
  const work = mkdtempSync(path.join(tmpdir(), 'headroom-agent-stall-'));
  t.after(async () => {
    cluster.stop();
    rmSync(work, { recursive: true, force: true });
  });
  const init = await runCli(['init', 'tpcb', '--db', url], { cwd: work });
  assert.equal(init.code, 0, init.stderr);

  const prefix = uniquePrefix();
  const agent = startAgent(t, prefix, 'a0', ['--once']);
  t.after(() => rmSync(agent.cwd, { recursive: true, force: true }));
  await agentsListening([agent]);
  const out = path.join(work, 'stalled.json');
  let frozen = false;
  const args = ['run', 'tpcb', '-c', '2', '-T', '6', '--db', url, '--agents', '1', '--nats', NATS_URL, '--nats-subject', prefix, '--trust', TRUST];
  const run = await runCli([...args, '--observe=false', '--live=false', '-o', out], {
    cwd: work,
    // Frozen 2 s into a 6 s run, until the run is over: the server answers nothing more.
    whenStderr: [/progress: 2\.0 s/, () => ((frozen = true), cluster.freeze())],
  });
  cluster.thaw();
  assert.ok(frozen, `the server was never frozen: ${run.stderr}`);
  assert.equal(run.code, 1, `${run.stderr}\nthe agent's log:\n${agent.stderr()}`);
  assert.ok(existsSync(out), `no result file: ${run.stderr}`);
  const result = JSON.parse(readFileSync(out, 'utf8')) as RunResult;
  assert.equal(result.status, 'failed');
  assert.match(result.statusReason ?? '', /2 of 2 terminal\(s\) still in a transaction/);
  assert.equal(result.stuck?.length, 2, JSON.stringify(result.stuck));
  for (const stuck of result.stuck ?? []) assert.ok(stuck.waitedMs >= 3_000, `terminal ${stuck.terminal} waited ${stuck.waitedMs} ms`);
  assert.equal(result.summary.unfinished, 2);
});
