import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  commandCompleteCount,
  MalformedMessage,
  readAuthenticationKind,
  readBackendProcessId,
  readDataRow,
  readParameterStatus,
  readRowDescription,
  scanMessages,
  type MessageSink,
} from '../../src/drivers/postgres/wire/messages.js';
import { PgServerError } from '../../src/drivers/postgres/wire/pg-error.js';
import { deliverInReads, int16, int32 } from '../helpers/wire-bytes.js';

/**
 * PostgreSQL's backend messages read from hand-built bytes, with no socket: the same scan and
 * readers the wire client runs (drivers/postgres/wire/messages.ts), behind the same Framer, fed
 * whole and cut into two reads at every byte boundary; corrupt messages end in MalformedMessage.
 */

const message = (type: string, ...body: Buffer[]): Buffer => {
  const payload = Buffer.concat(body);
  return Buffer.concat([Buffer.from(type, 'latin1'), int32(payload.length + 4), payload]);
};
const text = (value: string): Buffer => Buffer.from(value, 'utf8');
const column = (name: string, type: number): Buffer => Buffer.concat([text(`${name}\0`), int32(16384), int16(1), int32(type), int16(4), int32(-1), int16(0)]);
const value = (v: string | null): Buffer => (v === null ? int32(-1) : Buffer.concat([int32(Buffer.byteLength(v)), text(v)]));

const INT4 = 23;
const TEXT = 25;
const BOOL = 16;
const INT8 = 20;

/** What a session's answers look like: startup, a query with rows, an error, a notice. */
const STREAM = Buffer.concat([
  message('R', int32(0)),
  message('S', text('server_version\0' + '15.4\0')),
  message('S', text('client_encoding\0UTF8\0')),
  message('K', int32(4242), int32(99)),
  message('Z', text('I')),
  message('T', int16(4), column('aid', INT4), column('filler', TEXT), column('ok', BOOL), column('big', INT8)),
  message('D', int16(4), value('-17'), value('héllo'), value('t'), value('9007199254740993')),
  message('D', int16(4), value('2'), value(null), value('f'), value('')),
  message('C', text('SELECT 2\0')),
  message('Z', text('T')),
  message('C', text('UPDATE 1\0')),
  message('C', text('INSERT 0 12\0')),
  message('C', text('BEGIN\0')),
  message('E', text('SERROR\0VERROR\0C23505\0Mduplicate key value\0Dkey (aid)=(1) exists\0Hpick another\0Wwhile inserting\0\0')),
  message('N', text('SNOTICE\0VNOTICE\0C00000\0Mtable does not exist, skipping\0\0')),
  message('1', Buffer.alloc(0)), // ParseComplete: no body
  message('Z', text('E')),
]);

/** The messages a stream holds, typed as the client reads them. */
function decoded(): { sink: MessageSink; out: unknown[] } {
  const out: unknown[] = [];
  let types: number[] = [];
  const sink: MessageSink = {
    message(type, data, start, end) {
      const kind = String.fromCharCode(type);
      switch (kind) {
        case 'R':
          return void out.push({ kind, request: readAuthenticationKind(data, start, end) });
        case 'S':
          return void out.push({ kind, parameter: readParameterStatus(data, start, end) });
        case 'K':
          return void out.push({ kind, processId: readBackendProcessId(data, start, end) });
        case 'T': {
          const names: string[] = [];
          types = readRowDescription(data, start, end, names);
          return void out.push({ kind, names, types });
        }
        case 'D':
          return void out.push({ kind, row: readDataRow(types, data, start, end) });
        case 'C':
          return void out.push({ kind, count: commandCompleteCount(data, start, end) });
        case 'E':
        case 'N': {
          const e = PgServerError.parse(data, start, end);
          return void out.push({ kind, severity: e.severity, code: e.code, message: e.message, detail: e.detail, hint: e.hint, context: e.context });
        }
        case 'Z':
          return void out.push({ kind, status: String.fromCharCode(data[start]!) });
        default:
          return void out.push({ kind, length: end - start });
      }
    },
  };
  return { sink, out };
}

