import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RefGenerator, START_R, distributedStart, shift } from '../../src/workloads/chain/generator.js';
import { chainSizes } from '../../src/workloads/chain/sizes.js';
import { runCli } from '../helpers/cli.js';
import { connectFresh } from '../helpers/databases.js';
import { NATS_URL, TRUST, agentsListening, natsOrSkip, startAgent, uniquePrefix } from './helpers.js';

const CLIENT_COUNT = chainSizes(0.0002).clientsPerBatch;

/** The sorted client ids that terminals 0..terminals-1 of a distributed run after `existing` operations draw, `units` each. */
function expectedClients(existing: number, terminals: number, units: number): number[] {
  const start = existing === 0 ? START_R : shift(existing);
  return Array.from({ length: terminals }, (_, i) => new RefGenerator(distributedStart(start, i, units)))
    .flatMap((generator) => Array.from({ length: units }, () => generator.nextRef(CLIENT_COUNT)))
    .sort((a, b) => a - b);
}

/**
 * Two agents share each run's terminals; the coordinator counts the existing operations once and
 * its plan carries the count, so both runs draw the clients of the one reference sequence.
 */
test('postgres: chain over two agents, a first and a second run, draws the clients one count gives', async (t) => {
  if (!(await natsOrSkip(t))) return;
  const fresh = await connectFresh(t, 'postgres');
  if (!fresh) return;
  const { db, conn } = fresh;
  const prefix = uniquePrefix();
  const agents = ['a0', 'a1'].map((name) => startAgent(t, prefix, name));
  t.after(() => {
    for (const agent of agents) rmSync(agent.cwd, { recursive: true, force: true });
  });
  await agentsListening(agents);
  const cwd = mkdtempSync(path.join(tmpdir(), 'headroom-coordinator-'));
  t.after(() => rmSync(cwd, { recursive: true, force: true }));
  const run = (clients: number, units: number) =>
    runCli(
      ['run', 'chain', '--db', db.url, '-s', '1/5000', '-c', String(clients), '-t', String(units), '-P', '0', '--observe=false', '--agents', '2'].concat([
        '--nats',
        NATS_URL,
        '--nats-subject',
        prefix,
        '--trust',
        TRUST,
        '-o',
        path.join(cwd, `r${clients}.json`),
      ]),
      { cwd },
    );
  const latest = async (n: number): Promise<number[]> =>
    (await conn.query(`SELECT client_id FROM operation ORDER BY id DESC LIMIT ${n}`)).map(([id]) => Number(id)).sort((a, b) => a - b);

  const first = await run(3, 4);
  assert.equal(first.code, 0, first.stderr);
  assert.deepEqual(await latest(12), expectedClients(0, 3, 4));
  const second = await run(4, 2);
  assert.equal(second.code, 0, second.stderr);
  assert.deepEqual(await latest(8), expectedClients(12, 4, 2));
});
