import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect } from 'nats';
import type { RunResult } from '../../src/result/result.js';
import { CLI, runCli } from '../helpers/cli.js';
import { assertNothingSecret, halfEncoded, loginWithPassword, makeSecret } from '../helpers/secrets.js';
import { skipOrFail } from '../helpers/skip-or-fail.js';
import { freePort } from '../helpers/throwaway-postgres.js';
import { uniquePrefix, waitFor } from './helpers.js';

/**
 * A distributed run carries no secret anywhere: the plan on the bus holds neither the database
 * password nor the bus login nor the shared secret; the coordinator's and the agent's output,
 * the result, the report, the agent's -l log and the state folders hold none of them either. The
 * bus login is a password with "@", ":", "/" and "%", in the URL with its "@" and ":" unencoded,
 * on a nats-server of the test's own that checks it.
 */
test('a distributed run: no database password, bus password or shared secret in the plan, the outputs, the result or the logs', async (t) => {
  if (skipOrFail(t, spawnSync('nats-server', ['--version']).status === 0 ? undefined : 'nats-server is not installed: apt-get install nats-server')) return;
  const database = makeSecret();
  const bus = makeSecret();
  const trust = `trust-${randomBytes(16).toString('hex')}`;
  const login = await loginWithPassword(t, 'postgres', database.password);
  if (!login) return;
  const { target, user } = login;
  const folder = (prefix: string): string => {
    const made = mkdtempSync(path.join(tmpdir(), prefix));
    t.after(() => rmSync(made, { recursive: true, force: true }));
    return made;
  };
  const natsFolder = folder('headroom-secret-nats-');
  const work = folder('headroom-secret-coordinator-');
  const agentWork = folder('headroom-secret-agent-');
  const state = folder('headroom-secret-state-');
  const port = await freePort();
  const config = path.join(natsFolder, 'nats.conf');
  writeFileSync(config, `listen: 127.0.0.1:${port}\nauthorization { users = [ { user: bench, password: "${bus.password}" } ] }\n`);
  const server = spawn('nats-server', ['-c', config], { stdio: 'ignore' });
  t.after(() => server.kill('SIGKILL'));
  const natsUrl = `nats://bench:${halfEncoded(bus.password)}@127.0.0.1:${port}`;
  const prefix = uniquePrefix();
  const env = { ...process.env, DATABASE_URL: undefined, HEADROOM_TRUST: undefined, PGPASSWORD: database.password, HEADROOM_STATE_DIR: state };

  // What travels on the bus, as a subscriber with the login sees it.
  let watcher: Awaited<ReturnType<typeof connect>> | undefined;
  await waitFor(
    'nats-server listening',
    async () => {
      watcher = await connect({ servers: `127.0.0.1:${port}`, user: 'bench', pass: bus.password }).catch(() => undefined);
      return watcher !== undefined;
    },
    10_000,
  );
  t.after(() => watcher?.close());
  const onBus: string[] = [];
  watcher!.subscribe(`${prefix}.>`, { callback: (_error, message) => onBus.push(new TextDecoder().decode(message.data)) });

  const refused = await runCli(['agent', '--nats', `nats://bench:${halfEncoded(bus.password)}x@127.0.0.1:${port}`, '--trust', trust], { env });
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /not authorised/);

  const agent = spawn(process.execPath, [CLI, 'agent', '--nats', natsUrl, '--nats-subject', prefix, '--name', 'a0', '--once'], {
    cwd: agentWork,
    env: { ...env, HEADROOM_TRUST: trust },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.after(() => agent.kill('SIGKILL'));
  let agentOut = '';
  agent.stdout.on('data', (chunk: Buffer) => (agentOut += chunk.toString()));
  agent.stderr.on('data', (chunk: Buffer) => (agentOut += chunk.toString()));
  const agentExit = new Promise((resolve) => agent.on('exit', resolve));
  await waitFor('agent listening', () => agentOut.includes('waiting for plans'), 15_000);

  const dbUrl = `postgres://${user}@${target.host}:${target.port}/${target.database}`;
  const args = ['run', 'tpcb', '--db', dbUrl, '-c', '2', '-T', '1', '-l', '--agents', '1', '--nats', natsUrl, '--nats-subject', prefix, '--trust', trust];
  const run = await runCli([...args, '-o', 'result.json', '--observe=false'], { cwd: work, env });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(await agentExit, 0, agentOut);
  const result = JSON.parse(readFileSync(path.join(work, 'result.json'), 'utf8')) as RunResult;
  assert.equal(result.agents?.count, 1);
  const report = await runCli(['report', 'result.json', '-o', 'report.html', '--markdown'], { cwd: work, env });
  assert.equal(report.code, 0, report.stderr);
  const kinds = onBus.map((message) => (JSON.parse((JSON.parse(message) as { body: string }).body) as { kind: string }).kind);
  assert.ok(kinds.includes('plan'), `the plan was seen on the bus (${kinds.join(', ')})`);

  assertNothingSecret(
    [...database.forms, ...bus.forms, trust],
    [
      ['refused agent', refused.stdout + refused.stderr],
      ['agent', agentOut],
      ['coordinator', run.stdout + run.stderr],
      ['report', report.stdout + report.stderr],
      ['bus', onBus.join('\n')],
    ],
    [work, agentWork, state],
    3,
  );
  // The command line stays readable: the bus's user and address, the shared secret hidden.
  assert.ok(result.config.argv.includes(`nats://bench:***@127.0.0.1:${port}`), result.config.argv.join(' '));
  assert.equal(result.config.argv[result.config.argv.indexOf('--trust') + 1], '***');
});
