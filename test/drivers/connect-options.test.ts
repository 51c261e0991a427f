import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { resolveTarget, type ServerTarget } from '../../src/config/target.js';
import type { Connection } from '../../src/drivers/driver.js';
import { DbError } from '../../src/drivers/errors.js';
import { createDriver } from '../helpers/drivers.js';
import { startThrowawayPostgres, throwawayPostgresUnavailable, freePort, type ThrowawayPostgres } from '../helpers/throwaway-postgres.js';
import { skipOrFail } from '../helpers/skip-or-fail.js';
import { fakeServer } from '../helpers/fake-server.js';
import { runCli } from '../helpers/cli.js';

/**
 * The connection settings a psql or mariadb user relies on, against the machine's real servers:
 * Unix sockets, application_name, startup options, target_session_attrs, the password file and
 * the service file (on a throwaway PostgreSQL that asks for passwords), and a URL pointed at
 * another DBMS's port.
 */

const PG_SOCKET_DIR = '/var/run/postgresql';
const SERVERS: Record<string, { port: number; start: string }> = {
  postgres: { port: 5432, start: 'start it with: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start' },
  mariadb: { port: 3306, start: 'start it with: start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd' },
  firebird: { port: 3050, start: 'install and start it with: bash scripts/firebird.sh' },
};

function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

async function needServers(t: TestContext, ...names: (keyof typeof SERVERS)[]): Promise<boolean> {
  for (const name of names) {
    const { port, start } = SERVERS[name]!;
    if (!(await reachable(port))) return !skipOrFail(t, `${name} is not reachable at 127.0.0.1:${port}; ${start}`);
  }
  return true;
}

/** Resolves a URL with only the given environment (no PG* or MYSQL_* of the machine). */
function target(url: string, env: Record<string, string> = {}, warn: (message: string) => void = () => {}): ServerTarget {
  return resolveTarget(url, { HOME: '/nonexistent-home', ...env }, warn) as ServerTarget;
}

async function connect(t: TestContext, server: ServerTarget): Promise<Connection> {
  const conn = await createDriver(server).connect();
  t.after(() => conn.close());
  return conn;
}

async function value(conn: Connection, sql: string): Promise<unknown> {
  const rows = await conn.query(sql);
  return rows[0]?.[0];
}

function useTransport(t: TestContext, kind: 'native' | 'node'): void {
  const before = process.env['HEADROOM_TRANSPORT'];
  process.env['HEADROOM_TRANSPORT'] = kind;
  t.after(() => (before === undefined ? delete process.env['HEADROOM_TRANSPORT'] : (process.env['HEADROOM_TRANSPORT'] = before)));
}

for (const kind of ['native', 'node'] as const) {
  test(`postgres (${kind} transport): ?host=/socket/dir and a %2F-encoded host connect over the Unix socket`, async (t) => {
    if (!(await needServers(t, 'postgres'))) return;
    useTransport(t, kind);
    for (const url of [`postgres://postgres@127.0.0.1/test?host=${PG_SOCKET_DIR}`, `postgres://postgres@${encodeURIComponent(PG_SOCKET_DIR)}:5432/test`]) {
      const conn = await connect(t, target(url));
      // inet_server_addr() is NULL over a Unix socket, 127.0.0.1 over TCP.
      assert.equal(await value(conn, 'SELECT inet_server_addr() IS NULL'), true, url);
    }
    const missing = await createDriver(target('postgres://postgres@127.0.0.1/test?host=/nonexistent'))
      .connect()
      .catch((e: unknown) => e);
    assert.ok(missing instanceof DbError && /ENOENT \/nonexistent\/\.s\.PGSQL\.5432/.test(missing.message), String(missing));
  });
}

