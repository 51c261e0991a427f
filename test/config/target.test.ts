import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_DB, describeTarget, nodeTargets, resolveTarget, runsOnThisMachine } from '../../src/config/target.js';
import { UserError } from '../../src/errors.js';

test('no --db and no DATABASE_URL means the embedded SQLite default', () => {
  assert.deepEqual(resolveTarget(undefined, {}), resolveTarget(DEFAULT_DB, {}));
  assert.equal(resolveTarget(undefined, {}).dbms, 'sqlite');
});

test('DATABASE_URL is used when --db is absent, and --db wins over it', () => {
  const env = { DATABASE_URL: 'mariadb://bob@db.example:3307/shop' };
  assert.deepEqual(resolveTarget(undefined, env), { dbms: 'mariadb', host: 'db.example', port: 3307, user: 'bob', password: undefined, database: 'shop' });
  assert.equal(resolveTarget('sqlite:./x.db', env).dbms, 'sqlite');
});

test('a full PostgreSQL URL is parsed, with a percent-encoded password', () => {
  const target = resolveTarget('postgresql://alice:p%40ss@10.1.2.3:6432/bank', {});
  assert.deepEqual(target, { dbms: 'postgres', host: '10.1.2.3', port: 6432, user: 'alice', password: 'p@ss', database: 'bank' });
  assert.equal(describeTarget(target), 'postgres://alice@10.1.2.3:6432/bank');
});

test('what the URL leaves out comes from PG* or MYSQL_* variables, then defaults', () => {
  const pgEnv = { PGHOST: 'pg.local', PGPORT: '5433', PGUSER: 'carol', PGPASSWORD: 'secret', PGDATABASE: 'ledger' };
  assert.deepEqual(resolveTarget('postgres', pgEnv), { dbms: 'postgres', host: 'pg.local', port: 5433, user: 'carol', password: 'secret', database: 'ledger' });
  const myEnv = { MYSQL_HOST: 'my.local', MYSQL_TCP_PORT: '3310', MYSQL_PWD: 'pw', MYSQL_DATABASE: 'shop' };
  assert.deepEqual(resolveTarget('mysql:', myEnv), { dbms: 'mariadb', host: 'my.local', port: 3310, user: 'root', password: 'pw', database: 'shop' });
  assert.deepEqual(resolveTarget('postgres:', {}), {
    dbms: 'postgres',
    host: '127.0.0.1',
    port: 5432,
    user: 'postgres',
    password: undefined,
    database: 'postgres',
  });
});

test('a MariaDB URL without a database, and no MYSQL_DATABASE, is refused: the mariadb client, too, would use none', () => {
  for (const url of [
    'mariadb://root@127.0.0.1:5630/',
    'mariadb://root:secret@127.0.0.1:5630',
    'mysql:',
    'mariadb://root@localhost/?socket=/run/mysqld/mysqld.sock',
  ]) {
    assert.throws(
      () => resolveTarget(url, { MYSQL_PWD: 'pw' }),
      (e: unknown) => e instanceof UserError && /names no database, and MYSQL_DATABASE is not set/.test(e.message) && !e.message.includes('secret'),
      url,
    );
  }
  assert.equal((resolveTarget('mariadb://root@127.0.0.1:5630/', { MYSQL_DATABASE: 'shop' }) as { database: string }).database, 'shop');
  assert.equal((resolveTarget('mariadb://root@127.0.0.1:5630/bank', { MYSQL_DATABASE: 'shop' }) as { database: string }).database, 'bank');
});

test('sqlite: takes relative and absolute file names', () => {
  assert.deepEqual(resolveTarget('sqlite:./bench.db', {}), { dbms: 'sqlite', file: './bench.db' });
  assert.deepEqual(resolveTarget('sqlite:///tmp/a.db', {}), { dbms: 'sqlite', file: '/tmp/a.db' });
});

