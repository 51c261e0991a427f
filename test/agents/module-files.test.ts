import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { Signer } from '../../src/agents/signing.js';
import type { RunResult } from '../../src/result/result.js';
import { runCli } from '../helpers/cli.js';
import { NATS_URL, TRUST, agentsListening, claimsOn, natsOrSkip, planAddress, planBody, startAgent, uniquePrefix, waitFor } from './helpers.js';

/** A module whose statement lives in a file of its own, imported as a user would split a model. */
const MODULE = `import { defineWorkload } from 'headroom-oltp';
import { CREATE, READ } from './lib/sql.js';
export default defineWorkload({
  name: 'split',
  description: 'one table, one read, its SQL in another file',
  tables: { split_t: { create: CREATE } },
  async load(ctx) { await ctx.bulkInsert('split_t', ['id'], [[1], [2]]); },
  transactions: { read: { weight: 1, async prepare(conn) { const s = await conn.prepare(READ); return async () => { await s.all([1]); }; } } },
});
`;
const SQL = `export const CREATE = 'CREATE TABLE split_t (id INTEGER PRIMARY KEY)';
export const READ = 'SELECT id FROM split_t WHERE id = ?';
`;

/** Writes the module and the file it imports into `folder`; their paths. */
function writeModule(folder: string): { module: string; sql: string } {
  mkdirSync(path.join(folder, 'lib'), { recursive: true });
  const module = path.join(folder, 'split.ts');
  const sql = path.join(folder, 'lib', 'sql.ts');
  writeFileSync(module, MODULE);
  writeFileSync(sql, SQL);
  return { module, sql };
}

const listed = (file: string): { path: string; sha256: string } => ({ path: file, sha256: createHash('sha256').update(readFileSync(file)).digest('hex') });

/**
 * The hash check covers the files a plan lists, so a plan naming a module must list every file the
 * agent would import for it (the module and what it imports, as esbuild bundles them), or the agent
 * runs code nobody vouched for: a plan listing no file, or the module but not its import, is refused.
 */
test('an agent refuses a genuine plan naming a workload module that lists none, or not all, of the files the module is built from', async (t) => {
  if (!(await natsOrSkip(t))) return;
  const prefix = uniquePrefix();
  const agent = startAgent(t, prefix, 'modules');
  t.after(() => rmSync(agent.cwd, { recursive: true, force: true }));
  await agentsListening([agent]);
  const { module, sql } = writeModule(agent.cwd);
  const nc: NatsConnection = await connect({ servers: NATS_URL });
  t.after(() => nc.close());
  const claims = claimsOn(nc, prefix);
  await nc.flush();
  const { subject, instance } = planAddress(agent);
  const signer = new Signer(TRUST);
  const send = (runId: string, files: { path: string; sha256: string }[]): void =>
    nc.publish(subject, signer.seal({ ...planBody(runId, instance), workload: module, files }));

  send('nofiles', []);
  send('unlisted', [listed(module)]);
  await waitFor('both refused', () => /refused plan nofiles: /.test(agent.stderr()) && /refused plan unlisted: /.test(agent.stderr()), 10_000).catch(
    (error: Error) => assert.fail(`${error.message}; runs claimed: ${claims.join(', ')}; the agent's log:\n${agent.stderr()}`),
  );
  assert.match(agent.stderr(), /refused plan nofiles: the plan does not list \S*\/split\.ts, a file workload module \S*\/split\.ts is built from/);
  assert.match(agent.stderr(), /refused plan unlisted: the plan does not list \S*\/lib\/sql\.ts, a file workload module \S*\/split\.ts is built from/);
  send('listed', [listed(module), listed(sql)]);
  await waitFor('the plan listing both files claimed', () => claims.includes('listed'), 10_000);
  assert.deepEqual(claims, ['listed']);
});

/** The coordinator lists the module's imports itself: a distributed run of a split module runs. */
test('a distributed run of a workload module that imports another file completes on an agent', async (t) => {
  if (!(await natsOrSkip(t))) return;
  const folder = mkdtempSync(path.join(tmpdir(), 'headroom-split-module-'));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  const { module } = writeModule(folder);
  const prefix = uniquePrefix();
  const agent = startAgent(t, prefix, 'split', ['--once']);
  t.after(() => rmSync(agent.cwd, { recursive: true, force: true }));
  await agentsListening([agent]);
  const args = ['run', module, '--db', `sqlite:${path.join(folder, 'split.db')}`, '-c', '2', '-T', '1', '--agents', '1', '--observe=false', '-o', 'r.json'];
  const run = await runCli([...args, '--nats', NATS_URL, '--nats-subject', prefix, '--trust', TRUST], { cwd: folder });
  assert.equal(run.code, 0, run.stderr + agent.stderr());
  assert.equal(await agent.exited, 0, agent.stderr());
  const result = JSON.parse(readFileSync(path.join(folder, 'r.json'), 'utf8')) as RunResult;
  assert.equal(result.agents?.count, 1);
  assert.ok(result.summary.transactions > 0, `transactions ran on the agent: ${result.summary.transactions}`);
});
