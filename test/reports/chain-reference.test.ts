import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { readReference } from '../../src/reports/reference.js';

const STUDY = fileURLToPath(new URL('../../../reference/chain-study.json', import.meta.url));

test("reference/chain-study.json records the study's platform and that its figures are the study's statements", () => {
  const entries = readReference(STUDY);
  assert.deepEqual(
    entries.map((e) => [e.dbms, e.version]),
    [
      ['postgres', 'PostgreSQL 16.1'],
      ['mariadb', 'MariaDB 11.2.2'],
      ['postgres', 'PostgreSQL 16.1'],
    ],
  );
  for (const entry of entries) {
    for (const fact of ['Windows 11', 'Intel Core i7-9700F, 8 cores', '32 GB RAM', 'SATA SSD', '7200 rpm HDD'])
      assert.ok(entry.describe.includes(fact), `${fact} in: ${entry.describe}`);
    // A --statements prepared run normalised against it gets a note that the reference sent literal joins.
    assert.equal(entry.workloadOptions['statements'], 'study');
  }
});
