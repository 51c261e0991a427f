import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MariadbServerError } from '../../src/drivers/mariadb/wire/errors.js';
import { PacketReader, PacketWriter } from '../../src/drivers/mariadb/wire/packets.js';
import { BINARY_COLLATION, FLAG_UNSIGNED, TYPE, UTF8MB4_GENERAL_CI, type Column } from '../../src/drivers/mariadb/wire/protocol.js';
import {
  MalformedPacket,
  readColumn,
  readEofStatus,
  readError,
  readOk,
  scanPackets,
  type OkFields,
  type PacketSink,
} from '../../src/drivers/mariadb/wire/responses.js';
import { readBinaryRow, readTextRow } from '../../src/drivers/mariadb/wire/values.js';
import { deliverInReads } from '../helpers/wire-bytes.js';

/**
 * MariaDB's server packets read from hand-built bytes, with no socket: the same scan and readers
 * the wire client runs (drivers/mariadb/wire/responses.ts, values.ts), behind the same Framer, fed
 * whole and cut into two reads at every byte boundary; corrupt packets end in MalformedPacket.
 */

const u16 = (n: number): Buffer => Buffer.from([n & 0xff, n >> 8]);
const u32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};
const packet = (sequence: number, ...payload: Buffer[]): Buffer => {
  const body = Buffer.concat(payload);
  return Buffer.concat([Buffer.from([body.length & 0xff, (body.length >> 8) & 0xff, body.length >> 16, sequence]), body]);
};
const lenenc = (n: number): Buffer => {
  const w = new PacketWriter().begin();
  w.lenenc(n);
  return Buffer.from(w.buffer.subarray(4, w.length));
};
const lenencString = (text: string | Buffer): Buffer => {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  return Buffer.concat([lenenc(bytes.length), bytes]);
};
const NULL_VALUE = Buffer.from([0xfb]);
/** Protocol::ColumnDefinition41 as the server sends it. */
const columnDefinition = (name: string, type: number, flags = 0, collation = UTF8MB4_GENERAL_CI): Buffer =>
  Buffer.concat([
    lenencString('def'),
    lenencString('test'),
    lenencString('t'),
    lenencString('t'),
    lenencString(name),
    lenencString(name),
    Buffer.from([0x0c]),
    u16(collation),
    u32(11),
    Buffer.from([type]),
    u16(flags),
    Buffer.from([0, 0, 0]), // decimals, filler
  ]);
/** OK_Packet: header, affected rows, last insert id, status, warnings. */
const ok = (header: number, affected: number, insertId: number, status: number): Buffer =>
  Buffer.concat([Buffer.from([header]), lenenc(affected), lenenc(insertId), u16(status), u16(0)]);
const err = (errno: number, state: string, message: string): Buffer => Buffer.concat([Buffer.from([0xff]), u16(errno), Buffer.from(`#${state}${message}`)]);
const reader = (payload: Buffer): PacketReader => new PacketReader().reset(payload, 0, payload.length);

test('length-encoded integers read back what PacketWriter wrote, at each width, and 0xfb reads as NULL', () => {
  const values = [0, 1, 250, 251, 0xffff, 0x10000, 0xffffff, 0x1000000, 2 ** 32, 2 ** 40 + 5, Number.MAX_SAFE_INTEGER];
  const widths = [1, 1, 1, 3, 3, 4, 4, 9, 9, 9, 9];
  values.forEach((n, i) => {
    const bytes = lenenc(n);
    assert.equal(bytes.length, widths[i], `${n} takes ${widths[i]} bytes`);
    const r = reader(bytes);
    assert.equal(r.lenenc(), n);
    assert.equal(r.at, bytes.length);
  });
  assert.equal(reader(NULL_VALUE).lenenc(), null);
  // Hand-built, not from the writer: 0xfc 0x34 0x12, 0xfd 0x56 0x34 0x12.
  assert.equal(reader(Buffer.from([0xfc, 0x34, 0x12])).lenenc(), 0x1234);
  assert.equal(reader(Buffer.from([0xfd, 0x56, 0x34, 0x12])).lenenc(), 0x123456);
  const s = reader(Buffer.concat([lenencString('héllo'), lenencString('x'.repeat(300)), Buffer.from('tail\0rest')]));
  assert.equal(s.lenencString(), 'héllo');
  assert.equal(s.lenencString(), 'x'.repeat(300));
  assert.equal(s.cstring(), 'tail');
  assert.equal(s.restString(), 'rest');
});

