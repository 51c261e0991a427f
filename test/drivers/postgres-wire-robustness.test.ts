import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type net from 'node:net';
import type { ServerTarget } from '../../src/config/target.js';
import { DbError } from '../../src/drivers/errors.js';
import { postgresTlsSettings } from '../../src/drivers/postgres/tls-options.js';
import { loadReactor } from '../../src/drivers/transport/native-transport.js';
import { connectAndSelect, fakeServer, noise, reader, writeBytewise, writeSplit } from '../helpers/fake-server.js';
import { int16, int32 } from '../helpers/wire-bytes.js';

/**
 * headroom's PostgreSQL client against a fake server on a loopback port that sends truncated,
 * oversized, corrupt and split messages: every case ends in a DbError (no crash, no hang), and a
 * valid exchange cut anywhere still works.
 */

const message = (type: string, body: Buffer): Buffer => Buffer.concat([Buffer.from(type), int32(body.length + 4), body]);
const parameter = (name: string, value: string): Buffer => message('S', Buffer.from(`${name}\0${value}\0`));

const STARTUP_ANSWER = Buffer.concat([
  message('R', int32(0)),
  parameter('server_version', '15.0'),
  parameter('in_hot_standby', 'off'),
  parameter('default_transaction_read_only', 'off'),
  message('K', Buffer.concat([int32(4242), int32(7)])),
  message('Z', Buffer.from('I')),
]);
/** The answer to SELECT 1 AS x: one int4 column, one row. */
const ROW_DESCRIPTION = message('T', Buffer.concat([int16(1), Buffer.from('x\0'), int32(0), int16(0), int32(23), int16(4), int32(-1), int16(0)]));
const SELECT_ONE_ANSWER = Buffer.concat([
  ROW_DESCRIPTION,
  message('D', Buffer.concat([int16(1), int32(1), Buffer.from('1')])),
  message('C', Buffer.from('SELECT 1\0')),
  message('Z', Buffer.from('I')),
]);

/** The startup packet: an int32 length, then the rest. */
const startupComplete = (b: Buffer): boolean => b.length >= 4 && b.length >= b.readInt32BE(0);
/** A simple Query message ('Q' + length). */
const queryComplete = (b: Buffer): boolean => b.length >= 5 && b.length >= 1 + b.readInt32BE(1);

/** sslmode=disable: these fake servers speak the startup protocol only (the TLS request has tests of its own, tls-wire.test.ts). */
function target(port: number): ServerTarget {
  const tls = postgresTlsSettings(new URLSearchParams({ sslmode: 'disable' }), {});
  return { dbms: 'postgres', host: '127.0.0.1', port, user: 'u', password: 'pw', database: 'db', connectTimeoutMs: 2000, ...(tls ? { tls } : {}) };
}

/** Connects and runs SELECT 1 against the fake server on `port`. */
function attempt(port: number): Promise<unknown> {
  return connectAndSelect(target(port));
}

function assertCleanError(outcome: unknown, pattern: RegExp, port: number): void {
  assert.ok(outcome instanceof DbError, `expected a DbError, got ${outcome instanceof Error ? outcome.stack : JSON.stringify(outcome)}`);
  assert.match(outcome.message, pattern);
  assert.ok(!outcome.message.includes('\n'), outcome.message);
  assert.ok(
    outcome.message.includes(`127.0.0.1:${port}`) || outcome.code === 'WRONG_SERVER' || /^\d/.test(outcome.code ?? ''),
    `the error names the server: ${outcome.message}`,
  );
}

/** Answers the startup with `answer(socket)` once the startup packet is in. */
function afterStartup(t: TestContext, answer: (socket: net.Socket) => void | Promise<void>): Promise<number> {
  return fakeServer(t, (socket) => {
    void reader(socket)
      .until(startupComplete)
      .then(() => answer(socket));
  });
}

test('postgres wire: a truncated message and then a close is a connection error naming the server', async (t) => {
  const port = await afterStartup(t, (socket) => void socket.end(STARTUP_ANSWER.subarray(0, 7)));
  assertCleanError(await attempt(port), /closed it during startup/, port);
});

test('postgres wire: a server that accepts and resets at once is named with its host and port', async (t) => {
  const port = await fakeServer(t, (socket) => socket.resetAndDestroy());
  const outcome = await attempt(port);
  assertCleanError(outcome, /ECONNRESET|closed/, port);
});