test('postgres: application_name and options from the URL and from PGAPPNAME / PGOPTIONS reach the server', async (t) => {
  if (!(await needServers(t, 'postgres'))) return;
  const name = `headroom_test_${randomBytes(3).toString('hex')}`;
  const fromUrl = await connect(t, target(`postgres://postgres@127.0.0.1/test?application_name=${name}&options=-c%20work_mem%3D7MB%20-c%20geqo%3Doff`));
  assert.equal(await value(fromUrl, 'SELECT application_name FROM pg_stat_activity WHERE pid = pg_backend_pid()'), name);
  assert.equal(await value(fromUrl, 'SHOW work_mem'), '7MB');
  assert.equal(await value(fromUrl, 'SHOW geqo'), 'off');
  const fromEnv = await connect(t, target('postgres://postgres@127.0.0.1/test', { PGAPPNAME: `${name}_env`, PGOPTIONS: '-c work_mem=9MB' }));
  assert.equal(await value(fromEnv, 'SELECT application_name FROM pg_stat_activity WHERE pid = pg_backend_pid()'), `${name}_env`);
  assert.equal(await value(fromEnv, 'SHOW work_mem'), '9MB');
  const plain = await connect(t, target('postgres://postgres@127.0.0.1/test'));
  assert.equal(await value(plain, 'SHOW application_name'), 'headroom');
  // A bad option is the server's refusal, as with psql.
  const refused = await createDriver(target('postgres://postgres@127.0.0.1/test?options=-c%20no_such_setting%3D1'))
    .connect()
    .catch((e: unknown) => e);
  assert.ok(refused instanceof DbError && /no_such_setting/.test(refused.message), String(refused));
});

test("postgres: target_session_attrs on the machine's primary: read-write and primary connect, standby and read-only are refused by name", async (t) => {
  if (!(await needServers(t, 'postgres'))) return;
  for (const attrs of ['any', 'read-write', 'primary', 'prefer-standby']) {
    const conn = await connect(t, target(`postgres://postgres@127.0.0.1/test?target_session_attrs=${attrs}`));
    assert.equal(await value(conn, 'SELECT 1'), 1, attrs);
  }
  for (const [attrs, reason] of [
    ['standby', 'server is not in hot standby mode'],
    ['read-only', 'session is not read-only'],
  ]) {
    const refused = await createDriver(target(`postgres://postgres@127.0.0.1/test?target_session_attrs=${attrs}`))
      .connect()
      .catch((e: unknown) => e);
    assert.ok(refused instanceof DbError, String(refused));
    assert.equal(refused.errorClass, 'bad_request');
    assert.match(refused.message, new RegExp(`target_session_attrs=${attrs}: 127\\.0\\.0\\.1:5432: ${reason}`));
  }
  // Several hosts: one where nothing listens is passed over for the next.
  const nobody = await freePort();
  const conn = await connect(t, target(`postgres://postgres@127.0.0.1:${nobody},127.0.0.1:5432/test?target_session_attrs=read-write`));
  assert.equal(await value(conn, 'SELECT inet_server_port()'), 5432);
});

/**
 * A throwaway cluster that asks pgpass_user for a SCRAM password and whose database postgres is
 * read-only by default: for the password file, the service file, and target_session_attrs
 * across two servers.
 */
async function passwordCluster(t: TestContext): Promise<ThrowawayPostgres | undefined> {
  if (skipOrFail(t, throwawayPostgresUnavailable())) return undefined;
  const cluster = await startThrowawayPostgres(
    ['host all pgpass_user 127.0.0.1/32 scram-sha-256', 'host all postgres 127.0.0.1/32 trust'],
    [
      "CREATE ROLE pgpass_user LOGIN PASSWORD 'pa:ss\\word'",
      'GRANT pg_read_all_stats TO pgpass_user',
      'ALTER DATABASE postgres SET default_transaction_read_only = on',
    ],
  );
  t.after(() => cluster.stop());
  return cluster;
}

function tempFolder(t: TestContext): string {
  const folder = mkdtempSync(path.join(tmpdir(), 'headroom-connect-'));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  return folder;
}

