import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describeTarget, nodeTargets, resolveTarget, type ServerTarget } from '../../src/config/target.js';
import { TLS_PARAMETERS, sortParameters } from '../../src/config/parameters.js';
import { passwordFromPgpass } from '../../src/drivers/postgres/pgpass.js';
import { UserError } from '../../src/errors.js';

function folder(t: TestContext): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-target-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const server = (db: string, env: Record<string, string> = {}, warn: (m: string) => void = () => assert.fail('no warning expected')): ServerTarget =>
  resolveTarget(db, { HOME: '/nonexistent-home', ...env }, warn) as ServerTarget;

const refused = (db: string, pattern: RegExp, env: Record<string, string> = {}): void =>
  assert.throws(
    () => server(db, env),
    (e: unknown) => e instanceof UserError && pattern.test(e.message),
  );

test('an unknown URL parameter is an error naming it, for every DBMS; libpq ones headroom lacks are named as unsupported', () => {
  refused('postgres://u@h/db?sslmod=require', /unknown parameter "sslmod" in the database URL/);
  refused('mariadb://root@h/test?sockt=/x', /unknown parameter "sockt"/);
  refused('firebird://SYSDBA@h//x.fdb?role=admin', /unknown parameter "role"/);
  refused('sqlite:./bench.db?mode=ro', /unknown parameter "mode"/);
  refused('postgres://u@h/db?keepalives=1', /libpq parameter "keepalives" .* not supported by headroom yet/);
  refused('postgres://u@h/db?ssl_min_protocol_version=TLSv1.3', /libpq parameter "ssl_min_protocol_version" .* not supported by headroom yet/);
  refused('mariadb://root@h/test?ssl-capath=/etc/ssl/certs', /mariadb client parameter "ssl-capath" .* not supported by headroom yet/);
  refused('mariadb://root@h/test?tls-version=TLSv1.3', /mariadb client parameter "tls-version" .* not supported by headroom yet/);
  refused('postgres://u@h/db?connect_timeout=soon', /connect_timeout "soon" is not a whole number/);
  refused('postgres://u@h/db?target_session_attrs=master', /target_session_attrs "master"/);
  refused('mariadb://root@h/test?socket=relative.sock', /not an absolute path/);
  refused('postgres://u@h1,h2/db?port=1,2,3', /could not match 3 port numbers to 2 hosts/);
  refused('mariadb://root@h1,h2/test', /names one host/);
  // The unknown-parameter message is one line that says what is taken.
  assert.throws(
    () => server('postgres://u@h/db?foo=1'),
    (e: unknown) => e instanceof UserError && !e.message.includes('\n') && /application_name/.test(e.hint ?? ''),
  );
});

test('TLS parameters are accepted and handed on as given, for the TLS code', () => {
  const pg = server('postgres://u@h/db?sslmode=verify-full&sslrootcert=/etc/ca.pem&channel_binding=require');
  // libpq's TLS parameters the TLS code does not read are refused, not accepted and ignored.
  refused('postgres://u@h/db?sslsni=0', /libpq parameter "sslsni" .* not supported by headroom yet/);
  assert.deepEqual(pg.tlsParameters, { sslmode: 'verify-full', sslrootcert: '/etc/ca.pem', channel_binding: 'require' });
  const my = server('mariadb://root@h/test?ssl=true&ssl-ca=/etc/ca.pem&ssl-verify-server-cert=1');
  assert.deepEqual(my.tlsParameters, { ssl: 'true', 'ssl-ca': '/etc/ca.pem', 'ssl-verify-server-cert': '1' });
  // Every name the TLS code reads passes the strict check and is handed on (the TLS code then checks the values).
  for (const dbms of ['postgres', 'mariadb'] as const) {
    for (const name of TLS_PARAMETERS[dbms]) assert.equal(sortParameters(dbms, [[name, 'x']]).tlsParameters[name], 'x');
  }
  assert.equal(server('postgres://u@h/db').tlsParameters, undefined);
});