const EXPECTED = [
  { kind: 'R', request: 0 },
  { kind: 'S', parameter: ['server_version', '15.4'] },
  { kind: 'S', parameter: ['client_encoding', 'UTF8'] },
  { kind: 'K', processId: 4242 },
  { kind: 'Z', status: 'I' },
  { kind: 'T', names: ['aid', 'filler', 'ok', 'big'], types: [INT4, TEXT, BOOL, INT8] },
  { kind: 'D', row: [-17, 'héllo', true, '9007199254740993'] },
  { kind: 'D', row: [2, null, false, ''] },
  { kind: 'C', count: 2 },
  { kind: 'Z', status: 'T' },
  { kind: 'C', count: 1 },
  { kind: 'C', count: 12 },
  { kind: 'C', count: -1 },
  {
    kind: 'E',
    severity: 'ERROR',
    code: '23505',
    message: 'duplicate key value',
    detail: 'key (aid)=(1) exists',
    hint: 'pick another',
    context: 'while inserting',
  },
  { kind: 'N', severity: 'NOTICE', code: '00000', message: 'table does not exist, skipping', detail: undefined, hint: undefined, context: undefined },
  { kind: '1', length: 0 },
  { kind: 'Z', status: 'E' },
];

/** Delivers `stream` as a transport does: in reads of the given sizes through one buffer each read overwrites. */
function deliver(stream: Buffer, sizes: readonly number[]): unknown[] {
  const { sink, out } = decoded();
  deliverInReads(stream, sizes, (data, start, end) => scanMessages(data, start, end, sink));
  return out;
}

test('a session fed whole reads as typed messages: parameters, row types, decoded rows, counts, error fields', () => {
  assert.deepEqual(deliver(STREAM, [STREAM.length]), EXPECTED);
});

test('the same session cut into two reads at every byte boundary reads the same messages', () => {
  for (let cut = 1; cut < STREAM.length; cut++) {
    assert.deepEqual(deliver(STREAM, [cut, STREAM.length - cut]), EXPECTED, `cut at byte ${cut}`);
  }
});

test('the same session delivered one byte at a time reads the same messages', () => {
  assert.deepEqual(deliver(STREAM, new Array<number>(STREAM.length).fill(1)), EXPECTED);
});

test('the same session in reads of every size from 2 to 40 bytes (several messages and a part in one read) reads the same', () => {
  for (let size = 2; size <= 40; size++) {
    const sizes = new Array<number>(Math.floor(STREAM.length / size)).fill(size);
    if (STREAM.length % size) sizes.push(STREAM.length % size);
    assert.deepEqual(deliver(STREAM, sizes), EXPECTED, `reads of ${size} bytes`);
  }
});

test('scanMessages stops at an incomplete message and reports where it begins', () => {
  const whole = message('C', text('SELECT 1\0'));
  const stream = Buffer.concat([whole, message('Z', text('I'))]);
  for (let end = whole.length; end < stream.length; end++) {
    const { sink, out } = decoded();
    assert.equal(scanMessages(stream, 0, end, sink), whole.length, `stream cut at ${end}`);
    assert.deepEqual(out, [{ kind: 'C', count: 1 }]);
  }
  const { sink, out } = decoded();
  assert.equal(scanMessages(stream, 0, 4, sink), 0);
  assert.deepEqual(out, []);
});

/** The first error a stream ends in, or undefined when it reads through. */
function failure(stream: Buffer): unknown {
  const { sink } = decoded();
  try {
    scanMessages(stream, 0, stream.length, sink);
    return undefined;
  } catch (error) {
    return error;
  }
}

const assertMalformed = (stream: Buffer, pattern: RegExp): void => {
  const error = failure(stream);
  assert.ok(error instanceof MalformedMessage, `expected MalformedMessage, got ${String(error)}`);
  assert.match(error.message, pattern);
};

