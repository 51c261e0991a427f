import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BindWriter, writeInteger } from '../../src/drivers/postgres/wire/bind.js';
import { PacketReader, PacketWriter } from '../../src/drivers/mariadb/wire/packets.js';
import { MAX_PACKET_PAYLOAD, TYPE } from '../../src/drivers/mariadb/wire/protocol.js';
import { inlineParameters, literal, readBinaryRow, writeParams } from '../../src/drivers/mariadb/wire/values.js';

const EDGE_INTEGERS = [0, 1, -1, 9, 10, -10, 255, -256, 2 ** 31 - 1, -(2 ** 31), 2 ** 32 + 5, -(2 ** 40) - 3, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER];

test('PostgreSQL Bind: integers written as digits, strings, NULL and other values, lengths right', () => {
  const out = Buffer.alloc(32);
  for (const v of EDGE_INTEGERS) assert.equal(out.toString('latin1', 0, writeInteger(out, 0, v)), String(v));
  const writer = new BindWriter();
  const head = Buffer.from('\0h1\0\0\0', 'latin1'); // portal "", statement "h1", no parameter formats
  const params = [42, -7, 'tÄxt ✓', null, 1.5, 12345678901234567890n, true, 'x'.repeat(5000)];
  const length = writer.write(head, params);
  const b = writer.buffer.subarray(0, length);
  assert.equal(b[0], 0x42);
  const bindLength = b.readInt32BE(1);
  let at = 5 + head.length;
  assert.equal(b.readInt16BE(at), params.length);
  at += 2;
  const texts: (string | null)[] = [];
  for (let i = 0; i < params.length; i++) {
    const n = b.readInt32BE(at);
    at += 4;
    texts.push(n < 0 ? null : b.toString('utf8', at, at + n));
    at += Math.max(n, 0);
  }
  assert.deepEqual(texts, ['42', '-7', 'tÄxt ✓', null, '1.5', '12345678901234567890', 't', 'x'.repeat(5000)]);
  assert.equal(b.readInt16BE(at), 0); // results in text
  assert.equal(1 + bindLength, at + 2);
  // Execute and Sync follow the Bind.
  assert.deepEqual([...b.subarray(at + 2)], [0x45, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0x53, 0, 0, 0, 4]);
});

test('MariaDB COM_STMT_EXECUTE parameters: NULL bitmap, types and binary values', () => {
  for (const v of EDGE_INTEGERS) {
    const w = new PacketWriter().begin();
    writeParams(w, [v]);
    assert.equal(w.buffer.readUInt16LE(4 + 2), TYPE.LONGLONG);
    assert.equal(w.buffer.readBigInt64LE(4 + 4), BigInt(v), `integer ${v}`);
  }
  const date = new Date(2026, 11, 2, 13, 14, 15, 678);
  const w = new PacketWriter().begin();
  writeParams(w, [null, 'héllo', 2.25, true, 2n ** 63n + 1n, date, null, 'a', null]);
  const b = w.buffer;
  // Nine parameters: two bitmap bytes, NULLs at 0, 6 and 8.
  assert.deepEqual([b[4], b[5]], [0b01000001, 0b00000001]);
  assert.equal(b[6], 1); // types follow
  const types = Array.from({ length: 9 }, (_, i) => b.readUInt16LE(7 + 2 * i));
  assert.deepEqual(types, [TYPE.NULL, TYPE.VAR_STRING, TYPE.DOUBLE, TYPE.TINY, TYPE.LONGLONG | 0x8000, TYPE.DATETIME, TYPE.NULL, TYPE.VAR_STRING, TYPE.NULL]);
  const r = new PacketReader().reset(b, 7 + 18, w.length);
  assert.equal(r.lenencString(), 'héllo');
  assert.equal(b.readDoubleLE(r.at), 2.25);
  r.at += 8;
  assert.equal(r.u8(), 1);
  assert.equal(b.readBigUInt64LE(r.at), 2n ** 63n + 1n);
  r.at += 8;
  assert.deepEqual([r.u8(), r.u16(), r.u8(), r.u8(), r.u8(), r.u8(), r.u8(), r.u32()], [11, 2026, 12, 2, 13, 14, 15, 678_000]);
  assert.equal(r.lenencString(), 'a');
});