test('postgres: libpq parameters from the URL, then PG* variables; socket folders as ?host= or %2F-encoded hosts', () => {
  const target = server('postgres://u@h/db?connect_timeout=3&application_name=bench%201&options=-c%20work_mem%3D64MB&target_session_attrs=read-write');
  assert.equal(target.connectTimeoutMs, 3000);
  assert.equal(target.applicationName, 'bench 1');
  assert.equal(target.options, '-c work_mem=64MB');
  assert.equal(target.targetSessionAttrs, 'read-write');
  // + is a plus in libpq's URLs, not a space.
  assert.equal(server('postgres://u@h/db?options=-c+x').options, '-c+x');
  const env = { PGCONNECT_TIMEOUT: '7', PGAPPNAME: 'from-env', PGOPTIONS: '-c geqo=off', PGTARGETSESSIONATTRS: 'primary' };
  const fromEnv = server('postgres://u@h/db', env);
  assert.deepEqual(
    [fromEnv.connectTimeoutMs, fromEnv.applicationName, fromEnv.options, fromEnv.targetSessionAttrs],
    [7000, 'from-env', '-c geqo=off', 'primary'],
  );
  assert.equal(server('postgres://u@h/db?application_name=url', env).applicationName, 'url');
  assert.equal(server('postgres://u@h/db?fallback_application_name=fb').applicationName, 'fb');
  assert.equal(server('postgres://u@h/db?connect_timeout=0').connectTimeoutMs, 2 ** 31 - 1);
  const socket = server('postgres://u@h/db?host=/var/run/postgresql');
  assert.deepEqual([socket.host, socket.port], ['/var/run/postgresql', 5432]);
  const encoded = server('postgresql://u@%2Fvar%2Frun%2Fpostgresql:5433/db');
  assert.deepEqual([encoded.host, encoded.port], ['/var/run/postgresql', 5433]);
  assert.equal(describeTarget(encoded), 'postgres://u@%2Fvar%2Frun%2Fpostgresql:5433/db');
  assert.deepEqual(server(describeTarget(encoded)), encoded);
  assert.equal(server('postgres://u@h/db?host=other&port=6000&dbname=x&user=v').host, 'other');
});

test('postgres: several hosts as libpq takes them; replicas drop them and target_session_attrs', () => {
  const target = server('postgres://u:pw@a:5433,b,[::1]:5435/db?target_session_attrs=read-write&replicas=r:5440');
  assert.deepEqual([target.host, target.port], ['a', 5433]);
  assert.deepEqual(target.fallbacks, [
    { host: 'b', port: 5432 },
    { host: '::1', port: 5435 },
  ]);
  assert.equal(describeTarget(target), 'postgres://u@a:5433,b:5432,[::1]:5435/db?target_session_attrs=read-write&replicas=r:5440');
  const [, replica] = nodeTargets(target);
  assert.deepEqual(replica, { dbms: 'postgres', host: 'r', port: 5440, user: 'u', password: 'pw', database: 'db' });
  const listed = server('postgres://u@/db?host=a,b&port=6000,6001');
  assert.deepEqual([listed.host, listed.port, listed.fallbacks], ['a', 6000, [{ host: 'b', port: 6001 }]]);
  const fromEnv = server('postgres:', { PGHOST: 'a,b', PGPORT: '7000' });
  assert.deepEqual([fromEnv.host, fromEnv.port, fromEnv.fallbacks], ['a', 7000, [{ host: 'b', port: 7000 }]]);
});

test('postgres: a service from ?service= or PGSERVICE fills what the URL leaves out, before PG* variables', (t) => {
  const dir = folder(t);
  const file = path.join(dir, 'services.conf');
  writeFileSync(
    file,
    [
      '# services',
      '[other]',
      'host=wrong',
      '',
      '[bench]',
      '  host=db.example  ',
      'port=6543',
      'dbname=ledger',
      'user=svc',
      'application_name=from service',
      'sslmode=require',
      '[after]',
      'host=wrong2',
    ].join('\n'),
  );
  const env = { PGSERVICEFILE: file, PGUSER: 'env-user', PGHOST: 'env-host' };
  const target = server('postgres://url-user@/?service=bench', env);
  assert.deepEqual(
    [target.host, target.port, target.user, target.database, target.applicationName],
    ['db.example', 6543, 'url-user', 'ledger', 'from service'],
  );
  assert.deepEqual(target.tlsParameters, { sslmode: 'require' });
  assert.equal(server('postgres:', { ...env, PGSERVICE: 'bench' }).user, 'svc');
  // The system-wide file when the user's has no such service.
  const sys = path.join(dir, 'sys');
  mkdirSync(sys);
  writeFileSync(path.join(sys, 'pg_service.conf'), '[sysonly]\nhost=sys.example\n');
  assert.equal(server('postgres://u@/db?service=sysonly', { ...env, PGSYSCONFDIR: sys }).host, 'sys.example');
  refused('postgres://u@/db?service=missing', /definition of service "missing" not found/, { ...env, PGSYSCONFDIR: sys });
  writeFileSync(file, '[bad]\nkeepalives=1\n[typo]\nhots=x\n[nested]\nservice=other\n');
  refused('postgres://u@/db?service=bad', /libpq parameter "keepalives" in service "bad"/, env);
  refused('postgres://u@/db?service=typo', /unknown parameter "hots" in service "typo" \(.*line 4\)/, env);
  refused('postgres://u@/db?service=nested', /nested service/, env);
});

