import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Connection } from '../../src/drivers/driver.js';
import { DbError, type ErrorClass } from '../../src/drivers/errors.js';
import { createDriver } from '../helpers/drivers.js';
import type { ServerTarget } from '../../src/config/target.js';
import { DBMS_UNDER_TEST, connectFresh, freshDatabase } from '../helpers/databases.js';
import { limitedUser } from '../helpers/limited-user.js';

async function expectClass(work: Promise<unknown>, errorClass: ErrorClass, what: string): Promise<DbError> {
  const error = await work.then(
    () => assert.fail(`${what}: expected a ${errorClass} error, got success`),
    (e: unknown) => e,
  );
  assert.ok(error instanceof DbError, `${what}: expected a DbError, got ${String(error)}`);
  assert.equal(error.errorClass, errorClass, `${what}: ${error.message} (code ${error.code})`);
  return error;
}

for (const dbms of DBMS_UNDER_TEST) {
  test(`${dbms}: statements, transactions and bulk loading round-trip values`, async (t) => {
    const fresh = await connectFresh(t, dbms);
    if (!fresh) return;
    const { driver, conn } = fresh;
    await conn.query('CREATE TABLE rt (id int PRIMARY KEY, name varchar(40), amount int)');
    assert.equal(await driver.tableExists(conn, 'rt'), true);
    assert.equal(await driver.tableExists(conn, 'nothing_here'), false);
    const rows = [
      [1, 'plain', 10],
      [2, 'tab\there, new\nline, back\\slash', -5],
      [3, null, null],
    ] as const;
    assert.equal(await conn.bulkInsert('rt', ['id', 'name', 'amount'], rows), 3);
    const select = await conn.prepare('SELECT id, name, amount FROM rt WHERE id = ?');
    for (const row of rows)
      assert.deepEqual(
        (await select.all([row[0]])).map((r) => r.map((v) => (typeof v === 'bigint' ? Number(v) : v))),
        [[...row]],
      );
    const update = await conn.prepare('UPDATE rt SET amount = amount + ? WHERE id <= ?');
    await conn.begin();
    assert.equal(await update.run([1, 2]), 2);
    await conn.rollback();
    assert.deepEqual(await conn.query('SELECT amount FROM rt WHERE id = 1'), [[10]]);
    await conn.begin();
    await update.run([1, 1]);
    await conn.commit();
    assert.deepEqual(await conn.query('SELECT amount FROM rt WHERE id = ?', [1]), [[11]]);
    const info = await driver.serverInfo(conn);
    assert.equal(info.dbms, dbms);
    assert.match(info.version, { sqlite: /^SQLite 3\./, postgres: /PostgreSQL \d+/, mariadb: /MariaDB/, firebird: /^Firebird \d+\.\d+/ }[dbms]);
    const expected = {
      sqlite: ['journal_mode', 'synchronous'],
      postgres: ['fsync', 'synchronous_commit', 'full_page_writes', 'shared_buffers', 'max_connections'],
      mariadb: ['innodb_flush_log_at_trx_commit', 'sync_binlog', 'innodb_buffer_pool_size', 'max_connections'],
      firebird: ['page_size', 'page_buffers', 'forced_writes', 'sql_dialect', 'ods', 'server_mode'],
    }[dbms];
    for (const name of expected) assert.ok((info.settings[name] ?? '') !== '', `setting ${name} missing from ${JSON.stringify(info.settings)}`);
    if (dbms === 'sqlite') assert.equal(info.settings['journal_mode'], 'wal');
    // The server under test runs on this machine: its firebird.conf says which mode it was given.
    if (dbms === 'firebird' && existsSync(FIREBIRD_CONF)) assert.equal(info.settings['server_mode'], configuredServerMode(readFileSync(FIREBIRD_CONF, 'utf8')));
  });

  test(`${dbms}: syntax errors and missing tables are bad requests`, async (t) => {
    const fresh = await connectFresh(t, dbms);
    if (!fresh) return;
    const { conn } = fresh;
    await expectClass(conn.query('SELEKT 1'), 'bad_request', 'syntax error');
    await expectClass(conn.query('SELECT * FROM no_such_table'), 'bad_request', 'missing table');
    await expectClass(
      conn.prepare('SELECT nope FROM no_such_table').then((s) => s.all()),
      'bad_request',
      'missing table, prepared',
    );
  });

  test(`${dbms}: a lock conflict between two transactions is retryable`, async (t) => {
    const db = await freshDatabase(t, dbms);
    if (!db) return;
    const driver = createDriver(db.target);
    const a = await driver.connect();
    const b = await driver.connect();
    t.after(async () => {
      await a.close();
      await b.close();
      await db.dispose();
    });
    await a.query('CREATE TABLE locks (id int PRIMARY KEY, v int)');
    await a.bulkInsert(
      'locks',
      ['id', 'v'],
      [
        [1, 0],
        [2, 0],
      ],
    );
    if (dbms === 'sqlite') {
      // One writer at a time: the second writer gets SQLITE_BUSY at once with no busy timeout.
      await b.query('PRAGMA busy_timeout = 0');
      await a.begin();
      await a.query('UPDATE locks SET v = 1 WHERE id = 1');
      await expectClass(b.query('UPDATE locks SET v = 2 WHERE id = 2'), 'retryable', 'second writer');
      await a.rollback();
      return;
    }
    // A classic deadlock: each holds one row and asks for the other's.
    await a.begin();
    await b.begin();
    await a.query('UPDATE locks SET v = 1 WHERE id = 1');
    await b.query('UPDATE locks SET v = 2 WHERE id = 2');
    // PostgreSQL and MariaDB abort the victim's whole transaction; Firebird fails only the
    // statement, so the victim still holds its row and the other would wait for it forever:
    // the victim rolls back, as the engine does before a retry.
    const victimRollsBack = (conn: Connection) => (e: unknown) => (dbms === 'firebird' ? conn.rollback().then(() => Promise.reject(e)) : Promise.reject(e));
    const first = a.query('UPDATE locks SET v = 1 WHERE id = 2').catch(victimRollsBack(a));
    const second = b.query('UPDATE locks SET v = 2 WHERE id = 1').catch(victimRollsBack(b));
    const outcomes = await Promise.allSettled([first, second]);
    const failed = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    assert.equal(failed.length, 1, 'exactly one transaction is chosen as the deadlock victim');
    await expectClass(Promise.reject(failed[0]!.reason), 'retryable', 'deadlock victim');
    await a.rollback();
    await b.rollback();
  });

  if (dbms === 'sqlite') continue;

  test(`${dbms}: a connection killed by the server is classified connection_lost`, async (t) => {
    const db = await freshDatabase(t, dbms);
    if (!db) return;
    const driver = createDriver(db.target);
    const admin = await driver.connect();
    const victim = await driver.connect();
    t.after(async () => {
      await admin.close();
      await victim.close();
      await db.dispose();
    });
    const whoAmI = { postgres: 'SELECT pg_backend_pid()', mariadb: 'SELECT CONNECTION_ID()', firebird: 'SELECT CURRENT_CONNECTION FROM rdb$database' }[dbms];
    const [[id]] = (await victim.query(whoAmI)) as [[number]];
    const kill = {
      postgres: `SELECT pg_terminate_backend(${Number(id)})`,
      mariadb: `KILL ${Number(id)}`,
      // Deleting an attachment's row from the monitoring table ends it (Firebird 2.5 and later).
      firebird: `DELETE FROM mon$attachments WHERE mon$attachment_id = ${Number(id)}`,
    }[dbms];
    await admin.query(kill);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await expectClass(victim.query('SELECT 1'), 'connection_lost', 'killed connection');
  });

  test(`${dbms}: a user over its connection limit gets a capacity error`, async (t) => {
    // Firebird has no per-user or server-wide attachment limit to provoke.
    if (dbms === 'firebird') return t.skip('Firebird has no connection limit');
    const db = await freshDatabase(t, dbms);
    if (!db) return;
    const driver = createDriver(db.target);
    const admin = await driver.connect();
    const { role, driver: limited, drop } = await limitedUser(admin, dbms, db.target as ServerTarget, 1);
    const held: Connection[] = [];
    t.after(async () => {
      for (const c of held) await c.close();
      await drop();
      await admin.close();
      await db.dispose();
    });
    held.push(await limited.connect());
    const error = await expectClass(limited.connect(), 'capacity', 'second connection of a one-connection user');
    // The user's own limit, not max_connections: the hint names the statement that raises it.
    assert.match(
      error.hint ?? '',
      dbms === 'postgres'
        ? new RegExp(`^the role "${role}" may hold no more connections: use fewer clients \\(-c\\), or raise its limit: ALTER ROLE ${role} CONNECTION LIMIT N`)
        : new RegExp(
            `^the user "${role}" has reached its max_user_connections: use fewer clients \\(-c\\), or raise it: ALTER USER '${role}'@'HOST' WITH MAX_USER_CONNECTIONS N`,
          ),
    );
    assert.doesNotMatch(error.hint ?? '', /max_connections/);
    // The connection budget, asked before a run, is the user's limit too (so a run is refused before it loads).
    const budget = await limited.connectionBudget(held[0]!);
    assert.deepEqual([budget?.max, budget?.inUse], [1, 1]);
    assert.match(budget?.raise ?? '', dbms === 'postgres' ? /^ALTER ROLE .* CONNECTION LIMIT N$/ : /^ALTER USER .* WITH MAX_USER_CONNECTIONS N$/);
    if (dbms !== 'postgres') return;
    // A database's own CONNECTION LIMIT (the database is dropped after the test): its hint and budget name it.
    const database = (db.target as ServerTarget).database;
    await admin.query(`ALTER ROLE ${role} CONNECTION LIMIT -1`);
    await admin.query(`ALTER DATABASE ${database} CONNECTION LIMIT 1`);
    const byDatabase = await expectClass(limited.connect(), 'capacity', 'second connection to a one-connection database');
    assert.match(byDatabase.hint ?? '', new RegExp(`^the database "${database}" takes no more connections: .*ALTER DATABASE ${database} CONNECTION LIMIT N`));
    assert.match((await limited.connectionBudget(held[0]!))?.limit ?? '', new RegExp(`^CONNECTION LIMIT of database ${database}$`));
  });

  test(`${dbms}: an unknown database and a closed port fail at connect with a hint`, async (t) => {
    const db = await freshDatabase(t, dbms);
    if (!db) return;
    t.after(() => db.dispose());
    const target = db.target as ServerTarget;
    const unknown = await expectClass(createDriver({ ...target, database: 'headroom_no_such_db' }).connect(), 'bad_request', 'unknown database');
    assert.match(unknown.hint ?? '', /create/i);
    const closed = await expectClass(createDriver({ ...target, port: 1 }).connect(), 'connection_lost', 'closed port');
    assert.match(closed.hint ?? '', /running/);
  });
}

const FIREBIRD_CONF = '/etc/firebird/3.0/firebird.conf';

/** ServerMode as firebird.conf sets it: the last uncommented line wins; Super when none (Firebird 3's default). */
function configuredServerMode(conf: string): string {
  const modes = [...conf.matchAll(/^\s*ServerMode\s*=\s*(\w+)/gm)].map((m) => m[1]!);
  const mode = (modes.at(-1) ?? 'Super').toLowerCase();
  return mode === 'superserver' || mode === 'super' || mode === 'threadeddedicated'
    ? 'Super'
    : mode === 'superclassic' || mode === 'threadedshared'
      ? 'SuperClassic'
      : 'Classic';
}
