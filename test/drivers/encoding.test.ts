import { test } from 'node:test';
import assert from 'node:assert/strict';
import { numberPlaceholders } from '../../src/drivers/placeholders.js';
import { copyChunks, copyField } from '../../src/drivers/postgres/copy.js';

test('? placeholders become $1, $2 ... outside quotes and comments', () => {
  assert.equal(numberPlaceholders('UPDATE t SET a = a + ? WHERE id = ?'), 'UPDATE t SET a = a + $1 WHERE id = $2');
  assert.equal(numberPlaceholders(`SELECT '?', "a?b", ? -- what?\nFROM t WHERE x = ?`), `SELECT '?', "a?b", $1 -- what?\nFROM t WHERE x = $2`);
  assert.equal(numberPlaceholders('SELECT 1'), 'SELECT 1');
});

test("COPY text fields escape what COPY's text format treats specially", () => {
  assert.equal(copyField(null), '\\N');
  assert.equal(copyField(42), '42');
  assert.equal(copyField(12345678901234567890n), '12345678901234567890');
  assert.equal(copyField(true), 't');
  assert.equal(copyField('a\tb\nc\\d\re'), 'a\\tb\\nc\\\\d\\re');
  assert.equal(copyField(new Date('2026-01-02T03:04:05.000Z')), '2026-01-02T03:04:05.000Z');
});

test('COPY chunks keep every row whole and in order', () => {
  const rows = Array.from({ length: 1000 }, (_, i) => [i, `row ${i}`]);
  const chunks = [...copyChunks(rows, 100)];
  assert.ok(chunks.length > 1);
  assert.ok(chunks.every((c) => c.endsWith('\n')));
  assert.deepEqual(
    chunks.join('').trimEnd().split('\n'),
    rows.map(([i, s]) => `${i}\t${s}`),
  );
});
