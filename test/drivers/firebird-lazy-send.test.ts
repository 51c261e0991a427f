import { test } from 'node:test';
import assert from 'node:assert/strict';
import type net from 'node:net';
import type { ServerTarget } from '../../src/config/target.js';
import type { FirebirdConnection } from '../../src/drivers/firebird/connection.js';
import { FirebirdWire, transactionBlock } from '../../src/drivers/firebird/wire/connection.js';
import { connectFresh } from '../helpers/databases.js';
import { fakeServer, reader, within } from '../helpers/fake-server.js';

/**
 * ptype_lazy_send (src/drivers/firebird/wire): a statement's allocation and preparation go out in
 * one write, statement drops ride in front of the next request, and a cursor is closed by its
 * transaction's end rather than by a request of its own. Against the real Firebird 3 server, and
 * against a fake one that only answers the allocation once the preparation has arrived too.
 */

const word = (...values: number[]): Buffer => Buffer.concat(values.map((v) => Buffer.from([(v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff])));
const OP = { allocate: 62, prepare: 68, free: 67, transaction: 29, commit: 30 } as const;
const response = (handle: number): Buffer => word(9, handle, 0, 0, 0, 0);
/** op_response with an empty data buffer and a status vector of isc_dsql_error (335544569). */
const failure = word(9, 0, 0, 0, 0, 1, 335544569, 0);
const READ_WRITE = transactionBlock({ isolation: 'read-committed', wait: true, readOnly: false });

/** The bytes of each write the wire makes from now on (what went out as one request). */
function captureWrites(wire: FirebirdWire): Buffer[] {
  const transport = (wire as unknown as { transport: { write(buffer: Buffer, start: number, end: number): void } }).transport;
  const writes: Buffer[] = [];
  const write = transport.write.bind(transport);
  transport.write = (buffer, start, end) => {
    writes.push(Buffer.from(buffer.subarray(start, end)));
    write(buffer, start, end);
  };
  return writes;
}

async function lazyConnection(t: Parameters<typeof connectFresh>[0]): Promise<FirebirdConnection | undefined> {
  const fresh = await connectFresh(t, 'firebird');
  if (!fresh) return undefined;
  const conn = fresh.conn as FirebirdConnection;
  assert.equal(conn.wire.lazy, true, 'Firebird 3 accepts ptype_lazy_send when it is offered');
  await conn.query('CREATE TABLE lazy_probe (id INTEGER NOT NULL PRIMARY KEY, v INTEGER)');
  return conn;
}

test('firebird lazy send: a prepare is one write, and its statement runs', async (t) => {
  const conn = await lazyConnection(t);
  if (!conn) return;
  await conn.begin();
  const writes = captureWrites(conn.wire);
  const insert = await conn.prepare('INSERT INTO lazy_probe (id, v) VALUES (?, ?)');
  assert.equal(writes.length, 1, 'allocate and prepare in one write');
  assert.equal(writes[0]!.readInt32BE(0), OP.allocate);
  assert.equal(writes[0]!.readInt32BE(8), OP.prepare);
  assert.equal(writes[0]!.readInt32BE(16), 0xffff, 'the prepare names the statement just allocated as INVALID_OBJECT');
  for (let id = 1; id <= 3; id++) assert.equal(await insert.run([id, id * 10]), 1);
  await conn.commit();
  const select = await conn.prepare('SELECT v FROM lazy_probe WHERE id = ?');
  assert.deepEqual(await select.all([2]), [[20]]);
  assert.deepEqual(await select.all([3]), [[30]]);
});

test('firebird lazy send: a cursor runs again in its transaction, and after the commit, with no close before the commit', async (t) => {
  const conn = await lazyConnection(t);
  if (!conn) return;
  // 1000 rows: more than one fetch's batch, so a cursor is left open between fetches too.
  await conn.bulkInsert(
    'lazy_probe',
    ['id', 'v'],
    Array.from({ length: 1000 }, (_, i) => [i + 1, i % 7]),
  );
  const one = await conn.prepare('SELECT v FROM lazy_probe WHERE id = ?');
  const many = await conn.prepare('SELECT id FROM lazy_probe WHERE v = ? ORDER BY id');
  for (let round = 0; round < 3; round++) {
    await conn.begin();
    const writes = captureWrites(conn.wire);
    assert.deepEqual(await one.all([8]), [[0]]);
    assert.deepEqual(await one.all([8]), [[0]], 'the same statement again in the same transaction');
    assert.deepEqual(await one.all([9]), [[1]]);
    assert.equal((await many.all([3])).length, 143);
    assert.equal((await many.all([4])).length, 143, 'a cursor read in several batches, again');
    writes.length = 0;
    await conn.commit();
    // Each round's cursors are left open at the commit: the commit alone closes them.
    assert.deepEqual(
      writes.map((w) => [w.length, w.readInt32BE(0)]),
      [[8, OP.commit]],
      'the commit goes alone, no op_free_statement in front of it',
    );
  }
  // Autocommit: each run in a transaction of its own, whose commit closes the cursor.
  for (let i = 0; i < 5; i++) assert.deepEqual(await one.all([10]), [[2]]);
  conn.declareReadOnly(true);
  for (let i = 0; i < 5; i++) assert.deepEqual(await one.all([11]), [[3]]);
  assert.equal((await many.all([5])).length, 143);
});

test('firebird lazy send: bad SQL fails the prepare cleanly and the connection goes on', async (t) => {
  const conn = await lazyConnection(t);
  if (!conn) return;
  await assert.rejects(conn.prepare('SELEC v FROM lazy_probe'), /token unknown/i);
  await assert.rejects(conn.prepare('SELECT v FROM no_such_table'), /NO_SUCH_TABLE/i);
  await conn.query('INSERT INTO lazy_probe (id, v) VALUES (1, 10)');
  assert.deepEqual(await conn.query('SELECT v FROM lazy_probe'), [[10]]);
  // Inside a transaction: the failed prepare leaves the transaction usable.
  await conn.begin();
  const update = await conn.prepare('UPDATE lazy_probe SET v = v + 1 WHERE id = ?');
  await assert.rejects(conn.prepare('UPDATE lazy_probe SET nope = 1'), /NOPE/i);
  assert.equal(await update.run([1]), 1);
  await conn.commit();
  assert.deepEqual(await conn.query('SELECT v FROM lazy_probe'), [[11]]);
});

test('firebird lazy send: many prepare and drop cycles leave no statements behind on the server', async (t) => {
  const conn = await lazyConnection(t);
  if (!conn) return;
  const countStatements = async (): Promise<number> => {
    const [[count]] = (await conn.query('SELECT COUNT(*) FROM mon$statements WHERE mon$attachment_id = CURRENT_CONNECTION')) as [[number]];
    return Number(count);
  };
  const before = await countStatements();
  for (let i = 0; i < 300; i++) {
    // A text of its own each time: prepared, run and dropped by query().
    assert.deepEqual(await conn.query(`SELECT ${i} FROM rdb$database`), [[i]]);
    if (i % 50 === 0) await assert.rejects(conn.query(`SELECT ${i} FROM`), /unexpected end of command/i);
  }
  const after = await countStatements();
  assert.ok(after <= before + 1, `statements of this attachment: ${before} before 300 cycles, ${after} after (their drops did not reach the server)`);
});

test('firebird lazy send: without it (lazySend false) a prepare awaits its allocation and still works', async (t) => {
  const fresh = await connectFresh(t, 'firebird');
  if (!fresh) return;
  const target = fresh.db.target as ServerTarget;
  const wire = await FirebirdWire.connect({ ...target, password: target.password || 'masterkey', connectTimeoutMs: 10_000, lazySend: false });
  // Detached before the database is dropped (the test's own after-hooks run first).
  try {
    assert.equal(wire.lazy, false);
    const tx = await wire.startTransaction(READ_WRITE);
    const writes = captureWrites(wire);
    const prepared = await wire.prepare(tx, 'SELECT 42 FROM rdb$database');
    assert.deepEqual(
      writes.map((w) => w.readInt32BE(0)),
      [OP.allocate, OP.prepare],
    );
    assert.deepEqual(await wire.executeRows(prepared, tx, []), [[42]]);
    assert.deepEqual(await wire.executeRows(prepared, tx, []), [[42]]);
    await assert.rejects(wire.prepare(tx, 'SELEC 1'), /token unknown/i);
    await wire.commit(tx);
  } finally {
    wire.close();
  }
});

/** A fake Firebird 3 that accepts `type` (5: lazy send, 3: batch send) and attaches; `serve` has the rest. */
function fakeFirebird(
  t: Parameters<typeof fakeServer>[0],
  type: number,
  serve: (socket: net.Socket, next: (bytes: number) => Promise<Buffer>) => Promise<void>,
): Promise<number> {
  return fakeServer(t, (socket) => {
    const input = reader(socket);
    const next = (bytes: number): Promise<Buffer> => input.until((received) => received.length >= bytes);
    void (async () => {
      await input.until((received) => received.length > 0); // op_connect
      socket.write(word(3, 0x800d, 1, type));
      await input.until((received) => received.length > 0); // op_attach
      socket.write(response(1));
      await serve(socket, next);
    })();
  });
}

function connectTo(port: number): Promise<FirebirdWire> {
  return FirebirdWire.connect({ host: '127.0.0.1', port, user: 'SYSDBA', password: 'x', database: '/fake.fdb', connectTimeoutMs: 2000 });
}

test('firebird lazy send (fake server): the allocation and the preparation arrive together; the failed statement is dropped ahead of the next request', async (t) => {
  let prepareRequest: Buffer | undefined;
  let nextRequest: Buffer | undefined;
  const port = await fakeFirebird(t, 5, async (socket, next) => {
    // Nothing is answered before both requests are here: a client waiting on the allocation's
    // handle before it prepares would wait for good.
    const allocateBytes = 8;
    prepareRequest = await next(allocateBytes + 20);
    socket.write(Buffer.concat([response(5), failure]));
    nextRequest = await next(12 + 8);
    socket.write(Buffer.concat([response(0), response(9)]));
  });
  const wire = await within(5000, 'attach', connectTo(port));
  t.after(() => wire.close());
  assert.equal(wire.lazy, true);
  const before = wire.writes;
  await assert.rejects(within(5000, 'prepare', wire.prepare(3, 'SELEC 1')), (error: Error & { gdscode?: number }) => {
    assert.equal(error.gdscode, 335544569);
    return true;
  });
  assert.equal(wire.writes - before, 1, 'one write');
  assert.deepEqual([prepareRequest!.readInt32BE(0), prepareRequest!.readInt32BE(8), prepareRequest!.readInt32BE(16)], [OP.allocate, OP.prepare, 0xffff]);
  assert.equal(await within(5000, 'transaction', wire.startTransaction(READ_WRITE)), 9);
  assert.deepEqual(
    [nextRequest!.readInt32BE(0), nextRequest!.readInt32BE(4), nextRequest!.readInt32BE(8), nextRequest!.readInt32BE(12)],
    [OP.free, 5, 2, OP.transaction],
    'op_free_statement(5, DSQL_drop) in front of the next request',
  );
});

test('firebird lazy send (fake server): a server that accepts batch send only gets the allocation alone first', async (t) => {
  let first: Buffer | undefined;
  const port = await fakeFirebird(t, 3, async (socket, next) => {
    first = await next(8);
    socket.write(response(5));
    await next(20);
    socket.write(failure);
  });
  const wire = await within(5000, 'attach', connectTo(port));
  t.after(() => wire.close());
  assert.equal(wire.lazy, false);
  await assert.rejects(within(5000, 'prepare', wire.prepare(3, 'SELEC 1')));
  assert.equal(first!.length, 8, 'op_allocate_statement alone');
  assert.equal(first!.readInt32BE(0), OP.allocate);
});

test('firebird lazy send: DROP TABLE of a table a prepared statement holds releases the statement and succeeds, with no drop sent alone', async (t) => {
  const conn = await lazyConnection(t);
  if (!conn) return;
  const insert = await conn.prepare('INSERT INTO lazy_probe (id, v) VALUES (?, ?)');
  await conn.begin();
  assert.equal(await insert.run([1, 10]), 1);
  await conn.commit();
  // The prepared insert keeps lazy_probe in use: the DROP fails once, the connection releases its
  // statements and tries again. Under lazy send the server answers a drop only with its next answer,
  // so a release that sent its drop alone and waited for it hung here.
  const dropped = conn.query('DROP TABLE lazy_probe').then(() => 'dropped');
  const outcome = await Promise.race([dropped, new Promise((resolve) => setTimeout(() => resolve('no answer in 20 s'), 20_000).unref())]);
  assert.equal(outcome, 'dropped');
  assert.equal(await conn.query("SELECT COUNT(*) FROM rdb$relations WHERE rdb$relation_name = 'LAZY_PROBE'").then((rows) => Number(rows[0]![0])), 0);
  // The statement prepares again when used: here it meets the missing table.
  await conn.begin();
  await assert.rejects(insert.run([2, 20]), /LAZY_PROBE|Table unknown/i);
  await conn.rollback();
});