test('malformed and unknown URLs are user errors that say how to write one, never echoing a password', () => {
  assert.throws(
    () => resolveTarget('oracle://x', {}),
    (e: unknown) => e instanceof UserError && /cannot tell which DBMS/.test(e.message) && /postgres:\/\//.test(e.hint ?? ''),
  );
  assert.throws(() => resolveTarget('localhost:5432', {}), UserError);
  assert.throws(
    () => resolveTarget('postgres://u:pw@host:99999/db', {}),
    (e: unknown) => e instanceof UserError && /malformed database URL/.test(e.message),
  );
  assert.throws(
    () => resolveTarget('postgres://u:topsecret@ho st/db', {}),
    (e: unknown) => e instanceof UserError && !e.message.includes('topsecret'),
  );
  assert.throws(() => resolveTarget('sqlite:', {}), UserError);
});

test('firebird: URLs name a server-side file (absolute with folders) or an alias; ISC_USER / ISC_PASSWORD fill in', () => {
  const full = resolveTarget('firebird://SYSDBA:master%3Akey@10.0.0.5:3051//var/lib/firebird/bench.fdb', {});
  assert.deepEqual(full, { dbms: 'firebird', host: '10.0.0.5', port: 3051, user: 'SYSDBA', password: 'master:key', database: '/var/lib/firebird/bench.fdb' });
  assert.equal(describeTarget(full), 'firebird://SYSDBA@10.0.0.5:3051//var/lib/firebird/bench.fdb');
  assert.deepEqual(resolveTarget(describeTarget(full), {}), { ...full, password: undefined });
  assert.equal((resolveTarget('firebird://db.local/var/lib/x.fdb', {}) as { database: string }).database, '/var/lib/x.fdb');
  const alias = resolveTarget('firebird://db.local/employee', { ISC_USER: 'alice', ISC_PASSWORD: 'pw' });
  assert.deepEqual(alias, { dbms: 'firebird', host: 'db.local', port: 3050, user: 'alice', password: 'pw', database: 'employee' });
  assert.equal((resolveTarget('firebird://h/x.fdb', {}) as { user: string }).user, 'SYSDBA');
  assert.throws(
    () => resolveTarget('firebird://SYSDBA:secret@db.local', {}),
    (e: unknown) => e instanceof UserError && /names no database/.test(e.message) && !e.message.includes('secret'),
  );
});

test('?replicas= lists the replicas; they share user, password and database; the port defaults', () => {
  const target = resolveTarget('postgres://u:pw@10.0.0.1:5433/bank?replicas=10.0.0.2:5434,10.0.0.3', {});
  assert.deepEqual(target.dbms !== 'sqlite' && target.replicas, [
    { host: '10.0.0.2', port: 5434 },
    { host: '10.0.0.3', port: 5432 },
  ]);
  assert.equal(describeTarget(target), 'postgres://u@10.0.0.1:5433/bank?replicas=10.0.0.2:5434,10.0.0.3:5432');
  assert.deepEqual(target.dbms !== 'sqlite' && nodeTargets(target).map((t) => `${t.user}:${t.password}@${t.host}:${t.port}/${t.database}`), [
    'u:pw@10.0.0.1:5433/bank',
    'u:pw@10.0.0.2:5434/bank',
    'u:pw@10.0.0.3:5432/bank',
  ]);
  assert.throws(() => resolveTarget('mariadb://root@h/db?replicas=a:x', {}), UserError);
  assert.throws(() => resolveTarget('firebird://SYSDBA@h//x.fdb?replicas=a:1', {}), UserError);
});

test('a server on the loopback range or a Unix socket runs on this machine; another address does not', () => {
  const on = (db: string): boolean => runsOnThisMachine(resolveTarget(db, {}));
  assert.equal(on('postgres://u@127.0.0.1/db'), true);
  assert.equal(on('postgres://u@127.0.0.2:5433/db'), true);
  assert.equal(on('mariadb://root@localhost/test'), true);
  assert.equal(on('postgres://u@%2Fvar%2Frun%2Fpostgresql/db'), true);
  assert.equal(on('postgres://u@192.0.2.2/db'), false);
  assert.equal(on('postgres://u@db.example/db'), false);
});