test('postgres wire: absurd lengths (negative, under 4, over 1 GB, a short type over 30,000) fail at once, the socket still open', async (t) => {
  const absurd = (type: string, length: number): Buffer => Buffer.concat([Buffer.from(type), int32(length), Buffer.alloc(8)]);
  // At startup: the answer to the startup packet.
  for (const length of [-16, 0, 3, 40_000, 0x7ffffff0]) {
    const port = await afterStartup(t, (socket) => void socket.write(absurd('R', length)));
    const started = Date.now();
    assertCleanError(await attempt(port), /malformed message .* invalid length/, port);
    assert.ok(Date.now() - started < 1500, `R length ${length}: failed only after ${Date.now() - started} ms`);
  }
  // In the answer to a query.
  for (const [type, length] of [
    ['T', -5],
    ['D', 0x7ffffff0],
    ['Z', 1_000_000],
  ] as const) {
    const port = await afterStartup(t, async (socket) => {
      socket.write(STARTUP_ANSWER);
      await reader(socket).until(queryComplete);
      socket.write(absurd(type, length));
    });
    const started = Date.now();
    assertCleanError(await attempt(port), /malformed message .* invalid length/, port);
    assert.ok(Date.now() - started < 1500, `${type} length ${length}: failed only after ${Date.now() - started} ms`);
  }
});

test('postgres wire: corrupt messages in an answer (a DataRow shorter than it says, an ErrorResponse without terminators) end cleanly', async (t) => {
  const shortRow = message('D', Buffer.concat([int16(3), int32(1000)]));
  const port = await afterStartup(t, async (socket) => {
    socket.write(STARTUP_ANSWER);
    await reader(socket).until(queryComplete);
    socket.write(Buffer.concat([ROW_DESCRIPTION, shortRow]));
  });
  assertCleanError(await attempt(port), /malformed message/, port);
  const noTerminator = message('E', Buffer.from('SERROR'));
  const port2 = await afterStartup(t, async (socket) => {
    socket.write(STARTUP_ANSWER);
    await reader(socket).until(queryComplete);
    socket.end(Buffer.concat([noTerminator, message('Z', Buffer.from('I'))]));
  });
  const outcome = await attempt(port2);
  assert.ok(outcome instanceof DbError, String(outcome));
});

test('postgres wire: random bytes, at startup or in an answer, end in a clean error', async (t) => {
  for (let seed = 1; seed <= 12; seed++) {
    const atStartup = await afterStartup(t, (socket) => void socket.write(noise(seed, 200)));
    assert.ok((await attempt(atStartup)) instanceof DbError, `seed ${seed} at startup`);
    const inAnswer = await afterStartup(t, async (socket) => {
      socket.write(STARTUP_ANSWER);
      await reader(socket).until(queryComplete);
      socket.end(noise(seed, 300));
    });
    assert.ok((await attempt(inAnswer)) instanceof DbError, `seed ${seed} in an answer`);
  }
});

for (const kind of ['native', 'node'] as const) {
  test(`postgres wire (${kind} transport): a valid startup and answer split at every byte boundary still connect and read the row`, async (t) => {
    if (kind === 'native' && !loadReactor()) return t.skip('the native reactor is not built');
    const before = process.env['HEADROOM_TRANSPORT'];
    process.env['HEADROOM_TRANSPORT'] = kind;
    t.after(() => (before === undefined ? delete process.env['HEADROOM_TRANSPORT'] : (process.env['HEADROOM_TRANSPORT'] = before)));
    const exchange = Buffer.concat([STARTUP_ANSWER, SELECT_ONE_ANSWER]);
    let cut = 0;
    const port = await fakeServer(t, (socket) => {
      const at = cut;
      const read = reader(socket);
      void read.until(startupComplete).then(async () => {
        // The cut falls in the startup answer or in the query's.
        if (at < STARTUP_ANSWER.length) await writeSplit(socket, STARTUP_ANSWER, at);
        else if (at === exchange.length) await writeBytewise(socket, STARTUP_ANSWER);
        else socket.write(STARTUP_ANSWER);
        await read.until(queryComplete);
        if (at >= STARTUP_ANSWER.length && at < exchange.length) await writeSplit(socket, SELECT_ONE_ANSWER, at - STARTUP_ANSWER.length);
        else if (at === exchange.length) await writeBytewise(socket, SELECT_ONE_ANSWER);
        else socket.write(SELECT_ONE_ANSWER);
      });
    });
    for (cut = 1; cut <= exchange.length; cut++) {
      assert.deepEqual(await attempt(port), [[1]], `cut at byte ${cut}`);
    }
  });
}