test('MariaDB packets of 16 MiB or more are split into full packets and a shorter last one', () => {
  const w = new PacketWriter().begin(0);
  w.u8(0x03).text('x'.repeat(MAX_PACKET_PAYLOAD));
  const length = w.finish();
  const b = w.buffer.subarray(0, length);
  const first = b[0]! | (b[1]! << 8) | (b[2]! << 16);
  assert.equal(first, MAX_PACKET_PAYLOAD);
  assert.equal(b[3], 0);
  const next = 4 + first;
  assert.equal(b[next]! | (b[next + 1]! << 8) | (b[next + 2]! << 16), 1); // the one byte left over
  assert.equal(b[next + 3], 1);
  assert.equal(length, 4 + MAX_PACKET_PAYLOAD + 4 + 1);
});

test('MariaDB binary rows: NULLs, signed and unsigned integers, doubles, dates, text and bytes', () => {
  const columns = [
    { type: TYPE.LONG, flags: 0, collation: 63 },
    { type: TYPE.LONG, flags: 0x20, collation: 63 },
    { type: TYPE.LONGLONG, flags: 0, collation: 63 },
    { type: TYPE.DOUBLE, flags: 0, collation: 63 },
    { type: TYPE.VAR_STRING, flags: 0, collation: 45 },
    { type: TYPE.BLOB, flags: 0, collation: 63 },
    { type: TYPE.DATETIME, flags: 0, collation: 63 },
    { type: TYPE.NEWDECIMAL, flags: 0, collation: 63 },
    { type: TYPE.TINY, flags: 0, collation: 63 },
  ];
  const values = Buffer.alloc(200);
  let at = 0;
  values.writeInt32LE(-5, at);
  at += 4;
  values.writeUInt32LE(4_000_000_000, at);
  at += 4;
  values.writeBigInt64LE(-(2n ** 62n), at);
  at += 8;
  values.writeDoubleLE(0.125, at);
  at += 8;
  const text = Buffer.from('naïve');
  values[at++] = text.length;
  at += text.copy(values, at);
  values[at++] = 2;
  values[at++] = 0xde;
  values[at++] = 0xad;
  values[at++] = 7; // DATETIME without microseconds
  values.writeUInt16LE(2026, at);
  at += 2;
  for (const x of [12, 2, 1, 2, 3]) values[at++] = x;
  const decimal = Buffer.from('12345678901234567890.12');
  values[at++] = decimal.length;
  at += decimal.copy(values, at);
  // The last column (TINY) is NULL: bit 8 + 2 = 10 of the bitmap.
  const row = Buffer.concat([Buffer.from([0b00000000, 0b00000100]), values.subarray(0, at)]);
  const decoded = readBinaryRow(new PacketReader().reset(row, 0, row.length), columns);
  assert.deepEqual(decoded, [
    -5,
    4_000_000_000,
    -(2n ** 62n),
    0.125,
    'naïve',
    Buffer.from([0xde, 0xad]),
    new Date(2026, 11, 2, 1, 2, 3),
    '12345678901234567890.12',
    null,
  ]);
});

test('MariaDB text queries: placeholders outside quotes and comments, literals escaped for the server mode', () => {
  assert.equal(
    inlineParameters('SELECT ?, \'?\', "?", `?` -- ?\n, ? # ?\n, /* ? */ ?', [1, "it's", null], false),
    "SELECT 1, '?', \"?\", `?` -- ?\n, 'it\\'s' # ?\n, /* ? */ NULL",
  );
  assert.equal(inlineParameters("SELECT 'a\\'?', ?", [2], false), "SELECT 'a\\'?', 2");
  assert.equal(inlineParameters("SELECT 'a''?', ?", [3], true), "SELECT 'a''?', 3");
  assert.throws(() => inlineParameters('SELECT ?, ?', [1], false), /more placeholders/);
  assert.throws(() => inlineParameters('SELECT ?', [1, 2], false), /1 placeholder\(s\) but 2/);
  assert.equal(literal('a\\b\'c"d\n\0\x1a', false), "'a\\\\b\\'c\\\"d\\n\\0\\Z'");
  assert.equal(literal("it's \\ here", true), "'it''s \\ here'");
  assert.equal(literal(true, false), 'TRUE');
  assert.equal(literal(10n ** 20n, false), '100000000000000000000');
  assert.throws(() => literal(Infinity, false), /Infinity/);
});
