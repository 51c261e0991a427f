import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { nkeys } from 'nats';
import type { RunResult } from '../../src/result/result.js';
import { CLI, runCli, type CliRun } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';
import { skipOrFail } from '../helpers/skip-or-fail.js';
import { makeCertificates, opensslUnavailable } from '../helpers/tls-certificates.js';
import { TRUST, uniquePrefix, waitFor } from './helpers.js';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A server certificate for 127.0.0.1 alone, signed by the test CA in `folder` (ca.crt, ca.key). */
function ipOnlyCertificate(folder: string): { cert: string; key: string } {
  const openssl = (args: string[]): void => void execFileSync('openssl', args, { stdio: 'pipe', cwd: folder });
  openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', 'nats-server.key']);
  openssl(['req', '-new', '-key', 'nats-server.key', '-out', 'nats-server.csr', '-subj', '/CN=127.0.0.1']);
  writeFileSync(path.join(folder, 'nats-server.ext'), 'subjectAltName=IP:127.0.0.1\n');
  openssl([
    'x509',
    '-req',
    '-in',
    'nats-server.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'nats-server.crt',
    '-days',
    '2',
    '-extfile',
    'nats-server.ext',
  ]);
  return { cert: path.join(folder, 'nats-server.crt'), key: path.join(folder, 'nats-server.key') };
}

