import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readHandshake, type ServerHandshake } from '../../src/drivers/mariadb/wire/handshake.js';
import { CAPS, MARIADB_CACHE_METADATA } from '../../src/drivers/mariadb/wire/protocol.js';
import { MalformedPacket, scanPackets } from '../../src/drivers/mariadb/wire/responses.js';
import { deliverInReads, mariadbPacket as packet, u16, u32 } from '../helpers/wire-bytes.js';

/**
 * The server's greeting (Protocol::HandshakeV10) read from bytes with no socket, as MariadbWire
 * reads it (drivers/mariadb/wire/handshake.ts): greetings of MariaDB 10.11 (captured from a real
 * server), MariaDB 11 and MySQL 8, whole, cut at every byte, and split into reads at every byte
 * boundary behind the transport's Framer.
 */

/** A greeting as MariaDB 10.11.19 (Debian 12) sent it to a client on 127.0.0.1:3306, packet header included. */
const MARIADB_10_11 = Buffer.from(
  '640000000a352e352e352d31302e31312e31392d4d6172696144422d302b646562313275310038000000644a27216d256b6d00fef72d0200ff81' +
    '150000000000001d00000065305d635a7b7c7d7e232d5a006d7973716c5f6e61746976655f70617373776f726400',
  'hex',
);

interface GreetingFields {
  version: string;
  threadId: number;
  capabilities: number;
  collation: number;
  /** The four bytes after the six reserved ones: MariaDB's extended capabilities, or MySQL's filler. */
  lastFiller: number;
  scramble: Buffer;
  /** Absent: no plugin name at all (a server without PLUGIN_AUTH). */
  plugin: string | undefined;
}

/** A HandshakeV10 payload built from its documented layout. */
function greeting(f: GreetingFields): Buffer {
  return Buffer.concat([
    Buffer.from([10]),
    Buffer.from(`${f.version}\0`),
    u32(f.threadId),
    f.scramble.subarray(0, 8),
    Buffer.from([0]),
    u16(f.capabilities & 0xffff),
    Buffer.from([f.collation]),
    u16(0x0002), // status: autocommit
    u16(Math.floor(f.capabilities / 0x10000)),
    Buffer.from([f.scramble.length + 1]),
    Buffer.alloc(6),
    u32(f.lastFiller),
    f.scramble.subarray(8),
    Buffer.from([0]),
    f.plugin === undefined ? Buffer.alloc(0) : Buffer.from(`${f.plugin}\0`),
  ]);
}

const SCRAMBLE = Buffer.from('0123456789abcdefghij');
/** MySQL 8.0's capabilities: every low flag, CLIENT_LONG_PASSWORD (bit 0) among them, so no MariaDB extension follows. */
const MYSQL_8 = greeting({
  version: '8.0.36',
  threadId: 0x01020304,
  capabilities: 0xdfffffff,
  collation: 255,
  lastFiller: 0xffffffff, // not read: bit 0 says this is not MariaDB's extension
  scramble: SCRAMBLE,
  plugin: 'caching_sha2_password',
});
/** MariaDB 11 no longer prefixes its version with 5.5.5-. */
const MARIADB_11 = greeting({
  version: '11.4.2-MariaDB-ubu2404',
  threadId: 9,
  capabilities: 0x81fff7fe,
  collation: 45,
  lastFiller: 0x1d,
  scramble: SCRAMBLE,
  plugin: 'mysql_native_password',
});
/** A server that names no plugin (no PLUGIN_AUTH): the scramble is for mysql_native_password. */
const NO_PLUGIN = greeting({
  version: '5.5.5-10.1.48-MariaDB',
  threadId: 3,
  capabilities: (0xf7fe | CAPS.PROTOCOL_41) & ~CAPS.PLUGIN_AUTH,
  collation: 8,
  lastFiller: 0,
  scramble: SCRAMBLE,
  plugin: undefined,
});

