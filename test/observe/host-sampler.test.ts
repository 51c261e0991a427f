import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { growthBetween, sampleProcesses, type ProcessSample } from '../../src/observe/host-sampler.js';
import { observePostgres } from '../../src/drivers/postgres/observe.js';
import { observeMariadb } from '../../src/drivers/mariadb/observe.js';
import { firebirdRoot, observeFirebird } from '../../src/drivers/firebird/observe.js';
import { connectFresh } from '../helpers/databases.js';
import { resolveTarget } from '../../src/config/target.js';
import { createDriver } from '../helpers/drivers.js';
import { startThrowawayPostgres, throwawayPostgresUnavailable } from '../helpers/throwaway-postgres.js';
import { skipOrFail } from '../helpers/skip-or-fail.js';

const sample = (entries: [number, number][], parentPid = 0): ProcessSample => ({
  byPid: new Map(entries.map(([pid, cpu]) => [pid, { cpuSeconds: cpu, readBytes: cpu * 10, writeBytes: cpu * 20, writeCallBytes: cpu * 30, parentPid }])),
});

test('growth between samples is counted per process: an ended process never makes it negative, a new one counts from zero', () => {
  // pid 2 ended after 5 s of CPU, pid 3 started and used 1.5 s, pid 1 used 2 s more.
  const growth = growthBetween(
    sample([
      [1, 10],
      [2, 5],
    ]),
    sample([
      [1, 12],
      [3, 1.5],
    ]),
  );
  assert.deepEqual(growth, { processes: 2, cpuSeconds: 3.5, readBytes: 35, writeBytes: 70, writeCallBytes: 105 });
});

test('a child reaped between samples is counted once: its totals land in the parent, less what was counted before', () => {
  const at = (entries: [number, number, number][]): ProcessSample => ({
    byPid: new Map(
      entries.map(([pid, parent, cpu]) => [pid, { cpuSeconds: cpu, readBytes: cpu * 10, writeBytes: cpu * 20, writeCallBytes: cpu * 30, parentPid: parent }]),
    ),
  });
  // Postmaster 1 at 10 s; backend 2 (its child) at 5 s, which does 2 s more and ends: Linux adds
  // its 7 s to 1's counters (cutime, /proc/1/io), and 1 itself does 1 s more.
  const growth = growthBetween(
    at([
      [1, 0, 10],
      [2, 1, 5],
    ]),
    at([[1, 0, 18]]),
  );
  assert.deepEqual(growth, { processes: 1, cpuSeconds: 3, readBytes: 30, writeBytes: 60, writeCallBytes: 90 });
});