/** One line on stderr, exit 2, naming the NATS server's URL and the problem. */
function assertBusRefusal(run: CliRun, url: string, problem: RegExp): void {
  assert.equal(run.code, 2, `exit code; stderr: ${run.stderr}`);
  const lines = run.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line expected, got:\n${run.stderr}`);
  assert.ok(lines[0]!.startsWith(`headroom: cannot reach the NATS server at ${url}: `), lines[0]);
  assert.match(lines[0]!, problem);
}

/** `headroom agent` as a process of its own with these bus options, killed after the test. */
function startAgent(t: TestContext, args: string[]): { stderr(): string; exited: Promise<number | null> } {
  const cwd = mkdtempSync(path.join(tmpdir(), 'headroom-agent-'));
  const child = spawn(process.execPath, [CLI, 'agent', ...args], {
    cwd,
    env: { ...process.env, DATABASE_URL: undefined, HEADROOM_TRUST: TRUST },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(cwd, { recursive: true, force: true });
  });
  return { stderr: () => stderr, exited };
}

/**
 * A nats-server of the test's own on a free port that speaks only TLS (a certificate made by the
 * test for its address only, client certificates required) and lets in an NKEY user and a user with a password: a
 * coordinator and an agent given the CA, a client certificate and the NKEY seed run a short run
 * through it, and `report` and `compare` show the run's agents section. A wrong NKEY, a wrong
 * password, a CA that did not sign the server's certificate, no TLS options at all, and no client
 * certificate are each one line
 * naming the URL and the problem, exit 2.
 */
test('the bus over TLS with client certificates and an NKEY login carries a run; wrong credentials are one line naming the URL', async (t) => {
  if (skipOrFail(t, spawnSync('nats-server', ['--version']).status === 0 ? undefined : 'nats-server is not installed: apt-get install nats-server')) return;
  if (skipOrFail(t, opensslUnavailable())) return;
  const db = await freshDatabase(t, 'postgres');
  if (!db) return;
  t.after(() => db.dispose());
  const folder = mkdtempSync(path.join(tmpdir(), 'headroom-nats-tls-'));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  const certs = makeCertificates('headroom-agent');
  t.after(() => certs.remove());
  // The server's certificate names its address only (no "localhost"), as one for a NATS server at 10.0.0.5 would.
  const server = ipOnlyCertificate(certs.folder);
  const writeSeed = (name: string, seed: Uint8Array): string => {
    const file = path.join(folder, name);
    writeFileSync(file, `${new TextDecoder().decode(seed)}\n`, { mode: 0o600 });
    return file;
  };
  const user = nkeys.createUser();
  const seed = writeSeed('agent.nk', user.getSeed());
  const stranger = writeSeed('stranger.nk', nkeys.createUser().getSeed());

  const port = await freePort();
  const url = `nats://127.0.0.1:${port}`;
  const config = path.join(folder, 'nats.conf');
  writeFileSync(
    config,
    [
      `listen: 127.0.0.1:${port}`,
      `tls { cert_file: "${server.cert}", key_file: "${server.key}", ca_file: "${certs.ca}", verify: true, timeout: 3 }`,
      `authorization { users = [ { user: bench, password: s3cret }, { nkey: ${user.getPublicKey()} } ] }`,
      '',
    ].join('\n'),
  );
  const nats = spawn('nats-server', ['-c', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let serverLog = '';
  nats.stderr.on('data', (chunk: Buffer) => (serverLog += chunk.toString()));
  t.after(() => nats.kill('SIGKILL'));
  await waitFor('nats-server listening', () => serverLog.includes('Server is ready'), 10_000);

  const tls = ['--nats-tls-ca', certs.ca, '--nats-tls-cert', certs.client.cert, '--nats-tls-key', certs.client.key];
  const agentWith = async (args: string[]): Promise<CliRun> => runCli(['agent', '--trust', TRUST, ...args], { cwd: folder });

  // Wrong credentials, each refused before anything runs.
  assertBusRefusal(await agentWith(['--nats', url, '--nats-nkey', stranger, ...tls]), url, /not authorised/);
  const wrongPassword = await agentWith(['--nats', `nats://bench:wrong@127.0.0.1:${port}`, ...tls]);
  assertBusRefusal(wrongPassword, url, /not authorised/);
  assert.doesNotMatch(wrongPassword.stderr, /wrong/, 'the password is not printed');
  const untrusted =
    /its TLS certificate is not trusted \(unable to verify the first certificate\) \(give --nats-tls-ca the CA that signed the server's certificate\)$/;
  assertBusRefusal(await agentWith(['--nats', url, '--nats-nkey', seed, '--nats-tls-ca', certs.otherCa, ...tls.slice(2)]), url, untrusted);
  assertBusRefusal(await agentWith(['--nats', url, '--nats-nkey', seed]), url, untrusted);
  // Without a client certificate the server closes the connection and says nothing.
  assertBusRefusal(
    await agentWith(['--nats', url, '--nats-nkey', seed, ...tls.slice(0, 2)]),
    url,
    /no answer within 5 s .*--nats-tls-cert and --nats-tls-key\)$/,
  );

  // The right ones: a user and password over TLS connects, and an NKEY agent and coordinator run a run.
  const byPassword = startAgent(t, ['--nats', `nats://bench:s3cret@127.0.0.1:${port}`, ...tls, '--name', 'password']);
  await waitFor('the password agent listening', () => byPassword.stderr().includes('waiting for plans'), 15_000);
  const prefix = uniquePrefix();
  const agent = startAgent(t, ['--nats', url, '--nats-nkey', seed, ...tls, '--nats-subject', prefix, '--name', 'tls-agent', '--once']);
  await waitFor('the NKEY agent listening', () => agent.stderr().includes('waiting for plans'), 15_000);
  const file = path.join(folder, 'agents.json');
  const common = ['tpcb', '-b', 'select-only', '--db', db.url, '-c', '2', '-T', '2', '-P', '0', '--observe=false'];
  const run = await runCli(
    ['run', ...common, '--agents', '1', '--nats', url, '--nats-nkey', seed, ...tls, '--nats-subject', prefix, '--trust', TRUST, '-o', file],
    { cwd: folder },
  );
  assert.equal(run.code, 0, run.stderr);
  assert.equal(await agent.exited, 0, agent.stderr());
  const result = JSON.parse(readFileSync(file, 'utf8')) as RunResult;
  assert.equal(result.status, 'completed');
  assert.equal(result.agents?.count, 1);
  const member = result.agents!.members[0]!;
  assert.equal(member.name, 'tls-agent');
  assert.deepEqual(member.terminals, { first: 0, count: 2 });
  assert.ok(result.summary.transactions > 0 && member.transactions === result.summary.transactions, JSON.stringify(result.agents));
  // The run's own summary shows the agents section: the run's clocks, then the agent's shard, clock and work.
  assert.match(run.stdout, new RegExp(`agents: 1, clock offsets spread 0 ms \\(offsets ${member.clockOffsetMs} to ${member.clockOffsetMs} ms\\)`));
  assert.match(run.stdout, new RegExp(`tls-agent: agent #0, terminals 0\\.\\.1 \\(2\\), ${member.transactions} transactions, 0 failed`));

  // report and compare of that result beside a local run of the same terminals.
  const local = path.join(folder, 'local.json');
  assert.equal((await runCli(['run', ...common, '-o', local], { cwd: folder })).code, 0);
  const html = path.join(folder, 'report.html');
  const report = await runCli(['report', file, local, '-o', html, '--markdown'], { cwd: folder });
  assert.equal(report.code, 0, report.stderr);
  assert.match(report.stdout, /`agents`: agents: 1, clock offsets spread 0 ms/);
  const page = readFileSync(html, 'utf8');
  assert.match(page, /<h3>Agents<\/h3>/);
  assert.match(page, new RegExp(`<td>tls-agent \\(#0\\)</td><td>0\\.\\.1</td><td class="num">2</td>`));
  assert.match(page, new RegExp(`<td class="num">${member.transactions}</td>`));
  assert.match(page, /<li>1: 1 agents \(tls-agent 0\.\.1: \d+\), clock offsets spread 0 ms, started within [\d.]+ ms, none lost<\/li>/);
  assert.match(page, /<li>2: local \(one process, 1 job\(s\)\)<\/li>/);
  const compare = await runCli(['compare', file, local], { cwd: folder });
  assert.equal(compare.code, 0, compare.stderr);
  assert.match(
    compare.stdout,
    new RegExp(`\\n  1: 1 agents \\(tls-agent 0\\.\\.1: ${member.transactions}\\), clock offsets spread 0 ms, started within [\\d.]+ ms, none lost\\n`),
  );
  assert.match(compare.stdout, /\n {2}2: local \(one process, 1 job\(s\)\)\n/);
});
