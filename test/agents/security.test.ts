import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { Signer } from '../../src/agents/signing.js';
import { runCli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';
import { NATS_URL, TRUST, agentsListening, claimsOn, natsOrSkip, planAddress, planBody as planTo, startAgent, uniquePrefix, waitFor } from './helpers.js';

test('an agent refuses and logs unsigned, tampered, wrongly signed, stale and replayed plans, and claims only a genuine one', async (t) => {
  if (!(await natsOrSkip(t))) return;
  const prefix = uniquePrefix();
  const agent = startAgent(t, prefix, 'guard');
  await agentsListening([agent]);
  const nc: NatsConnection = await connect({ servers: NATS_URL });
  t.after(() => nc.close());
  const claims = claimsOn(nc, prefix);
  const { subject: plans, instance } = planAddress(agent);
  const planBody = (runId: string): Record<string, unknown> => planTo(runId, instance);
  const genuine = new Signer(TRUST);
  const refusals = (): number => (agent.stderr().match(/refused a plan/g) ?? []).length;

  nc.publish(plans, Buffer.from(JSON.stringify(planBody('unsigned'))));
  const tampered = JSON.parse(Buffer.from(genuine.seal(planBody('tampered'))).toString()) as { body: string };
  tampered.body = tampered.body.replace('"clients":1', '"clients":1000');
  nc.publish(plans, Buffer.from(JSON.stringify(tampered)));
  nc.publish(plans, new Signer('another-secret-of-16+chars').seal(planBody('foreign')));
  nc.publish(plans, genuine.seal(planBody('stale'), Date.now() - 10 * 60_000));
  await waitFor('four refusals', () => refusals() === 4, 10_000);
  assert.match(agent.stderr(), /refused a plan: not a signed message/);
  assert.match(agent.stderr(), /refused a plan: bad signature/);
  assert.match(agent.stderr(), /refused a plan: stale or future message/);
  assert.equal(claims.length, 0, 'no refused plan was claimed');

  const real = genuine.seal(planBody('genuine'));
  nc.publish(plans, real);
  await waitFor('the genuine plan claimed', () => claims.includes('genuine'), 10_000);
  // Its claim goes unanswered (3 s); then the agent is idle again and hears the replay.
  await waitFor('the agent idle again', () => /no shard of run genuine/.test(agent.stderr()), 10_000);
  nc.publish(plans, real);
  await waitFor('the replay refused', () => /refused a plan: replayed message/.test(agent.stderr()), 10_000);
  assert.deepEqual(claims, ['genuine']);
});

/** The coordinator's database password stays on the coordinator: the plan on the bus has none, and too few agents is one line. */
test('postgres: a plan carries no database password, and a run that finds too few agents says so in one line (exit 2)', async (t) => {
  if (!(await natsOrSkip(t))) return;
  const db = await freshDatabase(t, 'postgres');
  if (!db) return;
  t.after(() => db.dispose());
  const prefix = uniquePrefix();
  const nc: NatsConnection = await connect({ servers: NATS_URL });
  t.after(() => nc.close());
  const seen: string[] = [];
  nc.subscribe(`${prefix}.>`, { callback: (_e, m) => seen.push(Buffer.from(m.data).toString()) });
  // Answers the calls as an idle agent would, so the plan comes addressed to it; it never claims a shard.
  const signer = new Signer(TRUST);
  nc.subscribe(`${prefix}.calls`, {
    callback: (_e, m) => {
      const call = signer.open<{ runId: string }>(m.data);
      nc.publish(`${prefix}.run.${call.runId}.hello`, signer.seal({ kind: 'hello', agent: 'listener', instance: 'feed' }));
    },
  });
  await nc.flush();
  const password = 'never-on-the-bus-4711';
  const url = db.url.replace('postgres://postgres@', `postgres://postgres:${password}@`);
  const run = await runCli([
    'run',
    'tpcb',
    '-b',
    'select-only',
    '--db',
    url,
    '-c',
    '2',
    '-T',
    '1',
    '--agents',
    '2',
    '--agent-wait',
    '3',
    '--nats',
    NATS_URL,
    '--nats-subject',
    prefix,
    '--trust',
    TRUST,
    '--observe=false',
  ]);
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /only 0 of 2 agent\(s\) claimed a shard \(0 ready\) within 3 s/);
  const plans = seen
    .map(
      (message) =>
        JSON.parse((JSON.parse(message) as { body: string }).body) as { kind: string; instance: string; target: { password?: string; user: string } },
    )
    .filter((body) => body.kind === 'plan');
  assert.ok(plans.length >= 2, `the plan went out after every call (${plans.length})`);
  const plan = plans[0]!;
  assert.equal(plan.instance, 'feed');
  assert.equal(plan.target.user, 'postgres');
  assert.equal(plan.target.password, undefined);
  for (const message of seen) assert.ok(!message.includes(password), 'no message holds the password');
});

/** A -f script must be listed in the plan and be on the agent's disk with the plan's sha256; nothing to run comes over the bus. */
test('an agent refuses a genuine plan whose script file is missing, differs on its disk, or is not listed', async (t) => {
  if (!(await natsOrSkip(t))) return;
  const prefix = uniquePrefix();
  const agent = startAgent(t, prefix, 'files');
  await agentsListening([agent]);
  const script = path.join(agent.cwd, 'mine.sql');
  writeFileSync(script, 'SELECT 1;\n');
  const nc: NatsConnection = await connect({ servers: NATS_URL });
  t.after(() => nc.close());
  const claims = claimsOn(nc, prefix);
  const { subject: plans, instance } = planAddress(agent);
  const planBody = (runId: string): Record<string, unknown> => planTo(runId, instance);
  const signer = new Signer(TRUST);
  nc.publish(plans, signer.seal({ ...planBody('differs'), files: [{ path: script, sha256: createHash('sha256').update('SELECT 2;\n').digest('hex') }] }));
  nc.publish(plans, signer.seal({ ...planBody('missing'), files: [{ path: path.join(agent.cwd, 'absent.sql'), sha256: '00' }] }));
  // The script the run reads (-f) but the plan does not list: nothing vouches for it.
  nc.publish(plans, signer.seal({ ...planBody('unlisted'), options: { file: [`${script}@2`] } }));
  await waitFor(
    'all three refused',
    () =>
      /refused plan differs: .*mine\.sql differs/.test(agent.stderr()) &&
      /refused plan missing: .*absent\.sql is not on this agent's disk/.test(agent.stderr()) &&
      /refused plan unlisted: the plan does not list .*mine\.sql, a -f script of the run/.test(agent.stderr()),
    10_000,
  );
  nc.publish(plans, signer.seal({ ...planBody('same'), files: [{ path: script, sha256: createHash('sha256').update('SELECT 1;\n').digest('hex') }] }));
  await waitFor('the matching plan claimed', () => claims.includes('same'), 10_000);
  assert.deepEqual(claims, ['same']);
});
