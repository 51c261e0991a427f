import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { runCli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';
import { NATS_URL, TRUST, agentsListening, claimsOn, natsOrSkip, planAddress, startAgent, uniquePrefix, waitFor } from './helpers.js';

/**
 * A nonce is remembered only by the process that saw it: a genuine plan captured on the bus from a
 * real run, then sent again (well within the 60 s window) to the same agent started anew, must be
 * refused all the same, in one line of the agent's log saying why, and never claimed.
 */
test('a genuine plan captured from a run and replayed to the restarted agent is refused in one line, and not claimed', async (t) => {
  if (!(await natsOrSkip(t))) return;
  const db = await freshDatabase(t, 'sqlite');
  if (!db) return;
  t.after(() => db.dispose());
  const prefix = uniquePrefix();
  const first = startAgent(t, prefix, 'restarted');
  t.after(() => rmSync(first.cwd, { recursive: true, force: true }));
  await agentsListening([first]);
  const nc: NatsConnection = await connect({ servers: NATS_URL });
  t.after(() => nc.close());
  const captured: Uint8Array[] = [];
  const capture = nc.subscribe(`${prefix}.>`, {
    callback: (_e, m) => {
      const body = JSON.parse((JSON.parse(Buffer.from(m.data).toString()) as { body: string }).body) as { kind?: string };
      if (body.kind === 'plan') captured.push(Uint8Array.from(m.data));
    },
  });
  await nc.flush();
  const cwd = mkdtempSync(path.join(tmpdir(), 'headroom-coordinator-'));
  t.after(() => rmSync(cwd, { recursive: true, force: true }));
  const args = ['run', 'tpcb', '-b', 'select-only', '--db', db.url, '-c', '1', '-T', '1', '--agents', '1', '--observe=false'];
  const run = await runCli([...args, '--nats', NATS_URL, '--nats-subject', prefix, '--trust', TRUST], { cwd });
  assert.equal(run.code, 0, run.stderr);
  assert.ok(captured.length > 0, 'the plan was seen on the bus');
  capture.unsubscribe();

  first.child.kill('SIGKILL');
  await first.exited;
  const again = startAgent(t, prefix, 'restarted');
  t.after(() => rmSync(again.cwd, { recursive: true, force: true }));
  await agentsListening([again]);
  const claims = claimsOn(nc, prefix);
  await nc.flush();
  // Sent where the restarted agent takes plans: whoever can publish on the bus can do as much.
  for (const plan of captured) nc.publish(planAddress(again).subject, plan);
  await waitFor('the replay refused', () => /refused a plan/.test(again.stderr()), 10_000).catch((error: Error) =>
    assert.fail(`${error.message}; runs claimed: ${claims.join(', ')}; the restarted agent's log:\n${again.stderr()}`),
  );
  const refusals = (): string[] => again.stderr().match(/^.*refused a plan.*$/gm) ?? [];
  await waitFor('every copy refused', () => refusals().length === captured.length, 10_000);
  assert.match(
    refusals()[0]!,
    /refused a plan: addressed to instance [0-9a-f]+, not to this agent's \(instance [0-9a-f]+, started [^)]+\): sent before this agent started, to an earlier run of it \(a replay\)$/,
  );
  // An agent that took the plan asks for its shard at once; a second is ample to see none asked.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  assert.deepEqual(claims, []);
});
