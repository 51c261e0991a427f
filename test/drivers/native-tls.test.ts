import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chownSync } from 'node:fs';
import net from 'node:net';
import { resolveTarget } from '../../src/config/target.js';
import type { Connection } from '../../src/drivers/driver.js';
import { DbError } from '../../src/drivers/errors.js';
import { createDriver } from '../helpers/drivers.js';
import { loadReactor, NativeSocket } from '../../src/drivers/transport/native-transport.js';
import { TlsCapableTransport } from '../../src/drivers/transport/tls-transport.js';
import type { Transport } from '../../src/drivers/transport/transport.js';
import { startThrowawayPostgres, throwawayPostgresUnavailable } from '../helpers/throwaway-postgres.js';
import { makeCertificates, opensslUnavailable } from '../helpers/tls-certificates.js';
import { skipOrFail } from '../helpers/skip-or-fail.js';

/** The byte stream under a PostgreSQL connection (the wire client keeps it private). */
function transportOf(conn: Connection): Transport {
  return (conn as unknown as { wire: { transport: Transport } }).wire.transport;
}

function reactorTlsUnavailable(): string | undefined {
  const addon = loadReactor();
  if (!addon) return 'the native reactor is not built (npm run build:native)';
  if (typeof addon.tlsAvailable !== 'function' || !addon.tlsAvailable()) {
    return 'the native reactor finds no OpenSSL 3 in this Node (it uses the copy Node exports); rebuild it: npm run build:native';
  }
  return undefined;
}

/**
 * TLS inside the native reactor (native/reactor.c): a throwaway PostgreSQL with ssl = on that
 * refuses plaintext; the connection must ride the reactor, carry results and statements larger
 * than a TLS record and than the reactor's read slice, serve many connections at once, and end
 * cleanly when the server ends the session. HEADROOM_TRANSPORT=node keeps Node's tls path.
 */
test('postgres over TLS in the native reactor: verify-full, large reads and writes, many connections, a killed session', async (t) => {
  if (skipOrFail(t, throwawayPostgresUnavailable() ?? opensslUnavailable() ?? reactorTlsUnavailable())) return;
  const certs = makeCertificates('unused');
  t.after(() => certs.remove());
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
  chownSync(certs.server.key, uid, gid);
  const cluster = await startThrowawayPostgres(
    ['hostnossl all all 127.0.0.1/32 reject', 'hostssl all all 127.0.0.1/32 trust'],
    [],
    ['ssl = on', `ssl_cert_file = '${certs.server.cert}'`, `ssl_key_file = '${certs.server.key}'`],
  );
  t.after(() => cluster.stop());
  const url = `postgres://postgres@127.0.0.1:${cluster.port}/postgres?sslmode=verify-full&sslrootcert=${certs.ca}`;
  const saved = process.env['HEADROOM_TRANSPORT'];
  t.after(() => (saved === undefined ? delete process.env['HEADROOM_TRANSPORT'] : (process.env['HEADROOM_TRANSPORT'] = saved)));
  delete process.env['HEADROOM_TRANSPORT'];

  await t.test('the session is encrypted and runs on the reactor', async () => {
    const conn = await createDriver(resolveTarget(url, {})).connect();
    const transport = transportOf(conn);
    assert.ok(transport instanceof NativeSocket, `transport is ${transport.constructor.name}`);
    assert.equal(transport.kind, 'tls');
    assert.match(transport.session?.protocol ?? '', /^TLSv1\.[23]$/);
    assert.ok(transport.session?.peerCertificate && transport.session.peerCertificate.length > 100);
    assert.deepEqual(await conn.query('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()'), [[true]]);
    await conn.close();
  });

  await t.test('results and statements of megabytes cross intact (many records, more than one read slice, writes that wait)', async () => {
    const conn = await createDriver(resolveTarget(url, {})).connect();
    const [[text]] = (await conn.query("SELECT repeat('0123456789', 300000)")) as [[string]];
    assert.equal(text.length, 3_000_000);
    assert.equal(text.slice(-20), '01234567890123456789');
    const rows = await conn.query('SELECT g, md5(g::text) FROM generate_series(1, 50000) g');
    assert.equal(rows.length, 50000);
    assert.deepEqual(rows[49999], [50000, execFileSync('sh', ['-c', 'printf 50000 | md5sum'], { encoding: 'utf8' }).split(' ')[0]]);
    const literal = 'x'.repeat(4_000_000);
    assert.deepEqual(await conn.query(`SELECT length('${literal}')`), [[4_000_000]]);
    await conn.close();
  });

  await t.test('twelve connections at once, each with its own answers', async () => {
    const driver = createDriver(resolveTarget(url, {}));
    const conns = await Promise.all(Array.from({ length: 12 }, () => driver.connect()));
    const answers = await Promise.all(
      conns.map(async (conn, i) => {
        let sum = 0;
        for (let round = 0; round < 50; round++) sum += Number(((await conn.query(`SELECT ${i} + ${round}`)) as [[number]])[0][0]);
        return sum;
      }),
    );
    assert.deepEqual(
      answers,
      conns.map((_, i) => 50 * i + (49 * 50) / 2),
    );
    await Promise.all(conns.map((conn) => conn.close()));
  });

  await t.test('a session the server ends is a clean error, then the next connection works', async () => {
    const driver = createDriver(resolveTarget(url, {}));
    const victim = await driver.connect();
    const killer = await driver.connect();
    const [[pid]] = (await victim.query('SELECT pg_backend_pid()')) as [[number]];
    await killer.query(`SELECT pg_terminate_backend(${pid})`);
    const error = await victim.query('SELECT 1').then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(error instanceof DbError, String(error));
    await victim.close().catch(() => undefined);
    assert.deepEqual(await killer.query('SELECT 2'), [[2]]);
    await killer.close();
  });

  await t.test("HEADROOM_TRANSPORT=node keeps Node's tls path", async () => {
    process.env['HEADROOM_TRANSPORT'] = 'node';
    const conn = await createDriver(resolveTarget(url, {})).connect();
    delete process.env['HEADROOM_TRANSPORT'];
    assert.ok(transportOf(conn) instanceof TlsCapableTransport);
    assert.equal(transportOf(conn).kind, 'node-tls');
    assert.deepEqual(await conn.query('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()'), [[true]]);
    await conn.close();
  });
});

