import { test } from 'node:test';
import assert from 'node:assert/strict';
import type net from 'node:net';
import type { ServerTarget } from '../../src/config/target.js';
import { FirebirdWire, transactionBlock } from '../../src/drivers/firebird/wire/connection.js';
import { FirebirdConnection } from '../../src/drivers/firebird/connection.js';
import { fakeServer, within, writeBytewise } from '../helpers/fake-server.js';
import { freshDatabase } from '../helpers/databases.js';

/**
 * headroom's Firebird protocol client (src/drivers/firebird/wire): a fake server that answers in
 * pieces and then with bytes that are no Firebird packet (a clean error, no hang), and logins
 * against the real server: Srp salts of every hex length the server sends.
 */

const word = (...values: number[]): Buffer => Buffer.concat(values.map((v) => Buffer.from([(v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff])));
/** op_accept: protocol 13, generic architecture, ptype_batch_send. */
const ACCEPT = word(3, 0x800d, 1, 3);
/** op_response with `handle`, no blob id, no data, an empty status vector. */
const response = (handle: number): Buffer => word(9, handle, 0, 0, 0, 0);
const READ_COMMITTED = transactionBlock({ isolation: 'read-committed', wait: true, readOnly: false });

function connectTo(port: number): Promise<FirebirdWire> {
  return FirebirdWire.connect({ host: '127.0.0.1', port, user: 'SYSDBA', password: 'x', database: '/fake.fdb', connectTimeoutMs: 2000 });
}

/** A fake that accepts, attaches and answers each later request with what `answer` gives, byte by byte. */
async function scriptedServer(t: Parameters<typeof fakeServer>[0], answer: (request: number) => Buffer): Promise<number> {
  return fakeServer(t, (socket: net.Socket) => {
    let step = 0;
    socket.on('data', () => {
      const reply = step === 0 ? ACCEPT : step === 1 ? response(7) : answer(step - 2);
      step++;
      void writeBytewise(socket, reply);
    });
  });
}

test('firebird wire: answers that arrive a byte at a time are put together', async (t) => {
  const port = await scriptedServer(t, (n) => response(100 + n));
  const wire = await within(5000, 'attach', connectTo(port));
  assert.equal(await within(5000, 'transaction', wire.startTransaction(READ_COMMITTED)), 100);
  assert.equal(await within(5000, 'transaction', wire.startTransaction(READ_COMMITTED)), 101);
  wire.close();
});

for (const [name, bytes] of [
  ['an unknown packet type', word(0x7777, 0, 0)],
  ['a data field of 2 GB', word(9, 1, 0, 0, 0x7ffffff0)],
  ['a status vector with an unknown argument type', word(9, 1, 0, 0, 0, 99, 0)],
  ['a fetch answer to a transaction start', word(66, 0, 1)],
] as const) {
  test(`firebird wire: ${name} fails the request cleanly and drops the connection`, async (t) => {
    const port = await scriptedServer(t, () => bytes);
    const wire = await within(5000, 'attach', connectTo(port));
    const error = await within(
      5000,
      'transaction',
      wire.startTransaction(READ_COMMITTED).then(
        () => assert.fail('a malformed answer was taken'),
        (e: unknown) => e as Error & { code?: string },
      ),
    );
    assert.equal(error.code, 'EPROTO', error.message);
    assert.match(error.message, new RegExp(`127\\.0\\.0\\.1:${port} sent bytes that are not a Firebird answer`));
    // Nothing more goes out on a dropped connection: the next request fails at once.
    await assert.rejects(within(1000, 'after', wire.startTransaction(READ_COMMITTED)), /not a Firebird answer/);
  });
}

test('firebird wire: a server that closes half-way through an answer fails the request, no hang', async (t) => {
  const port = await fakeServer(t, (socket) => {
    let step = 0;
    socket.on('data', () => {
      if (step++ === 0) socket.write(ACCEPT);
      else socket.end(response(7).subarray(0, 10));
    });
  });
  await assert.rejects(within(5000, 'attach', connectTo(port)), /closed the connection/);
});

test("firebird: Srp logins work whatever the salt's hex length (the server drops its leading zeros)", { timeout: 240_000 }, async (t) => {
  const db = await freshDatabase(t, 'firebird');
  if (!db) return;
  const admin = db.target as ServerTarget;
  const user = `HR_SRP_${process.pid}`;
  const adminWire = await FirebirdWire.connect({ ...admin, password: admin.password ?? 'masterkey', connectTimeoutMs: 10_000 });
  const conn = new FirebirdConnection(adminWire, admin);
  t.after(async () => {
    await conn.query(`DROP USER ${user} USING PLUGIN Srp`).catch(() => {});
    await conn.close();
    await db.dispose();
  });
  const lengths = new Set<number>();
  // A salt is 32 random bytes: one in 16 starts with a zero digit (63 hex digits), one in 256 with two.
  for (let i = 0; i < 120 && !(lengths.has(64) && [...lengths].some((n) => n < 64) && i >= 20); i++) {
    const password = `pw-${i}-${'x'.repeat(i % 7)}`;
    await conn.query(`${i === 0 ? 'CREATE' : 'ALTER'} USER ${user} PASSWORD '${password}' USING PLUGIN Srp`);
    for (const plugins of [['Srp'], ['Srp', 'Srp256']] as const) {
      const wire = await FirebirdWire.connect({ ...admin, user, password, plugins, connectTimeoutMs: 10_000 });
      assert.equal(wire.plugin, 'Srp', `login ${i}`);
      lengths.add(wire.srpSaltLength);
      wire.close();
    }
  }
  assert.ok(lengths.has(64), `salts seen: ${[...lengths]}`);
  assert.ok(
    [...lengths].some((n) => n < 64),
    `no salt with a leading zero in 120 passwords: ${[...lengths]}`,
  );
});

test('firebird: a Legacy_Auth login (the shared server lists Legacy_Auth in AuthServer)', async (t) => {
  const db = await freshDatabase(t, 'firebird');
  if (!db) return;
  const admin = db.target as ServerTarget;
  const user = `HR_LEG${process.pid}`;
  const conn = new FirebirdConnection(await FirebirdWire.connect({ ...admin, password: admin.password ?? 'masterkey', connectTimeoutMs: 10_000 }), admin);
  t.after(async () => {
    await conn.query(`DROP USER ${user} USING PLUGIN Legacy_UserManager`).catch(() => {});
    await conn.close();
    await db.dispose();
  });
  await conn.query(`CREATE OR ALTER USER ${user} PASSWORD 'legacy1' USING PLUGIN Legacy_UserManager`);
  const wire = await FirebirdWire.connect({ ...admin, user, password: 'legacy1', plugins: ['Legacy_Auth'], connectTimeoutMs: 10_000 });
  const legacy = new FirebirdConnection(wire, admin);
  const rows = await legacy.query('SELECT TRIM(MON$AUTH_METHOD), TRIM(MON$USER) FROM MON$ATTACHMENTS WHERE MON$ATTACHMENT_ID = CURRENT_CONNECTION');
  assert.deepEqual(rows, [['Legacy_Auth', user]]);
  await legacy.close();
});
