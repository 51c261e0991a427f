import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { Signer } from '../../src/agents/signing.js';
import { runCli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';
import { NATS_URL, TRUST, agentsListening, natsOrSkip, startAgent, uniquePrefix, waitFor } from './helpers.js';

/** A plan as a coordinator would send it; nothing answers its claims, so a fooled agent only asks. */
function planBody(runId: string): Record<string, unknown> {
  return {
    kind: 'plan',
    runId,
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
  assert.ok(seen.length >= 2, 'the plan went out every second');
  const plan = new Signer(TRUST).open<{ kind: string; target: { password?: string; user: string } }>(Buffer.from(seen[0]!));
  assert.equal(plan.kind, 'plan');
  assert.equal(plan.target.user, 'postgres');
  assert.equal(plan.target.password, undefined);
  for (const message of seen) assert.ok(!message.includes(password), 'no message holds the password');
});

/** A file the plan names (a -f script) must be on the agent's disk with the plan's sha256; nothing to run comes over the bus. */
test('an agent refuses a genuine plan whose script file is missing or differs on its disk', async (t) => {
  if (!(await natsOrSkip(t))) return;
  const prefix = uniquePrefix();
  const agent = startAgent(t, prefix, 'files');
  await agentsListening([agent]);
  const script = path.join(agent.cwd, 'mine.sql');
  writeFileSync(script, 'SELECT 1;\n');
  const nc: NatsConnection = await connect({ servers: NATS_URL });
  t.after(() => nc.close());
  const claims: string[] = [];
  nc.subscribe(`${prefix}.run.*.claim`, { callback: (_e, m) => claims.push(m.subject.split('.')[2]!) });
  const signer = new Signer(TRUST);
  nc.publish(
    `${prefix}.plans`,
    signer.seal({ ...planBody('differs'), files: [{ path: script, sha256: createHash('sha256').update('SELECT 2;\n').digest('hex') }] }),
  );
  nc.publish(`${prefix}.plans`, signer.seal({ ...planBody('missing'), files: [{ path: path.join(agent.cwd, 'absent.sql'), sha256: '00' }] }));
  await waitFor(
    'both refused',
    () =>
      /refused plan differs: .*mine\.sql differs/.test(agent.stderr()) &&
      /refused plan missing: .*absent\.sql is not on this agent's disk/.test(agent.stderr()),
    10_000,
  );
  nc.publish(
    `${prefix}.plans`,
    signer.seal({ ...planBody('same'), files: [{ path: script, sha256: createHash('sha256').update('SELECT 1;\n').digest('hex') }] }),
  );
  await waitFor('the matching plan claimed', () => claims.includes('same'), 10_000);
  assert.deepEqual(claims, ['same']);
});