for (const dbms of ['postgres', 'mariadb', 'firebird'] as const) {
  test(`${dbms}: the server names its main process, and sampling counts only that server's processes`, async (t) => {
    const fresh = await connectFresh(t, dbms);
    if (!fresh) return;
    const observation = dbms === 'postgres' ? observePostgres(fresh.conn) : dbms === 'mariadb' ? observeMariadb(fresh.conn) : observeFirebird(fresh.conn);
    const root = await observation.serverPid!();
    if (dbms === 'firebird') {
      // The test server is SuperServer (its cache writer a system attachment) as SYSDBA sees it, or
      // Classic under its listener: the process serving this attachment, or that one's parent.
      const [[served]] = (await fresh.conn.query('SELECT mon$server_pid FROM mon$attachments WHERE mon$attachment_id = CURRENT_CONNECTION')) as [[number]];
      const parent = Number(readFileSync(`/proc/${served}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      assert.ok(root === Number(served) || root === parent, `root ${root}: neither the attachment's server process ${served} nor its parent ${parent}`);
    }
    assert.ok(root !== undefined, 'the server runs on this machine, so its main pid is known');
    const comm = readFileSync(`/proc/${root}/comm`, 'utf8').trim();
    assert.ok(observation.serverProcessNames.includes(comm), `pid ${root} is ${comm}`);
    const mine = sampleProcesses({ names: observation.serverProcessNames, rootPid: root })!;
    const byName = sampleProcesses({ names: observation.serverProcessNames, rootPid: undefined })!;
    assert.ok(mine.byPid.has(root) && mine.byPid.size >= 1);
    // Every process kept is the root or its child; the name-only sample holds them all (and maybe other servers').
    for (const pid of mine.byPid.keys()) {
      let stat: string;
      try {
        stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      } catch {
        continue; // a backend that ended since the sample (another session's connection)
      }
      assert.ok(byName.byPid.has(pid), `pid ${pid} is alive, so the name-only sample taken before holds it`);
      const parent = Number(stat.split(') ')[1]!.split(' ')[1]);
      assert.ok(pid === root || parent === root, `pid ${pid} (parent ${parent}) is not server ${root}'s`);
    }
    // And it misses none: the root's children come from the kernel's list of them, and every child
    // of the root that the name-only sample saw, still alive after a later sample, is in that one.
    const later = sampleProcesses({ names: observation.serverProcessNames, rootPid: root })!;
    const children = [...byName.byPid].filter(([pid, counters]) => counters.parentPid === root && existsSync(`/proc/${pid}`)).map(([pid]) => pid);
    for (const pid of children) assert.ok(later.byPid.has(pid), `child ${pid} of server ${root} is missing`);
    // PostgreSQL's postmaster always has children (checkpointer, background writer, ...); MariaDB is one process.
    if (dbms === 'postgres') assert.ok(children.length > 0 && later.byPid.size > 1, `the postmaster's children were found: ${later.byPid.size}`);
  });
}

test('firebird: the root is told only from a Firebird process, and only where it serves the others or is a listener', () => {
  // This test's own process is no Firebird server, whatever it says of itself.
  assert.equal(firebirdRoot(process.pid, true), undefined);
  assert.equal(firebirdRoot(process.pid, false), undefined);
  // A pid that is not (or no longer) on this machine: the server runs elsewhere.
  assert.equal(firebirdRoot(2 ** 22 + 1, true), undefined);
});

test("postgres: a backend that wrote and ended between samples counts once in the server processes' I/O, as its own /proc/PID/io says", async (t) => {
  if (skipOrFail(t, throwawayPostgresUnavailable())) return;
  // A cluster of the test's own: on the shared server other sessions' backends end and land in the postmaster's counters too.
  const cluster = await startThrowawayPostgres(['host all all 127.0.0.1/32 trust'], []);
  t.after(() => cluster.stop());
  const target = resolveTarget(`postgres://postgres@127.0.0.1:${cluster.port}/postgres`);
  const driver = createDriver(target);
  const admin = await driver.connect();
  t.after(() => admin.close());
  const observation = observePostgres(admin);
  const filter = { names: observation.serverProcessNames, rootPid: await observation.serverPid!() };
  const writer = await driver.connect();
  const [[backend]] = (await writer.query('SELECT pg_backend_pid()')) as [[number]];
  const first = sampleProcesses(filter)!;
  // A temporary table larger than temp_buffers: the backend itself writes it out.
  await writer.query("CREATE TEMP TABLE filler AS SELECT g, repeat('x', 200) AS pad FROM generate_series(1, 100000) g");
  const second = sampleProcesses(filter, first)!;
  await writer.query("INSERT INTO filler SELECT g, repeat('y', 200) FROM generate_series(1, 50000) g");
  const io = readFileSync(`/proc/${backend}/io`, 'utf8');
  const own = Number(/^write_bytes: (\d+)/m.exec(io)![1]);
  const ownCalls = Number(/^wchar: (\d+)/m.exec(io)![1]);
  await writer.close();
  for (let i = 0; i < 100 && existsSync(`/proc/${backend}`); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  const third = sampleProcesses(filter, second)!;
  const [early, late] = [growthBetween(first, second), growthBetween(second, third)];
  const written = early.writeBytes + late.writeBytes;
  const calls = early.writeCallBytes + late.writeCallBytes;
  assert.ok(own > 10 << 20, `the backend wrote its table: ${own} bytes`);
  // The other processes (checkpointer, WAL writer) add a little; the backend twice would be 2x.
  assert.ok(written >= own && written < own * 1.3, `server processes dirtied ${written} bytes, the backend alone ${own}`);
  assert.ok(
    ownCalls > 10 << 20 && calls >= ownCalls && calls < ownCalls * 1.3,
    `server processes' write calls ${calls} bytes, the backend's alone ${ownCalls}`,
  );
});