test('a length below 4, or over 30,000 on a short type, or over 1 GB is refused, not waited for', () => {
  assertMalformed(Buffer.from([0x5a, 0, 0, 0, 3, 0x49]), /type 0x5a with invalid length 3/);
  assertMalformed(Buffer.concat([Buffer.from('Z'), int32(-1)]), /type 0x5a with invalid length -1/);
  assertMalformed(Buffer.concat([Buffer.from('Z'), int32(30_001)]), /type 0x5a with invalid length 30001/);
  assertMalformed(Buffer.concat([Buffer.from('D'), int32((1 << 30) + 1)]), /type 0x44 with invalid length 1073741825/);
  // A DataRow may be long: its length is waited for, not refused.
  const { sink } = decoded();
  assert.equal(scanMessages(Buffer.concat([Buffer.from('D'), int32(1_000_000)]), 0, 5, sink), 0);
});

test('fields past their message end in MalformedMessage even when the next message holds the missing bytes', () => {
  const after = message('Z', text('I'));
  const describe = message('T', int16(1), column('aid', INT4));
  // RowDescription: one column announced, its fixed fields cut short.
  assertMalformed(Buffer.concat([message('T', int16(1), text('aid\0'), int32(0)), after]), /RowDescription's column 1 runs past/);
  // RowDescription: a name without its NUL.
  assertMalformed(Buffer.concat([message('T', int16(1), text('aid')), after]), /RowDescription's column 1 runs past/);
  assertMalformed(message('T', Buffer.from([0])), /RowDescription without its column count/);
  // DataRow: a column's length runs past the message; a column count larger than the columns.
  assertMalformed(Buffer.concat([describe, message('D', int16(1), int32(10), text('12')), after]), /DataRow's column 1 runs past/);
  assertMalformed(Buffer.concat([describe, message('D', int16(2), value('1')), after]), /DataRow's column 2 runs past/);
  assertMalformed(Buffer.concat([describe, message('D', int16(1), Buffer.from([0, 0])), after]), /DataRow's column 1 runs past/);
  assertMalformed(message('D', Buffer.from([0])), /DataRow without its column count/);
  // Fixed-size messages too short for their int32.
  assertMalformed(Buffer.concat([message('R', int16(0)), after]), /Authentication request runs past/);
  assertMalformed(Buffer.concat([message('K', int16(7)), after]), /BackendKeyData runs past/);
  // ParameterStatus without the value's NUL, or without any.
  assertMalformed(Buffer.concat([message('S', text('server_version\0' + '15')), after]), /ParameterStatus without/);
  assertMalformed(Buffer.concat([message('S', text('server_version')), after]), /ParameterStatus without/);
});

test('CommandComplete without a count, or a count not after a space, is -1 (the count stays as counted)', () => {
  const tag = (t: string): number => {
    const m = message('C', text(`${t}\0`));
    return commandCompleteCount(m, 5, m.length);
  };
  assert.equal(tag('SELECT 0'), 0);
  assert.equal(tag('COPY 1234567'), 1234567);
  assert.equal(tag('CREATE TABLE'), -1);
  assert.equal(tag('X1'), -1);
  assert.equal(tag('7'), -1);
  assert.equal(tag(''), -1);
});

test('an ErrorResponse missing its fields or its terminator keeps the defaults and the fields it has', () => {
  const e = (body: string): PgServerError => {
    const m = message('E', text(body));
    return PgServerError.parse(Buffer.concat([m, text('Mnext message\0')]), 5, m.length);
  };
  const empty = e('\0');
  assert.deepEqual([empty.severity, empty.code, empty.message], ['ERROR', 'XX000', 'unknown server error']);
  // No NUL after the last field: it ends at the message's end, not inside the next message.
  const cut = e('SFATAL\0C57P01\0Mterminating connection');
  assert.deepEqual([cut.severity, cut.code, cut.message], ['FATAL', '57P01', 'terminating connection']);
});
