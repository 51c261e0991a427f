import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Connection, DbmsName } from '../../src/drivers/driver.js';
import { runEngine, type EngineConfig } from '../../src/engine/engine.js';
import { RefGenerator, START_R, distributedStart, mulMod, shift } from '../../src/workloads/chain/generator.js';
import { chain } from '../../src/workloads/chain/index.js';
import { FAITHFUL_PHASES } from '../../src/workloads/chain/load-faithful.js';
import { chainSizes } from '../../src/workloads/chain/sizes.js';
import type { DataContext } from '../../src/workloads/workload.js';
import { engineConfig } from '../helpers/engine-config.js';
import { DBMS_UNDER_TEST, connectFresh, type TestDatabase } from '../helpers/databases.js';

/** 2 countries, 2 cities, 50 streets, 2,500 addresses, 3 x 667 clients. */
const SCALE = 0.0002;

const count = async (conn: Connection, sql: string): Promise<number> => Number(((await conn.query(sql)) as [[unknown]])[0][0]);

function chainConfig(db: TestDatabase, options: Record<string, string>, clients: number, transactionsPerClient: number): EngineConfig {
  return engineConfig(db.target, 'chain', { options, scale: SCALE, clients, transactionsPerClient, maxTries: 5, seed: 3 });
}

/** Ids, references and text of the loaded data, to compare two loads of the same scale. */
async function fingerprint(dbms: DbmsName, conn: Connection): Promise<string> {
  const rows = await conn.query(
    `SELECT (SELECT SUM(country_id) FROM city), (SELECT SUM(city_id) FROM street), (SELECT SUM(street_id * 1.0 * id) FROM address),
            (SELECT SUM(address_id * 1.0 * id) FROM client), (SELECT MIN(name) FROM client), (SELECT MAX(last_name) FROM client),
            (SELECT MIN(name) FROM street), (SELECT MAX(building) FROM address), (SELECT MAX(house) FROM address), (SELECT MIN(country_code) FROM country)${dbms === 'firebird' ? ' FROM rdb$database' : ''}`,
  );
  return JSON.stringify(rows[0]!.map((v) => (typeof v === 'string' ? v : Number(v))));
}

/** Foreign keys as "child->parent" and indexed columns as "table.column", primary keys aside. */
async function schemaShape(dbms: DbmsName, conn: Connection): Promise<{ keys: string[]; indexed: string[] }> {
  const pairs = async (sql: string, sep: string): Promise<string[]> => (await conn.query(sql)).map((r) => `${String(r[0])}${sep}${String(r[1])}`).sort();
  switch (dbms) {
    case 'postgres':
      return {
        keys: await pairs(
          "SELECT conrelid::regclass::text, confrelid::regclass::text FROM pg_constraint WHERE contype = 'f' AND connamespace = current_schema()::regnamespace",
          '->',
        ),
        indexed: await pairs(
          `SELECT t.relname, a.attname FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = i.indkey[0]
           WHERE NOT i.indisprimary AND t.relnamespace = current_schema()::regnamespace`,
          '.',
        ),
      };
    case 'mariadb':
      return {
        keys: await pairs(
          'SELECT TABLE_NAME, REFERENCED_TABLE_NAME FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = DATABASE() AND REFERENCED_TABLE_NAME IS NOT NULL',
          '->',
        ),
        indexed: await pairs(
          "SELECT DISTINCT TABLE_NAME, COLUMN_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND INDEX_NAME <> 'PRIMARY' AND SEQ_IN_INDEX = 1",
          '.',
        ),
      };
    case 'firebird':
      // Names are stored upper case and padded; a foreign key's index carries the constraint's name.
      return {
        keys: (
          await pairs(
            `SELECT TRIM(c.rdb$relation_name), TRIM(p.rdb$relation_name) FROM rdb$relation_constraints c
               JOIN rdb$ref_constraints r ON r.rdb$constraint_name = c.rdb$constraint_name
               JOIN rdb$relation_constraints p ON p.rdb$constraint_name = r.rdb$const_name_uq`,
            '->',
          )
        ).map((k) => k.toLowerCase()),
        indexed: (
          await pairs(
            `SELECT DISTINCT TRIM(i.rdb$relation_name), TRIM(s.rdb$field_name) FROM rdb$indices i JOIN rdb$index_segments s ON s.rdb$index_name = i.rdb$index_name
              WHERE COALESCE(i.rdb$system_flag, 0) = 0 AND s.rdb$field_position = 0
                AND NOT EXISTS (SELECT 1 FROM rdb$relation_constraints c WHERE c.rdb$index_name = i.rdb$index_name AND c.rdb$constraint_type IN ('PRIMARY KEY', 'UNIQUE'))`,
            '.',
          )
        ).map((k) => k.toLowerCase()),
      };
    case 'sqlite':
      return {
        keys: await pairs(`SELECT m.name, f."table" FROM sqlite_master m, pragma_foreign_key_list(m.name) f WHERE m.type = 'table'`, '->'),
        indexed: await pairs(
          `SELECT m.tbl_name, i.name FROM sqlite_master m, pragma_index_info(m.name) i WHERE m.type = 'index' AND m.sql IS NOT NULL AND i.seqno = 0`,
          '.',
        ),
      };
  }
}

