import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connectFresh } from '../helpers/databases.js';

/**
 * MariaDB 10.6+ leaves out a prepared statement's column definitions when it executes it again
 * (MARIADB_CLIENT_CACHE_METADATA), and the client decodes the rows with the ones it kept. A change
 * of the table's columns makes the server send them again: the rows must then be decoded with the
 * new ones, and the executions after it with those.
 */
test('mariadb: a prepared statement decodes its rows with the columns the server sent last, after the table changed', async (t) => {
  const fresh = await connectFresh(t, 'mariadb');
  if (!fresh) return;
  const { conn } = fresh;
  await conn.query('CREATE TABLE meta (id INT PRIMARY KEY, v INT)');
  await conn.query('INSERT INTO meta VALUES (1, 10), (2, -20)');
  const select = await conn.prepare('SELECT * FROM meta WHERE id = ?');
  assert.deepEqual(await select.all([1]), [[1, 10]]);
  // Executed again without metadata where the server offers the cache: the kept columns decode it.
  assert.deepEqual(await select.all([2]), [[2, -20]]);

  // v becomes text and a date column follows: the bytes of the rows change meaning.
  await conn.query('ALTER TABLE meta MODIFY v VARCHAR(20), ADD COLUMN d DATETIME');
  await conn.query("UPDATE meta SET v = CONCAT('v', v), d = '2024-02-29 13:14:15'");
  const when = new Date(2024, 1, 29, 13, 14, 15);
  assert.deepEqual(await select.all([1]), [[1, 'v10', when]]);
  assert.deepEqual(await select.all([2]), [[2, 'v-20', when]]);

  // A column dropped: one value fewer per row.
  await conn.query('ALTER TABLE meta DROP COLUMN v');
  assert.deepEqual(await select.all([1]), [[1, when]]);
  assert.deepEqual(await select.all([2]), [[2, when]]);
  assert.equal(await select.run([2]), 1);

  const [[version]] = (await conn.query('SELECT VERSION()')) as [[string]];
  t.diagnostic(
    `MariaDB ${version}: executions after the first ${/^(10\.([6-9]|\d\d)|1[1-9])\./.test(version) ? 'left the columns out' : 'carried their columns'}`,
  );
});