test('postgres: the password file (PGPASSFILE, mode 0600) and a service file log in to a server that asks for a password', async (t) => {
  if (!(await needServers(t, 'postgres'))) return;
  const cluster = await passwordCluster(t);
  if (!cluster) return;
  const folder = tempFolder(t);
  const pgpass = path.join(folder, 'pgpass');
  writeFileSync(pgpass, `# escapes as libpq reads them\n127.0.0.1:${cluster.port}:*:pgpass_user:pa\\:ss\\\\word\n`, { mode: 0o600 });
  chmodSync(pgpass, 0o600);
  const url = `postgres://pgpass_user@127.0.0.1:${cluster.port}/postgres`;
  const conn = await connect(t, target(url, { PGPASSFILE: pgpass }));
  assert.equal(await value(conn, 'SELECT current_user'), 'pgpass_user');

  // The service file gives host, port, user, database and application_name; the password file the password.
  const services = path.join(folder, 'pg_service.conf');
  writeFileSync(services, `[bench]\nhost=127.0.0.1\nport=${cluster.port}\nuser=pgpass_user\ndbname=postgres\napplication_name=from_service\n`);
  const viaService = await connect(t, target('postgres://?service=bench', { PGPASSFILE: pgpass, PGSERVICEFILE: services }));
  assert.equal(await value(viaService, 'SELECT current_user'), 'pgpass_user');
  assert.equal(await value(viaService, 'SELECT application_name FROM pg_stat_activity WHERE pid = pg_backend_pid()'), 'from_service');
  const viaEnv = await connect(t, target('postgres:', { PGPASSFILE: pgpass, PGSERVICEFILE: services, PGSERVICE: 'bench' }));
  assert.equal(await value(viaEnv, 'SELECT current_user'), 'pgpass_user');

  // A wrong password from the file: the hint says where it came from.
  writeFileSync(pgpass, `*:*:*:pgpass_user:wrong\n`, { mode: 0o600 });
  const wrong = await createDriver(target(url, { PGPASSFILE: pgpass }))
    .connect()
    .catch((e: unknown) => e);
  assert.ok(wrong instanceof DbError && wrong.code === '28P01', String(wrong));
  assert.match(wrong.hint ?? '', new RegExp(`password file ${pgpass}`));

  // Readable by others: ignored with a warning, so the server's demand goes unanswered.
  chmodSync(pgpass, 0o644);
  const warnings: string[] = [];
  const open = await createDriver(target(url, { PGPASSFILE: pgpass }, (m) => warnings.push(m)))
    .connect()
    .catch((e: unknown) => e);
  assert.ok(open instanceof DbError && /password/.test(open.message), String(open));
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /group or world access/);
});

test('postgres: target_session_attrs across two servers picks the one that suits (a read-only and a read-write one)', async (t) => {
  if (!(await needServers(t, 'postgres'))) return;
  const cluster = await passwordCluster(t);
  if (!cluster) return;
  // The throwaway's database postgres is read-only by default; the machine's server is not.
  const hosts = `postgres://postgres@127.0.0.1:${cluster.port},127.0.0.1:5432/postgres`;
  const readWrite = await connect(t, target(`${hosts}?target_session_attrs=read-write`));
  assert.equal(await value(readWrite, 'SELECT inet_server_port()'), 5432);
  const readOnly = await connect(t, target(`${hosts}?target_session_attrs=read-only`));
  assert.equal(await value(readOnly, 'SELECT inet_server_port()'), cluster.port);
  const any = await connect(t, target(hosts));
  assert.equal(await value(any, 'SELECT inet_server_port()'), cluster.port);
});

