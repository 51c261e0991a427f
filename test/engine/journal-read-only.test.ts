import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { journalTableDdl, JournalWriter, parseJournal } from '../../src/engine/journal.js';
import { JournalingConnection } from '../../src/engine/journaling-connection.js';
import { connectFresh } from '../helpers/databases.js';

/**
 * A transaction declared read-only has nothing to journal, and a driver that starts it read-only
 * (Firebird) would refuse the journal's insert: its commit is passed on alone.
 */
test('journal: a declared read-only transaction commits without a journal entry; the next read-write one gets its entry', async (t) => {
  const fresh = await connectFresh(t, 'sqlite');
  if (!fresh) return;
  const folder = mkdtempSync(path.join(tmpdir(), 'headroom-journal-ro-'));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  await fresh.conn.query(journalTableDdl('sqlite'));
  const file = path.join(folder, 'journal');
  const writer = await JournalWriter.open(file);
  let sequence = 0;
  const conn = new JournalingConnection(fresh.conn, writer, () => `run.0.${++sequence}`);

  conn.declareReadOnly(true);
  await conn.begin();
  await conn.query('SELECT 1');
  await conn.commit();
  conn.declareReadOnly(false);
  await conn.begin();
  await conn.query('SELECT 1');
  await conn.commit();
  await writer.close();

  assert.deepEqual(await fresh.conn.query('SELECT id FROM headroom_journal'), [['run.0.1']], 'one insert, for the read-write transaction only');
  assert.deepEqual([...parseJournal(readFileSync(file, 'utf8')).acknowledged], ['run.0.1']);
});

/** chain --statements study on PostgreSQL commits through commitNamed (pgJDBC's COMMIT): journaled as commit() is. */
test('journal: commitNamed writes the entry in the same transaction and records it once acknowledged; queryUnnamed and prepareAtThreshold are passed on', async (t) => {
  const fresh = await connectFresh(t, 'postgres');
  if (!fresh) return;
  const folder = mkdtempSync(path.join(tmpdir(), 'headroom-journal-named-'));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  await fresh.conn.query(journalTableDdl('postgres'));
  const file = path.join(folder, 'journal');
  const writer = await JournalWriter.open(file);
  let sequence = 0;
  const conn = new JournalingConnection(fresh.conn, writer, () => `run.0.${++sequence}`);

  assert.deepEqual(await conn.queryUnnamed!('SELECT 5', true), [[5]]);
  await conn.commitNamed!();
  await conn.queryUnnamed!('SELECT 6', true);
  // The study's update and insert: passed on as the driver sends them.
  const select = conn.prepareAtThreshold!('SELECT ?::int + 1', 2, ['integer']);
  for (const n of [1, 2, 3]) assert.deepEqual(await select.all([n]), [[n + 1]]);
  await conn.commitNamed!();
  await writer.close();

  assert.deepEqual(await fresh.conn.query('SELECT id FROM headroom_journal ORDER BY id'), [['run.0.1'], ['run.0.2']]);
  assert.deepEqual([...parseJournal(readFileSync(file, 'utf8')).acknowledged], ['run.0.1', 'run.0.2']);
  // A driver without them (SQLite): the wrapper has none either, so the study style can tell.
  const sqlite = await connectFresh(t, 'sqlite');
  if (!sqlite) return;
  const plain = new JournalingConnection(sqlite.conn, writer, () => 'unused');
  assert.equal(plain.queryUnnamed, undefined);
  assert.equal(plain.commitNamed, undefined);
  assert.equal(plain.prepareAtThreshold, undefined);
});
