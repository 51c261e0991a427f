import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { chain } from '../../src/workloads/chain/index.js';
import { CHAIN_DBMSS, chainDialect } from '../../src/workloads/chain/dialect.js';
import { createTable, dropStatements } from '../../src/workloads/chain/schema.js';
import { studyReadOperationsSql } from '../../src/workloads/chain/statements.js';

// From dist/test/workloads/ back to the sources.
const CHAIN_SOURCES = new URL('../../../src/workloads/chain/', import.meta.url);

test('chain: only dialect.ts names a DBMS; the rest of the workload asks it', () => {
  const files = readdirSync(CHAIN_SOURCES).filter((f) => f.endsWith('.ts'));
  assert.ok(files.includes('dialect.ts') && files.includes('statements.ts'), files.join(', '));
  for (const file of files.filter((f) => f !== 'dialect.ts')) {
    const code = readFileSync(new URL(file, CHAIN_SOURCES), 'utf8');
    assert.doesNotMatch(code, /'(postgres|mariadb|sqlite|firebird)'/, `${file} names a DBMS`);
  }
  assert.deepEqual([...chain.runsOn!].sort(), ['firebird', 'mariadb', 'postgres', 'sqlite']);
});

test("chain dialect: each DBMS's SQL where the workload uses it", () => {
  assert.match(studyReadOperationsSql('firebird', 7), /where c\.id=7 order by o\.id desc rows 100$/);
  assert.match(studyReadOperationsSql('postgres', 7), /where c\.id=7 order by o\.id desc limit 100$/);
  assert.match(createTable('mariadb', 'operation', false), /op_time datetime\).* ENGINE = InnoDB$/);
  assert.match(createTable('postgres', 'operation', false), /^CREATE TABLE operation \(id serial PRIMARY KEY, summa int, client_id int, op_time timestamp\)$/);
  // SQLite cannot add a key later: declared at creation, except client's, which the study adds later.
  assert.match(createTable('sqlite', 'city', false), /FOREIGN KEY \(country_id\) REFERENCES country/);
  assert.doesNotMatch(createTable('sqlite', 'client', false), /FOREIGN KEY/);
  assert.match(dropStatements('firebird', ['city'])[0]!, /^EXECUTE BLOCK .*rdb\$relation_name = 'CITY'.*DROP TABLE city/);
  // How the study's drivers sent the unit: pgJDBC's BEGIN with the first query, Connector/J 2.x's autocommit=0 and text.
  assert.deepEqual(chainDialect('postgres').study, {
    driver: 'pgJDBC',
    sessionSetup: [],
    joins: 'unnamed',
    begin: 'with-first-query',
    writes: 'at-threshold',
    prepareThreshold: 5,
    commit: 'named',
  });
  assert.deepEqual(chainDialect('mariadb').study, {
    driver: 'MariaDB Connector/J 2.x',
    sessionSetup: ['SET autocommit=0'],
    joins: 'text',
    begin: 'implicit',
    writes: 'text',
    commit: 'text',
  });
  // The result's words for the study style say what each DBMS is sent.
  assert.match(
    chain.statements!({}, 'postgres').description,
    /^the study's program as pgJDBC sent it: both joins as literal SQL through the unnamed statement \(Parse, Bind, Describe, Execute, Sync/,
  );
  assert.match(
    chain.statements!({}, 'postgres').description,
    /BEGIN in the first join's round trip, update and insert through the unnamed statement for their first 4 executions per terminal \(parsed and planned at each\), prepared under a name at the 5th, COMMIT as a named statement/,
  );
  assert.match(
    chain.statements!({}, 'mariadb').description,
    /as MariaDB Connector\/J 2.x sent it: both joins as literal SQL text .*autocommit=0, no BEGIN, update and insert as text .*COMMIT as text/,
  );
  assert.match(chain.statements!({}, 'sqlite').description, /the study did not run on this DBMS.*BEGIN in a round trip of its own/);
  assert.equal(chain.statements!({ statements: 'prepared' }, 'postgres').description, 'every statement prepared once per terminal (both joins planned once)');
  assert.deepEqual(CHAIN_DBMSS.filter((d) => chainDialect(d).planning !== undefined).sort(), ['mariadb', 'postgres']);
});