const ALL_KEYS = ['address->street', 'city->country', 'client->address', 'operation->client', 'street->city'];
const FK_COLUMNS = ['address.street_id', 'city.country_id', 'client.address_id', 'operation.client_id', 'street.city_id'];

for (const dbms of DBMS_UNDER_TEST.filter((d) => chain.runsOn?.includes(d) ?? true)) {
  test(`${dbms}: chain bulk load, model units, check, and a corrupted table fails the check`, async (t) => {
    const fresh = await connectFresh(t, dbms);
    if (!fresh) return;
    const { db, driver, conn } = fresh;
    const options = { load: 'bulk', mode: 'distributed' };
    const ctx: DataContext = { conn, driver, dbms, scale: SCALE, options, log: () => {} };
    assert.equal(await chain.detectScale(ctx), undefined);
    // tpcb's tables share the database: chain's load and drop must leave them alone.
    await conn.query('CREATE TABLE pgbench_history (tid int)');
    const phases = await chain.load(ctx);
    assert.ok(
      phases.every((p) => p.name.startsWith('bulk: ')),
      'bulk phases say so',
    );
    const sizes = chainSizes(SCALE);
    assert.deepEqual(
      phases.filter((p) => p.rows > 0).map((p) => p.rows),
      [sizes.countries, sizes.cities, sizes.streets, sizes.addresses, 3 * sizes.clientsPerBatch],
    );
    assert.equal(await chain.detectScale(ctx), SCALE);
    assert.equal(await chain.loadMode?.(ctx), 'bulk');
    assert.ok((await chain.check(ctx)).every((o) => o.ok));

    const outcome = await runEngine(chainConfig(db, options, 3, 30), new AbortController().signal, () => {});
    assert.equal(outcome.status, 'completed');
    const committed = outcome.totals.types[0]!.count;
    assert.equal(committed + outcome.totals.types[0]!.failed, 90, 'every terminal ran exactly -t units');
    assert.ok(committed > 0);
    assert.equal(await count(conn, 'SELECT COUNT(*) FROM operation'), committed, 'one operation per committed unit');
    const outcomes = await chain.check(ctx);
    assert.ok(
      outcomes.every((o) => o.ok),
      JSON.stringify(outcomes),
    );

    // The top city id is never drawn, so no street references it and the delete goes through.
    await conn.query(`DELETE FROM city WHERE id = ${sizes.cities}`);
    const broken = await chain.check(ctx);
    assert.deepEqual(
      broken.filter((o) => !o.ok).map((o) => o.name),
      ['city rows'],
    );
    await chain.drop(ctx);
    assert.equal(await chain.detectScale(ctx), undefined);
    for (const table of ['operation', 'client', 'address', 'street', 'city', 'country', 'chain_meta'])
      assert.equal(await driver.tableExists(conn, table), false, table);
    assert.equal(await driver.tableExists(conn, 'pgbench_history'), true);
  });

  test(`${dbms}: chain faithful load runs the study's ten phases and loads what bulk loads`, async (t) => {
    const fresh = await connectFresh(t, dbms);
    if (!fresh) return;
    const { driver, conn } = fresh;
    const ctx: DataContext = { conn, driver, dbms, scale: SCALE, options: { load: 'faithful' }, log: () => {} };
    const phases = await chain.load(ctx);
    assert.deepEqual(
      phases.map((p) => p.name),
      [...FAITHFUL_PHASES],
    );
    const sizes = chainSizes(SCALE);
    assert.deepEqual(
      phases.map((p) => p.rows),
      [sizes.countries, sizes.cities, sizes.streets, sizes.addresses, 0, sizes.clientsPerBatch, 0, sizes.clientsPerBatch, 0, sizes.clientsPerBatch],
    );
    assert.ok(phases.every((p) => p.seconds >= 0));
    assert.equal(await chain.loadMode?.(ctx), 'faithful');
    assert.ok((await chain.check(ctx)).every((o) => o.ok));
    const faithful = await fingerprint(dbms, conn);
    const shape = await schemaShape(dbms, conn);
    // Every foreign key (SQLite cannot add client's to a loaded table), an index on every
    // foreign-key column (declared on PostgreSQL and SQLite, InnoDB's and Firebird's own), and client.name.
    assert.deepEqual(shape.keys, dbms === 'sqlite' ? ALL_KEYS.filter((k) => k !== 'client->address') : ALL_KEYS);
    assert.deepEqual(shape.indexed, [...FK_COLUMNS, 'client.name'].sort());
    await chain.load({ ...ctx, options: { load: 'bulk' } });
    assert.equal(await fingerprint(dbms, conn), faithful);
    assert.deepEqual(await schemaShape(dbms, conn), shape, 'bulk builds the schema faithful builds');
    // Bulk gives ids itself; the auto-increment must have moved past them.
    await conn.query("INSERT INTO country (country_code, name) VALUES ('zz', 'after the load')");
    assert.ok((await count(conn, 'SELECT MAX(id) FROM country')) > sizes.countries);
  });
}

