import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type net from 'node:net';
import type { ServerTarget } from '../../src/config/target.js';
import { DbError } from '../../src/drivers/errors.js';
import { loadReactor } from '../../src/drivers/transport/native-transport.js';
import { connectAndSelect, fakeServer, noise, reader, writeBytewise, writeSplit } from '../helpers/fake-server.js';
import { mariadbPacket as packet, u16, u32 } from '../helpers/wire-bytes.js';

/**
 * headroom's MariaDB client against a fake server on a loopback port that sends truncated,
 * corrupt, foreign and split packets: every case ends in a DbError (no crash, no hang), and a
 * valid exchange cut anywhere still works.
 */

const lenencString = (text: string): Buffer => Buffer.concat([Buffer.from([Buffer.byteLength(text)]), Buffer.from(text)]);

/** Protocol::HandshakeV10 with mysql_native_password, PROTOCOL_41, SECURE_CONNECTION, PLUGIN_AUTH and DEPRECATE_EOF. */
const GREETING = packet(
  0,
  Buffer.concat([
    Buffer.from([0x0a]),
    Buffer.from('5.5.5-10.11.0-MariaDB-fake\0'),
    u32(7),
    Buffer.from('abcdefgh'),
    Buffer.from([0]),
    u16(0xf7fe), // capabilities, low half (no CLIENT_MYSQL bit: MariaDB's extended capabilities follow)
    Buffer.from([0x2d]),
    u16(0x0002), // status: autocommit
    u16(0x0108), // capabilities, high half: PLUGIN_AUTH, DEPRECATE_EOF
    Buffer.from([21]),
    Buffer.alloc(6),
    u32(0), // MariaDB's extended capabilities
    Buffer.from('ijklmnopqrst\0'),
    Buffer.from('mysql_native_password\0'),
  ]),
);
const OK_AFTER_LOGIN = packet(2, Buffer.from([0, 0, 0, 2, 0, 0, 0]));
/** The text-protocol answer to SELECT 1 AS x: a column count, one column definition, one row, the closing OK (0xfe). */
const SELECT_ONE_ANSWER = Buffer.concat([
  packet(1, Buffer.from([1])),
  packet(
    2,
    Buffer.concat([
      lenencString('def'),
      lenencString(''),
      lenencString(''),
      lenencString(''),
      lenencString('x'),
      lenencString(''),
      Buffer.from([0x0c]),
      u16(63),
      u32(1),
      Buffer.from([0x08]),
      u16(0x81),
      Buffer.from([0, 0, 0]),
    ]),
  ),
  packet(3, lenencString('1')),
  packet(4, Buffer.from([0xfe, 0, 0, 2, 0, 0, 0])),
]);

/** One whole packet from the client. */
const packetComplete = (b: Buffer): boolean => b.length >= 4 && b.length >= 4 + (b[0]! | (b[1]! << 8) | (b[2]! << 16));

function target(port: number): ServerTarget {
  return { dbms: 'mariadb', host: '127.0.0.1', port, user: 'root', password: undefined, database: 'test', connectTimeoutMs: 2000 };
}

/** Connects and runs SELECT 1 against the fake server on `port`. */
function attempt(port: number): Promise<unknown> {
  return connectAndSelect(target(port));
}

function assertCleanError(outcome: unknown, pattern: RegExp): void {
  assert.ok(outcome instanceof DbError, `expected a DbError, got ${outcome instanceof Error ? outcome.stack : JSON.stringify(outcome)}`);
  assert.match(outcome.message, pattern);
  assert.ok(!outcome.message.includes('\n'), outcome.message);
}

/** Greets, takes the login, and then lets `then` play the rest. */
function afterLogin(t: TestContext, then: (socket: net.Socket, read: ReturnType<typeof reader>) => void | Promise<void>): Promise<number> {
  return fakeServer(t, (socket) => {
    const read = reader(socket);
    socket.write(GREETING);
    void read.until(packetComplete).then(async () => {
      socket.write(OK_AFTER_LOGIN);
      await read.until(packetComplete);
      await then(socket, read);
    });
  });
}

test('mariadb wire: a truncated greeting and then a close is a connection error naming the server', async (t) => {
  const port = await fakeServer(t, (socket) => void socket.end(GREETING.subarray(0, 30)));
  const outcome = await attempt(port);
  assertCleanError(outcome, new RegExp(`closed by the server at 127\\.0\\.0\\.1:${port} during the handshake`));
});

