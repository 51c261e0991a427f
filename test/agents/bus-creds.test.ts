import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { nkeys } from 'nats';

type KeyPair = ReturnType<typeof nkeys.createUser>;
import type { RunResult } from '../../src/result/result.js';
import { CLI, runCli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';
import { skipOrFail } from '../helpers/skip-or-fail.js';
import { TRUST, uniquePrefix, waitFor } from './helpers.js';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** RFC 4648 base32 without padding, as NATS JWTs write their jti. */
function base32(bytes: Uint8Array): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = ((value << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return bits > 0 ? out + alphabet[(value << (5 - bits)) & 31] : out;
}

/** A NATS JWT (version 2 claims) for `subject`, signed by `issuer`'s NKEY: what nsc would write. */
function natsJwt(issuer: KeyPair, subject: string, name: string, nats: Record<string, unknown>): string {
  const claims: Record<string, unknown> = { iat: Math.floor(Date.now() / 1000), iss: issuer.getPublicKey(), name, sub: subject, nats: { ...nats, version: 2 } };
  claims['jti'] = base32(createHash('sha256').update(JSON.stringify(claims)).digest());
  const body = `${Buffer.from(JSON.stringify({ typ: 'JWT', alg: 'ed25519-nkey' })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${body}.${Buffer.from(issuer.sign(Buffer.from(body))).toString('base64url')}`;
}

/** A user's credentials file (its JWT and NKEY seed) as nsc writes it. */
function credsFile(file: string, account: KeyPair, user: KeyPair): string {
  const jwt = natsJwt(account, user.getPublicKey(), 'headroom-agent', { type: 'user', pub: {}, sub: {}, subs: -1, data: -1, payload: -1 });
  const seed = new TextDecoder().decode(user.getSeed());
  writeFileSync(
    file,
    `-----BEGIN NATS USER JWT-----\n${jwt}\n------END NATS USER JWT------\n\n-----BEGIN USER NKEY SEED-----\n${seed}\n------END USER NKEY SEED------\n`,
    { mode: 0o600 },
  );
  return file;
}

/**
 * A nats-server of the test's own in operator mode (an operator JWT, one account preloaded): a
 * coordinator and an agent given a user's credentials file (--nats-creds) run a short run through
 * it; credentials of a user whose account the server does not know are one line naming the URL
 * and the problem, exit 2.
 */
test('--nats-creds: a JWT and NKEY credentials file carries a run through an operator-mode server; foreign credentials are one line', async (t) => {
  if (skipOrFail(t, spawnSync('nats-server', ['--version']).status === 0 ? undefined : 'nats-server is not installed: apt-get install nats-server')) return;
  const db = await freshDatabase(t, 'postgres');
  if (!db) return;
  t.after(() => db.dispose());
  const folder = mkdtempSync(path.join(tmpdir(), 'headroom-nats-creds-'));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  const operator = nkeys.createOperator();
  const account = nkeys.createAccount();
  const limits = { subs: -1, data: -1, payload: -1, imports: -1, exports: -1, wildcards: true, conn: -1, leaf: -1 };
  writeFileSync(path.join(folder, 'operator.jwt'), natsJwt(operator, operator.getPublicKey(), 'headroom-test', { type: 'operator' }));
  const accountJwt = natsJwt(operator, account.getPublicKey(), 'bench', { type: 'account', limits });
  const creds = credsFile(path.join(folder, 'agent.creds'), account, nkeys.createUser());
  // Signed by an account the server was never told of.
  const foreign = credsFile(path.join(folder, 'foreign.creds'), nkeys.createAccount(), nkeys.createUser());

  const port = await freePort();
  const url = `nats://127.0.0.1:${port}`;
  const config = path.join(folder, 'nats.conf');
  writeFileSync(
    config,
    `listen: 127.0.0.1:${port}\noperator: "${path.join(folder, 'operator.jwt')}"\nresolver: MEMORY\nresolver_preload: { ${account.getPublicKey()}: "${accountJwt}" }\n`,
  );
  const nats = spawn('nats-server', ['-c', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let serverLog = '';
  nats.stderr.on('data', (chunk: Buffer) => (serverLog += chunk.toString()));
  t.after(() => nats.kill('SIGKILL'));
  await waitFor('nats-server listening', () => serverLog.includes('Server is ready'), 10_000);

  const refused = await runCli(['agent', '--nats', url, '--nats-creds', foreign, '--trust', TRUST], { cwd: folder });
  assert.equal(refused.code, 2, refused.stderr);
  assert.equal(refused.stderr.trim().split('\n').length, 1, refused.stderr);
  assert.match(refused.stderr, new RegExp(`^headroom: cannot reach the NATS server at ${url}: not authorised \\(`));
  const unreadable = await runCli(['agent', '--nats', url, '--nats-creds', path.join(folder, 'missing.creds'), '--trust', TRUST], { cwd: folder });
  assert.equal(unreadable.code, 2);
  assert.match(unreadable.stderr, /^headroom: cannot read --nats-creds .*missing\.creds: ENOENT/);

  const prefix = uniquePrefix();
  const agent = spawn(process.execPath, [CLI, 'agent', '--nats', url, '--nats-creds', creds, '--nats-subject', prefix, '--name', 'creds-agent', '--once'], {
    cwd: folder,
    env: { ...process.env, DATABASE_URL: undefined, HEADROOM_TRUST: TRUST },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let agentLog = '';
  agent.stderr.on('data', (chunk: Buffer) => (agentLog += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => agent.on('exit', (code) => resolve(code)));
  t.after(() => agent.kill('SIGKILL'));
  await waitFor('the agent listening', () => agentLog.includes('waiting for plans'), 15_000);
  const file = path.join(folder, 'result.json');
  const run = await runCli(
    [
      'run',
      'tpcb',
      '-b',
      'select-only',
      '--db',
      db.url,
      '-c',
      '1',
      '-T',
      '1',
      '-P',
      '0',
      '--observe=false',
      '--agents',
      '1',
      '--nats',
      url,
      '--nats-creds',
      creds,
      '--nats-subject',
      prefix,
      '--trust',
      TRUST,
      '-o',
      file,
    ],
    { cwd: folder },
  );
  assert.equal(run.code, 0, run.stderr);
  assert.equal(await exited, 0, agentLog);
  const result = JSON.parse(readFileSync(file, 'utf8')) as RunResult;
  assert.equal(result.agents?.members[0]?.name, 'creds-agent');
  assert.ok(result.summary.transactions > 0);
});
