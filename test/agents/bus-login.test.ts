import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { nkeys } from 'nats';
import { runCli } from '../helpers/cli.js';
import { skipOrFail } from '../helpers/skip-or-fail.js';
import { TRUST, waitFor } from './helpers.js';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * A throwaway nats-server that wants a login (a user and password, or an NKEY): the agent gets in
 * with what it is given, and without it is refused in one line (exit 2). The login options go to
 * the nats client as given.
 */
test('the bus login is passed through: a URL user and password, an NKEY seed file; none is one line, exit 2', async (t) => {
  if (skipOrFail(t, spawnSync('nats-server', ['--version']).status === 0 ? undefined : 'nats-server is not installed: apt-get install nats-server')) return;
  const folder = mkdtempSync(path.join(tmpdir(), 'headroom-nats-'));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  const user = nkeys.createUser();
  const seedFile = path.join(folder, 'agent.nk');
  writeFileSync(seedFile, `${new TextDecoder().decode(user.getSeed())}\n`, { mode: 0o600 });
  const port = await freePort();
  const config = path.join(folder, 'nats.conf');
  writeFileSync(config, `listen: 127.0.0.1:${port}\nauthorization { users = [ { user: bench, password: s3cret }, { nkey: ${user.getPublicKey()} } ] }\n`);
  const server = spawn('nats-server', ['-c', config], { stdio: 'ignore' });
  t.after(() => server.kill('SIGKILL'));
  await waitFor(
    'nats-server listening',
    async () => (await runCli(['agent', '--nats', `nats://127.0.0.1:${port}`, '--trust', TRUST])).stderr.includes('not authorised'),
    10_000,
  );

  const refused = await runCli(['agent', '--nats', `nats://127.0.0.1:${port}`, '--trust', TRUST]);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /cannot reach the NATS server at nats:\/\/127\.0\.0\.1:\d+: not authorised/);
  const wrong = await runCli(['agent', '--nats', `nats://bench:wrong@127.0.0.1:${port}`, '--trust', TRUST]);
  assert.equal(wrong.code, 2);
  assert.doesNotMatch(wrong.stderr, /wrong/, 'the password is not printed');

  for (const login of [
    ['--nats', `nats://bench:s3cret@127.0.0.1:${port}`],
    ['--nats', `nats://127.0.0.1:${port}`, '--nats-nkey', seedFile],
  ]) {
    const agent = spawn(process.execPath, [(await import('../helpers/cli.js')).CLI, 'agent', ...login, '--trust', TRUST, '--name', 'login'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    t.after(() => agent.kill('SIGKILL'));
    let stderr = '';
    agent.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await waitFor(`agent connected with ${login.join(' ')}`, () => stderr.includes('waiting for plans'), 10_000);
    agent.kill('SIGTERM');
    assert.equal(await new Promise((resolve) => agent.on('exit', resolve)), 130);
  }
});