const EXPECTED: { name: string; payload: Buffer; fields: ServerHandshake }[] = [
  {
    name: 'MariaDB 10.11 (captured)',
    payload: MARIADB_10_11.subarray(4),
    fields: {
      serverVersion: '5.5.5-10.11.19-MariaDB-0+deb12u1',
      threadId: 56,
      scramble: Buffer.from("dJ'!m%kme0]cZ{|}~#-Z", 'latin1'),
      capabilities: 0x81fff7fe,
      extendedCapabilities: 0x1d,
      collation: 45,
      status: 2,
      authPlugin: 'mysql_native_password',
    },
  },
  {
    name: 'MySQL 8.0',
    payload: MYSQL_8,
    fields: {
      serverVersion: '8.0.36',
      threadId: 0x01020304,
      scramble: SCRAMBLE,
      capabilities: 0xdfffffff,
      extendedCapabilities: 0,
      collation: 255,
      status: 2,
      authPlugin: 'caching_sha2_password',
    },
  },
  {
    name: 'MariaDB 11.4',
    payload: MARIADB_11,
    fields: {
      serverVersion: '11.4.2-MariaDB-ubu2404',
      threadId: 9,
      scramble: SCRAMBLE,
      capabilities: 0x81fff7fe,
      extendedCapabilities: 0x1d,
      collation: 45,
      status: 2,
      authPlugin: 'mysql_native_password',
    },
  },
  {
    name: 'a server without PLUGIN_AUTH',
    payload: NO_PLUGIN,
    fields: {
      serverVersion: '5.5.5-10.1.48-MariaDB',
      threadId: 3,
      scramble: SCRAMBLE,
      capabilities: (0xf7fe | CAPS.PROTOCOL_41) & ~CAPS.PLUGIN_AUTH,
      extendedCapabilities: 0,
      collation: 8,
      status: 2,
      authPlugin: 'mysql_native_password',
    },
  },
];

test('the captured MariaDB 10.11 greeting is one whole packet of sequence 0 and offers the metadata cache', () => {
  assert.equal(MARIADB_10_11.readUIntLE(0, 3), MARIADB_10_11.length - 4);
  assert.equal(MARIADB_10_11[3], 0);
  const fields = readHandshake(MARIADB_10_11, 4, MARIADB_10_11.length);
  assert.ok(fields.capabilities & CAPS.PROTOCOL_41);
  assert.ok(fields.capabilities & CAPS.DEPRECATE_EOF);
  assert.ok(fields.extendedCapabilities & MARIADB_CACHE_METADATA);
});

for (const { name, payload, fields } of EXPECTED) {
  test(`${name}: the greeting reads as its version, thread id, scramble, capabilities and plugin`, () => {
    assert.deepEqual(readHandshake(payload, 0, payload.length), fields);
  });

  test(`${name}: the greeting cut at every byte is a MalformedPacket, even with the missing bytes after its end`, () => {
    // The cut packet lies inside the whole one: a reader that ignored `end` would find every field.
    const inside = Buffer.concat([Buffer.from('xx'), payload]);
    for (let length = 0; length < payload.length; length++) {
      assert.throws(() => readHandshake(inside, 2, 2 + length), MalformedPacket, `cut to ${length} of ${payload.length} bytes`);
    }
    assert.deepEqual(readHandshake(inside, 2, 2 + payload.length), fields);
  });

  test(`${name}: the greeting split into two reads at every byte boundary, with a packet after it, reads the same`, () => {
    const next = packet(1, Buffer.from([0x00, 0, 0, 2, 0, 0, 0]));
    const stream = Buffer.concat([packet(0, payload), next]);
    for (let cut = 1; cut < stream.length - next.length; cut++) {
      const read: ServerHandshake[] = [];
      deliverInReads(stream, [cut, stream.length - next.length - cut, next.length], (data, start, end) =>
        scanPackets(data, start, end, {
          packet(bytes, from, to, sequence) {
            if (sequence === 0) read.push(readHandshake(bytes, from, to));
          },
        }),
      );
      // Checked after the last read overwrote the transport's buffer: the scramble must be a copy.
      assert.deepEqual(read, [fields], `cut at ${cut}`);
    }
  });
}

test('a greeting of another protocol version, or an empty one, is a MalformedPacket naming what it got', () => {
  const v9 = Buffer.concat([Buffer.from([9]), MYSQL_8.subarray(1)]);
  assert.throws(() => readHandshake(v9, 0, v9.length), { name: 'MalformedPacket', message: /protocol 9 \(10 expected\)/ });
  assert.throws(() => readHandshake(Buffer.alloc(0), 0, 0), { name: 'MalformedPacket', message: /an empty greeting/ });
});

test('each part of a cut greeting is named: the version, the fixed fields, the scramble, the plugin', () => {
  const versionEnd = MYSQL_8.indexOf(0);
  const cuts: [number, RegExp][] = [
    [versionEnd, /server's version/],
    [versionEnd + 1 + 30, /fixed fields/],
    [versionEnd + 1 + 31 + 12, /scramble/],
    [MYSQL_8.length - 1, /authentication plugin's name/],
  ];
  for (const [end, message] of cuts) assert.throws(() => readHandshake(MYSQL_8, 0, end), { name: 'MalformedPacket', message });
});