/** Columns of the text result below. */
const TEXT_COLUMNS: [string, number, number, number][] = [
  ['id', TYPE.LONG, 0, UTF8MB4_GENERAL_CI],
  ['name', TYPE.VAR_STRING, 0, UTF8MB4_GENERAL_CI],
  ['big', TYPE.LONGLONG, FLAG_UNSIGNED, UTF8MB4_GENERAL_CI],
  ['ratio', TYPE.DOUBLE, 0, UTF8MB4_GENERAL_CI],
  ['at', TYPE.DATETIME, 0, UTF8MB4_GENERAL_CI],
  ['raw', TYPE.BLOB, 0, BINARY_COLLATION],
  ['price', TYPE.NEWDECIMAL, 0, UTF8MB4_GENERAL_CI],
];

/** A text result set (DEPRECATE_EOF: no EOF after the columns, an OK with 0xfe at the end), then an UPDATE's OK and an ERR. */
const STREAM = Buffer.concat([
  packet(1, lenenc(TEXT_COLUMNS.length)),
  ...TEXT_COLUMNS.map(([name, type, flags, collation], i) => packet(2 + i, columnDefinition(name, type, flags, collation))),
  packet(
    9,
    lenencString('-17'),
    lenencString('héllo'),
    lenencString('18446744073709551615'),
    lenencString('1.5'),
    lenencString('2024-02-29 13:14:15.250'),
    lenencString(Buffer.from([0, 0xff, 0x10])),
    lenencString('12345.67'),
  ),
  packet(10, NULL_VALUE, lenencString(''), NULL_VALUE, lenencString('-0.25'), lenencString('0000-00-00 00:00:00'), lenencString(''), NULL_VALUE),
  packet(11, ok(0xfe, 0, 0, 0x0002)),
  packet(1, ok(0x00, 3, 0, 0x0003)),
  packet(1, err(1062, '23000', "Duplicate entry '1' for key 'PRIMARY'")),
]);

const EXPECTED = [
  { count: 7 },
  ...TEXT_COLUMNS.map(([, type, flags, collation]) => ({ column: { type, flags, collation } })),
  { row: [-17, 'héllo', 18446744073709551615n, 1.5, new Date(2024, 1, 29, 13, 14, 15, 250), Buffer.from([0, 0xff, 0x10]), '12345.67'] },
  { row: [null, '', null, -0.25, null, Buffer.alloc(0), null] },
  { ok: { affectedRows: 0, lastInsertId: 0, status: 2 } },
  { ok: { affectedRows: 3, lastInsertId: 0, status: 3 } },
  { error: { errno: 1062, sqlState: '23000', message: "Duplicate entry '1' for key 'PRIMARY'" } },
];

/** Reads each packet as the client does for a text query's answer: a column count, its columns, rows until 0xfe; then OKs and ERRs. */
function decoded(): { sink: PacketSink; out: unknown[] } {
  const out: unknown[] = [];
  const r = new PacketReader();
  const fields: OkFields = { affectedRows: -1, lastInsertId: -1, status: -1 };
  let columns: Column[] | undefined;
  let left = -1;
  const sink: PacketSink = {
    packet(data, start, end) {
      r.reset(data, start, end);
      const first = data[start];
      if (first === 0xff) {
        const e = readError(r);
        return void out.push({ error: { errno: e.errno, sqlState: e.sqlState, message: e.message } });
      }
      if (first === 0x00 && columns === undefined) return void out.push({ ok: { ...readOk(r, fields) } });
      if (columns === undefined) {
        left = r.lenenc()!;
        columns = [];
        return void out.push({ count: left });
      }
      if (left > 0) {
        left--;
        const column = readColumn(r);
        columns.push(column);
        return void out.push({ column });
      }
      if (first === 0xfe) {
        columns = undefined;
        return void out.push({ ok: { ...readOk(r, fields) } });
      }
      out.push({ row: readTextRow(r, columns) });
    },
  };
  return { sink, out };
}

