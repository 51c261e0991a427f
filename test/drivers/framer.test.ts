import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Framer } from '../../src/drivers/transport/framer.js';

/**
 * The Framer under the wire clients, fed as a transport feeds it: each read lands in one reused
 * buffer that is overwritten by the next read, and messages are cut at every possible byte.
 * PostgreSQL's framing (a type byte, then an int32 length that counts itself) stands for both
 * clients; MariaDB's differs only in where the length sits.
 */

function message(type: string, body: string): Buffer {
  const payload = Buffer.from(body, 'utf8');
  const out = Buffer.alloc(5 + payload.length);
  out.write(type, 0, 'latin1');
  out.writeInt32BE(4 + payload.length, 1);
  payload.copy(out, 5);
  return out;
}

/** A parser step as the clients write one: whole messages in [start, end), returns where the first incomplete one begins. */
function collector(): { parse: (buffer: Buffer, start: number, end: number) => number; seen: string[] } {
  const seen: string[] = [];
  const parse = (buffer: Buffer, start: number, end: number): number => {
    let at = start;
    while (end - at >= 5) {
      const length = buffer.readInt32BE(at + 1);
      if (end - at < 1 + length) break;
      seen.push(`${String.fromCharCode(buffer[at]!)}:${buffer.toString('utf8', at + 5, at + 1 + length)}`);
      at += 1 + length;
    }
    return at;
  };
  return { parse, seen };
}

/** Delivers `stream` in reads of the given sizes through one buffer that the next read overwrites. */
function deliver(framer: Framer, stream: Buffer, sizes: readonly number[]): void {
  const reused = Buffer.alloc(Math.max(...sizes, 1));
  let at = 0;
  for (const size of sizes) {
    stream.copy(reused, 0, at, at + size);
    framer.push(reused, 0, size);
    reused.fill(0xee);
    at += size;
  }
  assert.equal(at, stream.length);
}

const MESSAGES = [message('1', ''), message('T', 'row description'), message('D', 'é-data'), message('C', 'SELECT 1'), message('Z', 'I')];
const STREAM = Buffer.concat(MESSAGES);
const EXPECTED = ['1:', 'T:row description', 'D:é-data', 'C:SELECT 1', 'Z:I'];

test('messages cut into two reads at every byte boundary come out whole and in order', () => {
  for (let cut = 0; cut <= STREAM.length; cut++) {
    const { parse, seen } = collector();
    deliver(new Framer(parse), STREAM, [cut, STREAM.length - cut]);
    assert.deepEqual(seen, EXPECTED, `cut at ${cut}`);
  }
});

test('messages cut into three reads at every pair of boundaries come out whole and in order', () => {
  for (let first = 0; first <= STREAM.length; first++) {
    for (let second = first; second <= STREAM.length; second++) {
      const { parse, seen } = collector();
      deliver(new Framer(parse), STREAM, [first, second - first, STREAM.length - second]);
      assert.deepEqual(seen, EXPECTED, `cuts at ${first} and ${second}`);
    }
  }
});

test('one byte per read, and a message larger than the carry buffer starts with', () => {
  const { parse, seen } = collector();
  deliver(
    new Framer(parse),
    STREAM,
    Array.from({ length: STREAM.length }, () => 1),
  );
  assert.deepEqual(seen, EXPECTED);

  const big = 'x'.repeat(10_000);
  const stream = Buffer.concat([message('D', big), message('Z', 'T')]);
  const large = collector();
  deliver(new Framer(large.parse), stream, [3, 5000, stream.length - 5003]);
  assert.deepEqual(large.seen, [`D:${big}`, 'Z:T']);
});

test('whole messages in one read are parsed where they lie, and a partial tail waits for the rest', () => {
  const { parse, seen } = collector();
  const framer = new Framer(parse);
  const tail = 3;
  const head = Buffer.from(STREAM.subarray(0, STREAM.length - tail));
  framer.push(head, 0, head.length);
  head.fill(0xee);
  assert.deepEqual(seen, EXPECTED.slice(0, -1), 'the last message is not complete yet');
  const rest = Buffer.alloc(tail);
  STREAM.copy(rest, 0, STREAM.length - tail);
  framer.push(rest, 0, tail);
  assert.deepEqual(seen, EXPECTED);
});