test('postgres: the password file by libpq rules: wildcards, escapes, first match, localhost for the default socket', (t) => {
  const dir = folder(t);
  const file = path.join(dir, 'pgpass');
  writeFileSync(
    file,
    [
      '# comment line',
      'db.example:5432:bank:alice:first',
      'db.example:5432:bank:alice:second (never: the first match wins)',
      'db\\:colon:*:*:alice:with\\:colon\\\\and-backslash',
      '*:6000:*:*:any-host-port-6000',
      'localhost:5432:*:bob:for-localhost\r',
      '/tmp/sock:5432:*:carol:for-socket',
    ].join('\n'),
    { mode: 0o600 },
  );
  chmodSync(file, 0o600);
  const key = (host: string, port: number, database: string, user: string) => ({ host, port, database, user });
  const warnings: string[] = [];
  const warn = (m: string): number => warnings.push(m);
  assert.equal(passwordFromPgpass(file, key('db.example', 5432, 'bank', 'alice'), warn), 'first');
  assert.equal(passwordFromPgpass(file, key('db:colon', 1, 'x', 'alice'), warn), 'with:colon\\and-backslash');
  assert.equal(passwordFromPgpass(file, key('anything', 6000, 'x', 'y'), warn), 'any-host-port-6000');
  assert.equal(passwordFromPgpass(file, key('/var/run/postgresql', 5432, 'x', 'bob'), warn), 'for-localhost');
  assert.equal(passwordFromPgpass(file, key('/tmp/sock', 5432, 'x', 'carol'), warn), 'for-socket');
  assert.equal(passwordFromPgpass(file, key('db.example', 5432, 'bank', 'mallory'), warn), undefined);
  assert.equal(passwordFromPgpass(path.join(dir, 'missing'), key('h', 1, 'd', 'u'), warn), undefined);
  assert.deepEqual(warnings, []);

  // Resolution: PGPASSFILE, used only when the URL and PGPASSWORD give no password, per host; a
  // default host matches localhost as libpq's default socket would.
  const env = { PGPASSFILE: file };
  const target = server('postgres://alice@db.example/bank', env);
  assert.equal(target.password, 'first');
  assert.equal(target.passwordFile, file);
  assert.equal(server('postgres://alice:given@db.example/bank', env).password, 'given');
  assert.equal(server('postgres://alice@db.example/bank', { ...env, PGPASSWORD: 'env' }).password, 'env');
  assert.equal(server('postgres://bob@/db', env).password, 'for-localhost');
  assert.deepEqual(server('postgres://alice@db.example,other:6000/bank', env).fallbacks, [{ host: 'other', port: 6000, password: 'any-host-port-6000' }]);
  assert.equal(server('postgres://alice@db.example/bank?passfile=/nonexistent', env).password, undefined);
  assert.equal(server('postgres://alice@db.example/bank', { HOME: dir }).password, undefined);
  writeFileSync(path.join(dir, '.pgpass'), '*:*:*:*:from-home\n', { mode: 0o600 });
  assert.equal(
    resolveTarget('postgres://alice@h/bank', { HOME: dir }).dbms === 'postgres' &&
      (resolveTarget('postgres://alice@h/bank', { HOME: dir }) as ServerTarget).password,
    'from-home',
  );

  // Group- or world-readable: ignored with a warning, as libpq does.
  chmodSync(file, 0o640);
  const seen: string[] = [];
  assert.equal(server('postgres://alice@db.example/bank', env, (m) => seen.push(m)).password, undefined);
  assert.equal(seen.length, 1);
  assert.match(seen[0]!, /has group or world access and is ignored; permissions should be u=rw \(0600\) or less/);
});

test('mariadb: ?socket= or MYSQL_UNIX_PORT for a Unix socket, connect_timeout in seconds; firebird takes connect_timeout', () => {
  const target = server('mariadb://root@localhost/test?socket=/run/mysqld/mysqld.sock&connect_timeout=4');
  assert.deepEqual([target.host, target.connectTimeoutMs], ['/run/mysqld/mysqld.sock', 4000]);
  assert.equal(describeTarget(target), 'mariadb://root@localhost/test?socket=/run/mysqld/mysqld.sock');
  assert.equal(server(describeTarget(target)).host, '/run/mysqld/mysqld.sock');
  assert.equal(server('mysql:', { MYSQL_UNIX_PORT: '/tmp/my.sock', MYSQL_DATABASE: 'shop' }).host, '/tmp/my.sock');
  // A host in the URL wins over the variable, as with the mysql client's -h.
  assert.equal(server('mysql://root@10.0.0.1/test', { MYSQL_UNIX_PORT: '/tmp/my.sock' }).host, '10.0.0.1');
  assert.equal(server('firebird://SYSDBA@h//x.fdb?connect_timeout=2').connectTimeoutMs, 2000);
});