/** Delivers `stream` in reads of the given sizes through one buffer that each read overwrites, at an offset inside it. */
function deliver(stream: Buffer, sizes: readonly number[]): unknown[] {
  const { sink, out } = decoded();
  deliverInReads(stream, sizes, (data, start, end) => scanPackets(data, start, end, sink));
  return out;
}

test('a text result, an OK and an ERR fed whole read as column definitions, decoded rows, OK fields and the error', () => {
  assert.deepEqual(deliver(STREAM, [STREAM.length]), EXPECTED);
});

test('the same packets cut into two reads at every byte boundary read the same', () => {
  for (let cut = 1; cut < STREAM.length; cut++) assert.deepEqual(deliver(STREAM, [cut, STREAM.length - cut]), EXPECTED, `cut at byte ${cut}`);
});

test('the same packets delivered one byte at a time read the same', () => {
  assert.deepEqual(deliver(STREAM, new Array<number>(STREAM.length).fill(1)), EXPECTED);
});

test('the same packets in reads of every size from 2 to 40 bytes (several messages and a part in one read) reads the same', () => {
  for (let size = 2; size <= 40; size++) {
    const sizes = new Array<number>(Math.floor(STREAM.length / size)).fill(size);
    if (STREAM.length % size) sizes.push(STREAM.length % size);
    assert.deepEqual(deliver(STREAM, sizes), EXPECTED, `reads of ${size} bytes`);
  }
});

test('scanPackets stops at an incomplete packet and reports where it begins', () => {
  const first = packet(1, ok(0x00, 1, 0, 2));
  const stream = Buffer.concat([first, packet(2, ok(0x00, 2, 0, 2))]);
  for (let end = first.length; end < stream.length; end++) {
    const { sink, out } = decoded();
    assert.equal(scanPackets(stream, 0, end, sink), first.length, `cut at ${end}`);
    assert.deepEqual(out, [{ ok: { affectedRows: 1, lastInsertId: 0, status: 2 } }]);
  }
  const { sink, out } = decoded();
  assert.equal(scanPackets(stream, 0, 3, sink), 0);
  assert.deepEqual(out, []);
});

test('a binary row reads its NULL bitmap (offset 2) and each type at its width', () => {
  const columns: Column[] = [
    { type: TYPE.LONG, flags: 0, collation: 63 },
    { type: TYPE.LONGLONG, flags: 0, collation: 63 },
    { type: TYPE.VAR_STRING, flags: 0, collation: UTF8MB4_GENERAL_CI },
    { type: TYPE.DOUBLE, flags: 0, collation: 63 },
    { type: TYPE.TINY, flags: FLAG_UNSIGNED, collation: 63 },
    { type: TYPE.DATETIME, flags: 0, collation: 63 },
    { type: TYPE.SHORT, flags: 0, collation: 63 },
  ];
  const double = Buffer.alloc(8);
  double.writeDoubleLE(-2.5);
  const long = Buffer.alloc(8);
  long.writeBigInt64LE(-9007199254740993n);
  // Column 3 (index 2) is NULL: bit 2 + 2 = 4 of the bitmap.
  const payload = Buffer.concat([
    Buffer.from([0x00, 0x10, 0x00]), // header, then (7 + 9) >> 3 = 2 bitmap bytes
    u32(0xfffffff6), // -10
    long,
    double,
    Buffer.from([200]),
    Buffer.from([7]),
    u16(2024),
    Buffer.from([2, 29, 13, 14, 15]),
    u16(0xfffe), // -2
  ]);
  const r = reader(payload);
  r.at++;
  assert.deepEqual(readBinaryRow(r, columns), [-10, -9007199254740993n, null, -2.5, 200, new Date(2024, 1, 29, 13, 14, 15), -2]);
  assert.equal(r.at, payload.length);
});