test('sqlite: distributed terminals draw from their own stretch, localized ones all from startR', async (t) => {
  const fresh = await connectFresh(t, 'sqlite');
  if (!fresh) return;
  const { db, driver, conn } = fresh;
  const clientCount = chainSizes(SCALE).clientsPerBatch;
  const ctx: DataContext = { conn, driver, dbms: 'sqlite', scale: SCALE, options: { load: 'bulk' }, log: () => {} };
  const clientsVisited = async (mode: string, terminals: number, units: number, reload = true): Promise<number[]> => {
    if (reload) await chain.load(ctx);
    const outcome = await runEngine(chainConfig(db, { load: 'bulk', mode }, terminals, units), new AbortController().signal, () => {});
    assert.equal(outcome.totals.types[0]!.count, terminals * units);
    const rows = await conn.query(`SELECT client_id FROM operation ORDER BY id DESC LIMIT ${terminals * units}`);
    return rows.map(([id]) => Number(id)).sort((a, b) => a - b);
  };
  const expected = (starts: number[], units: number): number[] =>
    starts
      .flatMap((s) => {
        const generator = new RefGenerator(s);
        return Array.from({ length: units }, () => generator.nextRef(clientCount));
      })
      .sort((a, b) => a - b);

  const starts = [0, 1, 2].map((i) => distributedStart(START_R, i, 4));
  assert.deepEqual(await clientsVisited('distributed', 3, 4), expected(starts, 4));
  // A second run on the 12 operations of the first starts at shift(12), then steps by shift(2).
  assert.deepEqual(await clientsVisited('distributed', 2, 2, false), expected([shift(12), mulMod(shift(12), shift(2))], 2));
  assert.deepEqual(await clientsVisited('localized', 3, 4), expected([START_R, START_R, START_R], 4));
});