test('mariadb wire: a greeting packet shorter than its fields is a malformed packet, not a scramble read from the bytes after it', async (t) => {
  // The packet ends inside the scramble's second part; the bytes after it would complete the fields.
  const cut = packet(0, GREETING.subarray(4, 4 + 65));
  const port = await fakeServer(t, (socket) => void socket.write(Buffer.concat([cut, GREETING.subarray(4 + 65)])));
  assertCleanError(await attempt(port), new RegExp(`malformed packet from 127\\.0\\.0\\.1:${port}: a greeting cut short in its scramble`));
});

test('mariadb wire: a server that accepts and resets at once is named with its host and port', async (t) => {
  const port = await fakeServer(t, (socket) => socket.resetAndDestroy());
  assertCleanError(await attempt(port), new RegExp(`127\\.0\\.0\\.1:${port}`));
});

test('mariadb wire: a first packet that is not a greeting (absurd length, another sequence, random bytes) fails at once', async (t) => {
  for (const first of [
    Buffer.from([0xff, 0xff, 0xff, 0, 0x0a, 1, 2, 3]),
    packet(1, GREETING.subarray(4)),
    Buffer.from('SSH-2.0-OpenSSH_9.2\r\n'),
    noise(1, 64),
  ]) {
    const port = await fakeServer(t, (socket) => void socket.write(first));
    const started = Date.now();
    assertCleanError(await attempt(port), /is a server that sent .*, not MariaDB/);
    assert.ok(Date.now() - started < 1500, `failed only after ${Date.now() - started} ms`);
  }
});

test('mariadb wire: an unexpected packet during the login, and corrupt or truncated answers, end cleanly', async (t) => {
  const unexpected = await fakeServer(t, (socket) => {
    socket.write(GREETING);
    void reader(socket)
      .until(packetComplete)
      .then(() => socket.write(packet(2, Buffer.from([0x42, 1, 2]))));
  });
  assertCleanError(await attempt(unexpected), /unexpected packet 0x42 during the handshake/);
  const truncated = await afterLogin(t, (socket) => void socket.end(SELECT_ONE_ANSWER.subarray(0, 20)));
  assertCleanError(await attempt(truncated), /closed by the server/);
  // A packet that claims 16 MiB (a long packet's first part) and then the server leaves.
  const long = await afterLogin(t, (socket) => void socket.end(Buffer.from([0xff, 0xff, 0xff, 1, 1])));
  assertCleanError(await attempt(long), /closed by the server/);
  // A column definition shorter than its fields.
  const corrupt = await afterLogin(t, (socket) => void socket.end(Buffer.concat([packet(1, Buffer.from([1])), packet(2, Buffer.from([0xfc]))])));
  assert.ok((await attempt(corrupt)) instanceof DbError);
});

test('mariadb wire: random bytes in an answer end in a clean error', async (t) => {
  for (let seed = 1; seed <= 12; seed++) {
    const port = await afterLogin(t, (socket) => void socket.end(noise(seed, 300)));
    assert.ok((await attempt(port)) instanceof DbError, `seed ${seed}`);
  }
});

for (const kind of ['native', 'node'] as const) {
  test(`mariadb wire (${kind} transport): a valid greeting, login and answer split at every byte boundary still connect and read the row`, async (t) => {
    if (kind === 'native' && !loadReactor()) return t.skip('the native reactor is not built');
    const before = process.env['HEADROOM_TRANSPORT'];
    process.env['HEADROOM_TRANSPORT'] = kind;
    t.after(() => (before === undefined ? delete process.env['HEADROOM_TRANSPORT'] : (process.env['HEADROOM_TRANSPORT'] = before)));
    const parts = [GREETING, OK_AFTER_LOGIN, SELECT_ONE_ANSWER];
    const total = parts.reduce((sum, part) => sum + part.length, 0);
    let cut = 0;
    const port = await fakeServer(t, (socket) => {
      const at = cut;
      const read = reader(socket);
      // Each part is sent after the client's packet that asks for it, cut where `at` falls in it.
      const send = async (index: number): Promise<void> => {
        const offset = parts.slice(0, index).reduce((sum, part) => sum + part.length, 0);
        const part = parts[index]!;
        if (at === total) await writeBytewise(socket, part);
        else if (at >= offset && at < offset + part.length) await writeSplit(socket, part, at - offset);
        else socket.write(part);
      };
      void (async () => {
        await send(0);
        await read.until(packetComplete);
        await send(1);
        await read.until(packetComplete);
        await send(2);
      })();
    });
    for (cut = 1; cut <= total; cut++) {
      const outcome = await attempt(port);
      assert.ok(Array.isArray(outcome), `cut at byte ${cut}: ${String(outcome)}`);
      assert.equal(String((outcome as unknown[][])[0]![0]), '1', `cut at byte ${cut}`);
    }
  });
}