test('OK, EOF and ERR packets give their fields; an ERR without a SQLSTATE marker has none', () => {
  const fields: OkFields = { affectedRows: -1, lastInsertId: -1, status: -1 };
  assert.deepEqual({ ...readOk(reader(ok(0x00, 70000, 2 ** 33, 0x000a)), fields) }, { affectedRows: 70000, lastInsertId: 2 ** 33, status: 0x000a });
  assert.equal(readEofStatus(reader(Buffer.concat([Buffer.from([0xfe]), u16(1), u16(0x0008)]))), 0x0008);
  const plain = readError(reader(Buffer.concat([Buffer.from([0xff]), u16(1040), Buffer.from('Too many connections')])), true);
  assert.ok(plain instanceof MariadbServerError);
  assert.deepEqual([plain.errno, plain.sqlState, plain.message, plain.fatal], [1040, undefined, 'Too many connections', true]);
});

/** What reading `payload` (followed by another packet's bytes) with `read` throws. */
function thrown(payload: Buffer, read: (r: PacketReader) => unknown): unknown {
  // The next packet's bytes lie behind: a reader that ignores its end would take them as its own.
  const data = Buffer.concat([payload, packet(3, Buffer.from('def\x04more\x05bytes\0\0\0\0\0\0\0\0'))]);
  try {
    read(new PacketReader().reset(data, 0, payload.length));
    return undefined;
  } catch (error) {
    return error;
  }
}

const assertMalformed = (payload: Buffer, read: (r: PacketReader) => unknown, pattern: RegExp): void => {
  const error = thrown(payload, read);
  assert.ok(error instanceof MalformedPacket, `expected MalformedPacket, got ${String(error)}`);
  assert.match(error.message, pattern);
};

test('fields past their packet end in MalformedPacket even when the next packet holds the missing bytes', () => {
  const full = columnDefinition('id', TYPE.LONG);
  for (const cut of [3, 10, full.length - 13, full.length - 4]) {
    assertMalformed(full.subarray(0, cut), readColumn, /column definition runs past/);
  }
  const text: Column[] = [
    { type: TYPE.LONGLONG, flags: 0, collation: UTF8MB4_GENERAL_CI },
    { type: TYPE.VAR_STRING, flags: 0, collation: UTF8MB4_GENERAL_CI },
  ];
  // A value's length runs past the packet; a column missing altogether.
  assertMalformed(Buffer.concat([lenencString('1'), Buffer.from([10]), Buffer.from('abc')]), (r) => readTextRow(r, text), /text row's column 2 runs past/);
  assertMalformed(lenencString('12'), (r) => readTextRow(r, text), /text row's column 2 runs past/);
  assertMalformed(Buffer.from([5, 0x31]), (r) => readTextRow(r, text), /text row's column 1 runs past/);
  const binary: Column[] = [
    { type: TYPE.LONG, flags: 0, collation: 63 },
    { type: TYPE.LONGLONG, flags: 0, collation: 63 },
  ];
  assertMalformed(Buffer.concat([Buffer.from([0]), u32(1), u32(0)]), (r) => (r.at++, readBinaryRow(r, binary)), /binary row runs past/);
  assertMalformed(Buffer.from([0x00, 0x05]), (r) => readOk(r, { affectedRows: 0, lastInsertId: 0, status: 0 }), /OK packet runs past/);
  assertMalformed(Buffer.from([0xfe, 0x00]), readEofStatus, /EOF packet runs past/);
  assertMalformed(Buffer.from([0xff, 0x26]), (r) => readError(r), /ERR packet runs past/);
});
