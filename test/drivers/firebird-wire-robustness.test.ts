import { test } from 'node:test';
import assert from 'node:assert/strict';
import type net from 'node:net';
import type { ServerTarget } from '../../src/config/target.js';
import { DbError } from '../../src/drivers/errors.js';
import { createDriver } from '../helpers/drivers.js';
import { fakeServer, noise, within } from '../helpers/fake-server.js';

/**
 * The Firebird driver (node-firebird underneath) against a fake server on a loopback port: a
 * close, a reset, a truncated op_accept, random bytes, and servers that accept and then say
 * nothing or nonsense. Each ends in a DbError naming the server within the connect timeout (plus
 * the probe of what listens there), never a hang: node-firebird alone waits without end.
 */

const CONNECT_TIMEOUT_MS = 1500;

function target(port: number): ServerTarget {
  return {
    dbms: 'firebird',
    host: '127.0.0.1',
    port,
    user: 'SYSDBA',
    password: 'masterkey',
    database: '/tmp/headroom-fake.fdb',
    connectTimeoutMs: CONNECT_TIMEOUT_MS,
  };
}

const OP_ACCEPT = Buffer.from('000000030000000a0000000100000003', 'hex');

const SCENARIOS: [string, (socket: net.Socket) => void][] = [
  ['closes at once', (socket) => socket.destroy()],
  ['resets at once', (socket) => socket.resetAndDestroy()],
  ['sends half an op_accept and closes', (socket) => socket.once('data', () => socket.end(OP_ACCEPT.subarray(0, 6)))],
  ['sends random bytes and closes', (socket) => socket.once('data', () => socket.end(noise(3, 64)))],
  ['sends random bytes and stays', (socket) => socket.once('data', () => socket.write(noise(4, 64)))],
  ['accepts the protocol and then says nothing', (socket) => socket.once('data', () => socket.write(OP_ACCEPT))],
  ['says nothing at all', () => {}],
  ['sends an absurd length and stays', (socket) => socket.once('data', () => socket.write(Buffer.from('00000009000000007ffffff0', 'hex')))],
];

for (const [name, serve] of SCENARIOS) {
  test(`firebird wire: a server that ${name} gives a clean error naming it`, async (t) => {
    const port = await fakeServer(t, serve);
    const started = Date.now();
    const outcome = await within(
      CONNECT_TIMEOUT_MS + 5000,
      'attach',
      createDriver(target(port))
        .connect()
        .then(async (conn) => {
          await conn.close();
          return 'attached';
        })
        .catch((error: unknown) => error),
    );
    assert.ok(outcome instanceof DbError, `expected a DbError, got ${String(outcome)}`);
    assert.equal(outcome.errorClass, 'connection_lost', outcome.message);
    assert.match(outcome.message, new RegExp(`127\\.0\\.0\\.1:${port}`));
    assert.ok(!outcome.message.includes('\n'));
    assert.ok(Date.now() - started < CONNECT_TIMEOUT_MS + 4000, `took ${Date.now() - started} ms`);
  });
}
