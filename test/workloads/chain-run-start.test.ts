import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Connection } from '../../src/drivers/driver.js';
import { runEngine } from '../../src/engine/engine.js';
import { Random } from '../../src/common/random.js';
import { RefGenerator, START_R, distributedStart, shift } from '../../src/workloads/chain/generator.js';
import { chain } from '../../src/workloads/chain/index.js';
import { chainSizes } from '../../src/workloads/chain/sizes.js';
import { EXISTING_OPERATIONS, terminalGenerator } from '../../src/workloads/chain/terminal-start.js';
import type { DataContext, TerminalContext } from '../../src/workloads/workload.js';
import { runCli } from '../helpers/cli.js';
import { connectFresh } from '../helpers/databases.js';
import { engineConfig } from '../helpers/engine-config.js';

/** 2 countries, 2 cities, 50 streets, 2,500 addresses, 3 x 667 clients: -s 1/5000. */
const SCALE = 0.0002;
const CLIENT_COUNT = chainSizes(SCALE).clientsPerBatch;

/** The client ids `starts` draw, `units` each, sorted: what the operations of a distributed run must hold. */
function expectedClients(starts: readonly number[], units: number): number[] {
  return starts
    .flatMap((s) => {
      const generator = new RefGenerator(s);
      return Array.from({ length: units }, () => generator.nextRef(CLIENT_COUNT));
    })
    .sort((a, b) => a - b);
}

/** Terminal 0..terminals-1 of a distributed run after `existing` operations, n = units each. */
function startsAfter(existing: number, terminals: number, units: number): number[] {
  const start = existing === 0 ? START_R : shift(existing);
  return Array.from({ length: terminals }, (_, i) => distributedStart(start, i, units));
}

/** The client ids of the `latest` newest operations, sorted. */
async function latestClients(conn: Connection, latest: number): Promise<number[]> {
  const rows = await conn.query(`SELECT client_id FROM operation ORDER BY id DESC LIMIT ${latest}`);
  return rows.map(([id]) => Number(id)).sort((a, b) => a - b);
}

async function operationCount(conn: Connection): Promise<number> {
  return Number(((await conn.query('SELECT COUNT(*) FROM operation')) as [[unknown]])[0][0]);
}

test('sqlite CLI: a first and a second run draw the clients one count of the existing operations gives', async (t) => {
  const fresh = await connectFresh(t, 'sqlite');
  if (!fresh) return;
  const { db, conn } = fresh;
  // Results go to headroom-results/ under the working folder: a folder of the test's own.
  const cwd = mkdtempSync(path.join(tmpdir(), 'headroom-chain-run-start-'));
  t.after(() => rmSync(cwd, { recursive: true, force: true }));
  const run = (clients: number, units: number) =>
    runCli(['run', 'chain', '--db', db.url, '-s', '1/5000', '-c', String(clients), '-t', String(units), '-P', '0', '--observe=false'], { cwd });

  const first = await run(3, 4);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(await operationCount(conn), 12);
  assert.deepEqual(await latestClients(conn, 12), expectedClients(startsAfter(0, 3, 4), 4));

  // The second run starts after the first's 12 operations: s_0 = shift(12), then steps by shift(n).
  const second = await run(2, 5);
  assert.equal(second.code, 0, second.stderr);
  assert.equal(await operationCount(conn), 22);
  assert.deepEqual(await latestClients(conn, 10), expectedClients(startsAfter(12, 2, 5), 5));
});

test('sqlite: a terminal starts its generator from the runStart it is given, counting for itself only without one', async (t) => {
  const fresh = await connectFresh(t, 'sqlite');
  if (!fresh) return;
  const { driver, conn } = fresh;
  const ctx: DataContext = { conn, driver, dbms: 'sqlite', scale: SCALE, options: { load: 'bulk' }, log: () => {} };
  await chain.load(ctx);
  for (let i = 0; i < 5; i++) await conn.query('INSERT INTO operation (summa, client_id, op_time) VALUES (?, ?, CURRENT_TIMESTAMP)', [10, i + 1]);

  // The hook counts once; localized terminals need no count.
  assert.deepEqual(await chain.runStart!(ctx), { [EXISTING_OPERATIONS]: 5 });
  assert.deepEqual(await chain.runStart!({ ...ctx, options: { mode: 'localized' } }), {});

  const terminal = (runStart?: Record<string, number>): TerminalContext => ({
    terminal: 1,
    terminals: 3,
    transactionsPerTerminal: 4,
    scale: SCALE,
    dbms: 'sqlite',
    random: new Random(1),
    options: {},
    protocol: 'prepared',
    seed: 1,
    ...(runStart ? { runStart } : {}),
  });
  // Given 12 where the table holds 5: the generator must follow the figure it was given.
  assert.equal((await terminalGenerator(conn, terminal({ [EXISTING_OPERATIONS]: 12 }))).state, distributedStart(shift(12), 1, 4));
  assert.equal((await terminalGenerator(conn, terminal())).state, distributedStart(shift(5), 1, 4));
});

// On PostgreSQL: SQLite terminals in two threads meet SQLITE_BUSY at their writes, and a failed unit draws its client again.
test('postgres engine: the runStart of the engine config reaches the terminals of every worker thread', async (t) => {
  const fresh = await connectFresh(t, 'postgres');
  if (!fresh) return;
  const { db, driver, conn } = fresh;
  await chain.load({ conn, driver, dbms: 'postgres', scale: SCALE, options: { load: 'bulk' }, log: () => {} });
  // The table is empty; the figure handed over says 30, and every terminal must start from it.
  const config = engineConfig(db.target, 'chain', {
    options: { load: 'bulk' },
    scale: SCALE,
    clients: 3,
    jobs: 2,
    transactionsPerClient: 4,
    maxTries: 5,
    runStart: { [EXISTING_OPERATIONS]: 30 },
  });
  const outcome = await runEngine(config, new AbortController().signal, () => {});
  assert.equal(outcome.totals.types[0]!.count, 12);
  assert.deepEqual(await latestClients(conn, 12), expectedClients(startsAfter(30, 3, 4), 4));
});
