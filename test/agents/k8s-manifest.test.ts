import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { parse } from 'yaml';
import { runCli } from '../helpers/cli.js';

/**
 * The printed manifest, parsed as kubectl would read it, is a batch/v1 Job that passes the
 * Kubernetes API's own OpenAPI schema (kubernetes-models validates against it), and is the
 * Indexed Job of K agents it claims to be.
 */
test('headroom k8s manifest prints an Indexed Job of K agents that validates against the Kubernetes API schema', async () => {
  const run = await runCli([
    'k8s',
    'manifest',
    '--agents',
    '4',
    '--nats',
    'nats://nats.bench.svc:4222',
    '--image',
    'registry.example/headroom:0.1',
    '--db-secret',
    'pg-login',
    '--namespace',
    'bench',
    '--nats-subject',
    'team_a',
  ]);
  assert.equal(run.code, 0, run.stderr);
  const manifest = parse(run.stdout) as Record<string, unknown>;
  const job = new Job(manifest as ConstructorParameters<typeof Job>[0]);
  job.validate();
  assert.equal(job.spec?.completionMode, 'Indexed');
  assert.equal(job.spec?.completions, 4);
  assert.equal(job.spec?.parallelism, 4);
  assert.equal(job.metadata?.namespace, 'bench');
  const container = job.spec!.template.spec!.containers[0]!;
  assert.equal(container.image, 'registry.example/headroom:0.1');
  assert.deepEqual(container.args, ['--nats', 'nats://nats.bench.svc:4222', '--nats-subject', 'team_a', '--name', '$(POD_NAME)', '--once']);
  // No secret in the manifest itself: the shared secret and the database login come from Secrets.
  assert.deepEqual(container.env?.find((e) => e.name === 'HEADROOM_TRUST')?.valueFrom?.secretKeyRef, { name: 'headroom-trust', key: 'secret' });
  assert.deepEqual(container.envFrom, [{ secretRef: { name: 'pg-login' } }]);
});

// The schema admits unknown fields (as the API server's non-strict decoding does), so these are the failures it can catch.
test('the schema check can fail: a wrong type, a missing required field and a value outside an enum are refused', () => {
  const job = (spec: unknown): Job =>
    new Job({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'x' }, spec } as unknown as ConstructorParameters<typeof Job>[0]);
  assert.throws(() => job({ completions: 'three', template: { spec: { containers: [{ name: 'a' }] } } }).validate(), /completions must be integer/);
  assert.throws(() => job({ template: { spec: { containers: [{ image: 'a' }] } } }).validate(), /required property name/);
  assert.throws(() => job({ template: { spec: { restartPolicy: 'Sometimes', containers: [{ name: 'a' }] } } }).validate(), /allowed values/);
  job({ template: { spec: { containers: [{ name: 'a' }] } } }).validate();
});

test('headroom k8s manifest without --agents, --nats or --image is one line, exit code 2', async () => {
  const run = await runCli(['k8s', 'manifest', '--agents', '2']);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /needs --agents K, --nats URL and --image IMAGE/);
});
