import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DbError } from '../../src/drivers/errors.js';
import { literalText, type LiteralValue } from '../../src/drivers/literals.js';
import { encodeQuery } from '../../src/drivers/postgres/wire/connection.js';
import { literalQuery, QueryWriter } from '../../src/drivers/postgres/wire/literal-query.js';
import { connectFresh } from '../helpers/databases.js';

const VALUES: LiteralValue[] = [
  0,
  -0,
  7,
  -7,
  Number.MAX_SAFE_INTEGER,
  Number.MIN_SAFE_INTEGER,
  2 ** 60,
  -(2 ** 60),
  1.5,
  -2.25e-300,
  NaN,
  -Infinity,
  12345678901234567890n,
  -5n,
  true,
  false,
  null,
  '',
  "it's",
  "''",
  'tÄxt ✓ 𝄞',
  'x'.repeat(3000),
];

test('PostgreSQL literal Query message: the bytes of encodeQuery(literalText(...)) for every kind of value', () => {
  const writer = new QueryWriter();
  const pieces = ['SELECT ', " + 1, 'a:b' AS é, ", ' -- ✓\n', '', '::text'];
  const query = literalQuery(pieces);
  // Every value in every place, and a whole row of them at once (the buffer grows past 1 KB on the way).
  const rows: LiteralValue[][] = VALUES.flatMap((v, i) => [
    [v, v, v, v],
    [VALUES[(i + 1) % VALUES.length]!, v, VALUES[(i + 7) % VALUES.length]!, null],
  ]);
  for (const values of rows) {
    const length = writer.write(query, values);
    const expected = encodeQuery(literalText(pieces, values)).message;
    assert.deepEqual(writer.buffer.subarray(0, length), expected, `values ${values.map(String).join(', ').slice(0, 80)}`);
  }
  // Without values, and with a long piece (copied rather than looped over).
  const long = literalQuery([`SELECT '${'y'.repeat(500)}'`]);
  assert.deepEqual(writer.buffer.subarray(0, writer.write(long, [])), encodeQuery(`SELECT '${'y'.repeat(500)}'`).message);
});

test('PostgreSQL literal Query message: a string value holding a NUL is not written; a piece holding one is marked', () => {
  const writer = new QueryWriter();
  assert.equal(writer.write(literalQuery(['SELECT ', '']), ['a\0b']), -1);
  assert.equal(literalQuery(['SELECT ', '']).unframeable, false);
  assert.equal(literalQuery(['SELECT 1 \0', '']).unframeable, true);
  // The writer is usable after a refusal.
  const length = writer.write(literalQuery(['SELECT ', '']), [3]);
  assert.deepEqual(writer.buffer.subarray(0, length), encodeQuery('SELECT 3').message);
});

test('PostgreSQL literalStatement answers as query(literalText(...)): counts, rows, NULs refused, errors classified', async (t) => {
  const fresh = await connectFresh(t, 'postgres');
  if (!fresh) return;
  const { conn } = fresh;
  await conn.query('CREATE TABLE lit (id int PRIMARY KEY, name text, big int8)');
  const insert = conn.literalStatement!(['INSERT INTO lit VALUES (', ', ', ', ', ')']);
  assert.equal(await insert.run([1, "o'hara ✓", -(2 ** 40)]), 1);
  assert.equal(await insert.run([2, null, 12345678901234567890n % 2n ** 62n]), 1);
  const select = conn.literalStatement!(['SELECT id, name, big, ', '::float8 AS f FROM lit WHERE id <= ', ' ORDER BY id']);
  for (const values of [
    [1.5, 2],
    [-3, 1],
    [0, 0],
  ] as LiteralValue[][]) {
    const pieces = ['SELECT id, name, big, ', '::float8 AS f FROM lit WHERE id <= ', ' ORDER BY id'];
    const expected = await conn.query(literalText(pieces, values));
    assert.deepEqual(await select.all(values), expected);
    // run() counts the rows the SELECT returned without reading them.
    assert.equal(await select.run(values), expected.length);
  }
  assert.deepEqual(await select.all([1.5, 2]), [
    [1, "o'hara ✓", String(-(2 ** 40)), 1.5],
    [2, null, String(12345678901234567890n % 2n ** 62n), 1.5],
  ]);
  // A value holding a NUL is refused as query() refuses the text, and the connection stays in step.
  await assert.rejects(select.all(['a\0b', 1]), (error: unknown) => error instanceof DbError && /holds a NUL byte/.test(error.message));
  await assert.rejects(insert.run([3, 'a\0b', 1]), (error: unknown) => error instanceof DbError && error.errorClass === 'bad_request');
  // A server error is the driver's classified error, with the server's report, as query()'s is.
  const failed = await insert.run([1, 'again', 1]).then(
    () => assert.fail('a duplicate key was accepted'),
    (error: unknown) => error,
  );
  const viaQuery = await conn.query(literalText(['INSERT INTO lit VALUES (', ', ', ', ', ')'], [1, 'again', 1])).then(
    () => assert.fail('a duplicate key was accepted'),
    (error: unknown) => error,
  );
  assert.ok(failed instanceof DbError);
  assert.ok(viaQuery instanceof DbError);
  assert.equal(failed.errorClass, viaQuery.errorClass);
  assert.equal(failed.code, '23505');
  assert.equal(failed.report, viaQuery.report);
  assert.deepEqual(await select.all([0, 1]), [[1, "o'hara ✓", String(-(2 ** 40)), 0]]);
});