for (const kind of ['native', 'node'] as const) {
  test(`mariadb (${kind} transport): ?socket= connects over the server's Unix socket`, async (t) => {
    if (!(await needServers(t, 'mariadb'))) return;
    useTransport(t, kind);
    const tcp = await connect(t, target('mariadb://root@127.0.0.1:3306/test'));
    const socket = String(await value(tcp, 'SELECT @@socket'));
    assert.match(String(await value(tcp, 'SELECT host FROM information_schema.PROCESSLIST WHERE id = CONNECTION_ID()')), /^127\.0\.0\.1:/);
    const conn = await connect(t, target(`mariadb://root@localhost/test?socket=${socket}`));
    // A socket connection's host is "localhost", a TCP one's "address:port".
    assert.equal(await value(conn, 'SELECT host FROM information_schema.PROCESSLIST WHERE id = CONNECTION_ID()'), 'localhost');
    const missing = await createDriver(target('mariadb://root@localhost/test?socket=/nonexistent.sock'))
      .connect()
      .catch((e: unknown) => e);
    assert.ok(missing instanceof DbError && /ENOENT/.test(missing.message) && /select @@socket/.test(missing.hint ?? ''), String(missing));
  });
}

test('connect_timeout bounds a connection to a server that accepts and never answers (PostgreSQL, MariaDB, Firebird)', async (t) => {
  const port = await fakeServer(t, () => {});
  for (const scheme of ['postgres', 'mariadb', 'firebird']) {
    const started = Date.now();
    const outcome = await createDriver(target(`${scheme}://u@127.0.0.1:${port}//tmp/x.fdb?connect_timeout=1`))
      .connect()
      .catch((e: unknown) => e);
    const took = Date.now() - started;
    assert.ok(outcome instanceof DbError && /timeout expired/.test(outcome.message), `${scheme}: ${String(outcome)}`);
    assert.ok(outcome.message.includes(`127.0.0.1:${port}`), outcome.message);
    // One second, plus the probe of what listens there (under 3 s); the default would be 10 s.
    assert.ok(took >= 900 && took < 6000, `${scheme}: took ${took} ms`);
  }
});

test("a URL at another DBMS's port says which DBMS answered, quickly (real servers)", async (t) => {
  if (!(await needServers(t, 'postgres', 'mariadb', 'firebird'))) return;
  for (const [url, pattern] of [
    ['postgres://postgres@127.0.0.1:3306/test', /127\.0\.0\.1:3306 is a MariaDB server \(.*\), not PostgreSQL/],
    ['postgres://postgres@127.0.0.1:3050/test', /127\.0\.0\.1:3050 is a Firebird server, not PostgreSQL/],
    ['mariadb://root@127.0.0.1:5432/test', /127\.0\.0\.1:5432 is a PostgreSQL server, not MariaDB/],
    ['mariadb://root@127.0.0.1:3050/test', /127\.0\.0\.1:3050 is a Firebird server, not MariaDB/],
    ['firebird://SYSDBA:masterkey@127.0.0.1:5432//tmp/x.fdb', /127\.0\.0\.1:5432 is a PostgreSQL server, not Firebird/],
    ['firebird://SYSDBA:masterkey@127.0.0.1:3306//tmp/x.fdb', /127\.0\.0\.1:3306 is a MariaDB server \(.*\), not Firebird/],
  ] as const) {
    const started = Date.now();
    const outcome = await createDriver(target(url))
      .connect()
      .catch((e: unknown) => e);
    assert.ok(outcome instanceof DbError, `${url}: ${String(outcome)}`);
    assert.match(outcome.message, pattern, url);
    assert.equal(outcome.errorClass, 'bad_request');
    assert.match(outcome.hint ?? '', /URL for it/);
    assert.ok(Date.now() - started < 5000, `${url}: took ${Date.now() - started} ms`);
  }
});

test('cli: an unknown URL parameter is one line and exit code 2', async () => {
  const run = await runCli(['check', 'kv', '--db', 'postgres://postgres@127.0.0.1/test?sslmod=require']);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /^headroom: unknown parameter "sslmod" in the database URL \(remove it or check its spelling; .*sslmode.*\)\n$/);
});
