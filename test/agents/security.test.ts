import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type NatsConnection } from 'nats';
import { Signer } from '../../src/agents/signing.js';
import { NATS_URL, TRUST, agentsListening, natsOrSkip, startAgent, uniquePrefix, waitFor } from './helpers.js';

/** A plan as a coordinator would send it; nothing answers its claims, so a fooled agent only asks. */
function planBody(runId: string): Record<string, unknown> {
  return {
    kind: 'plan', runId, coordinator: 'test', agents: 1, target: { dbms: 'sqlite', file: '/tmp/headroom-never.db' }, workload: 'tpcb', options: {}, files: [],
    scale: 1, clients: 1, jobs: 1, durationSeconds: 1, warmupSeconds: 0, maxTries: 1, seed: 1, protocol: 'prepared', perCommand: false, acceptRefusals: false, sessionStatements: [],
  };
}

test('an agent refuses and logs unsigned, tampered, wrongly signed, stale and replayed plans, and claims only a genuine one', async (t) => {
  if (!(await natsOrSkip(t))) return;
  const prefix = uniquePrefix();
  const agent = startAgent(t, prefix, 'guard');
  await agentsListening([agent]);
  const nc: NatsConnection = await connect({ servers: NATS_URL });
  t.after(() => nc.close());
  const claims: string[] = [];
  nc.subscribe(`${prefix}.run.*.claim`, { callback: (_e, m) => claims.push(m.subject.split('.')[2]!) });
  const plans = `${prefix}.plans`;
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