/** A fake server on a loopback port: answers SSLRequest with 'S', then does `after` with the socket. */
async function fakeTlsServer(t: { after(fn: () => void): void }, after: (socket: net.Socket) => void): Promise<number> {
  const server = net.createServer((socket) => {
    socket.once('data', () => {
      socket.write('S');
      after(socket);
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  return (server.address() as net.AddressInfo).port;
}

test("the reactor's TLS against a server that says yes to TLS and then sends garbage, or closes: a clean one-line error", async (t) => {
  if (skipOrFail(t, reactorTlsUnavailable())) return;
  delete process.env['HEADROOM_TRANSPORT'];
  // After the client's ClientHello, so that the bytes are not taken for more than the one-byte answer.
  const notTls = 'HTTP/1.1 400 Bad Request\r\n\r\nthis is not a TLS record at all';
  const garbage = await fakeTlsServer(t, (socket) => socket.once('data', () => socket.write(notTls)));
  const closing = await fakeTlsServer(t, (socket) => socket.once('data', () => socket.end()));
  const stalling = await fakeTlsServer(t, () => undefined);
  for (const [port, expected] of [
    [garbage, /TLS handshake with 127\.0\.0\.1:\d+ failed: .*(wrong version number|record|packet)/],
    [closing, /TLS handshake with 127\.0\.0\.1:\d+ failed: the server closed the connection during the TLS handshake/],
    [stalling, /timeout/],
  ] as const) {
    const started = Date.now();
    const error = await createDriver(resolveTarget(`postgres://postgres@127.0.0.1:${port}/postgres?sslmode=require&connect_timeout=2`, {}))
      .connect()
      .then(
        (conn) => (void conn.close(), assert.fail('connected')),
        (e: unknown) => e as Error,
      );
    t.diagnostic(error.message);
    assert.match(error.message, expected);
    assert.ok(!error.message.includes('\n'), error.message);
    assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
  }
});
