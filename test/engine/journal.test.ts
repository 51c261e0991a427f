import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { JournalWriter, journalOutcome, parseJournal } from '../../src/engine/journal.js';

const RUN = '0123456789ab';

test('journal reader: an ok outcome is a promise, an unknown one is not, a torn last line is torn and never a lost commit', () => {
  const text = [`A ${RUN}.0.1`, `U ${RUN}.1.1`, `A ${RUN}.0.2`, `F ${RUN}.1.2`, `A ${RUN}.0.3`].join('\n') + `\nA ${RUN}.1.`;
  const journal = parseJournal(text);
  assert.deepEqual([...journal.acknowledged], [`${RUN}.0.1`, `${RUN}.0.2`, `${RUN}.0.3`], 'only complete A lines are acknowledged');
  assert.deepEqual([...journal.unknown], [`${RUN}.1.1`]);
  assert.deepEqual([...journal.refused], [`${RUN}.1.2`]);
  assert.deepEqual(journal.torn, [`A ${RUN}.1.`], 'the last line has no newline: cut short');
  assert.deepEqual([...journal.runs], [RUN]);

  // The database kept two of the acknowledged commits and none of the others: one acknowledged commit is lost.
  const kept = new Set([`${RUN}.0.1`, `${RUN}.0.2`]);
  const outcome = journalOutcome(journal, kept);
  assert.equal(outcome.ok, false);
  assert.match(
    outcome.detail,
    new RegExp(
      `^2 of 3 acknowledged commits are in the database, 1 lost \\(first lost: ${RUN}\\.0\\.3\\); 1 in flight with their outcome unknown \\(0 kept, 1 not\\)`,
    ),
  );
  assert.match(outcome.detail, /; 1 refused by the server \(0 of them in the database\)/);
  assert.match(outcome.detail, /; 1 torn line \(a write cut short/);

  // All acknowledged ones kept, the unknown one kept too, and one the journal never got a line for: nothing lost.
  const all = journalOutcome(journal, new Set([`${RUN}.0.1`, `${RUN}.0.2`, `${RUN}.0.3`, `${RUN}.1.1`, `${RUN}.1.3`, 'ffffffffffff.0.1']));
  assert.equal(all.ok, true, all.detail);
  assert.match(all.detail, /^3 of 3 acknowledged commits are in the database, 0 lost; 1 in flight with their outcome unknown \(1 kept, 0 not\)/);
  assert.match(all.detail, /; 1 in the database without a journal line/, "another run's id is not counted as this journal's");
});

test('journal reader: a torn line whose cut falls inside the id is still torn, also where a later write went on after it', () => {
  const journal = parseJournal(`A ${RUN}.0.1\nA ${RUN.slice(0, 5)}A ${RUN}.0.3\nA ${RUN}.0.4\n`);
  assert.deepEqual([...journal.acknowledged], [`${RUN}.0.1`, `${RUN}.0.4`]);
  assert.deepEqual(journal.torn, [`A ${RUN.slice(0, 5)}A ${RUN}.0.3`]);
  assert.equal(journalOutcome(journal, new Set([`${RUN}.0.1`, `${RUN}.0.4`])).ok, true);
  // A journal that ends with its newline has no torn line.
  assert.deepEqual(parseJournal(`A ${RUN}.0.1\n`).torn, []);
  assert.deepEqual(parseJournal('').torn, []);
});

test('journal writer on a full disk (/dev/full): failed rejects once with the file and ENOSPC, nothing more is written, close() still ends cleanly', async () => {
  const writer = await JournalWriter.open('/dev/full');
  writer.acknowledged(`${RUN}.0.1`);
  await assert.rejects(writer.failed, /^Error: writing the journal \/dev\/full failed: ENOSPC/);
  assert.match(writer.error?.message ?? '', /ENOSPC/);
  // Later outcomes are dropped, not written after a torn line, and raise no unhandled rejection.
  writer.acknowledged(`${RUN}.0.2`);
  writer.unknown(`${RUN}.0.3`);
  await writer.close();
});

test('journal writer: one line per outcome, and none after close (a commit acknowledged as the job stopped is one the journal lacks)', async (t) => {
  const folder = mkdtempSync(path.join(tmpdir(), 'headroom-journal-'));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  const file = path.join(folder, 'journal');
  const writer = await JournalWriter.open(file);
  writer.acknowledged(`${RUN}.0.1`);
  writer.refused(`${RUN}.0.2`);
  writer.unknown(`${RUN}.0.3`);
  await writer.close();
  writer.acknowledged(`${RUN}.0.4`);
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(readFileSync(file, 'utf8'), `A ${RUN}.0.1\nF ${RUN}.0.2\nU ${RUN}.0.3\n`);
  assert.equal(writer.error, undefined);
});
