import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { headroom } from '../../src/cli/main.js';
import { resolveTarget, type ServerTarget } from '../../src/config/target.js';
import { DbError } from '../../src/drivers/errors.js';
import { createDriver } from '../helpers/drivers.js';
import { transportKind } from '../../src/drivers/transport/connect.js';
import { startThrowawayMariadb, throwawayMariadbUnavailable } from '../helpers/throwaway-mariadb.js';
import { makeCertificates, opensslUnavailable, type TestCertificates } from '../helpers/tls-certificates.js';
import { skipOrFail } from '../helpers/skip-or-fail.js';

async function cli(url: string): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const code = await headroom(['check', 'tpcb', '--db', url], (text) => void (stderr += text));
  return { code, stderr };
}

async function refusal(url: string): Promise<DbError> {
  const error = await createDriver(resolveTarget(url, {}))
    .connect()
    .then(
      (conn) => (void conn.close(), assert.fail(`${url} connected`)),
      (e: unknown) => e,
    );
  assert.ok(error instanceof DbError, String(error));
  return error;
}

async function cipherOf(url: string): Promise<string> {
  const conn = await createDriver(resolveTarget(url, {})).connect();
  try {
    const [[, cipher]] = (await conn.query("SHOW SESSION STATUS LIKE 'Ssl_cipher'")) as [[string, string]];
    return cipher;
  } finally {
    await conn.close();
  }
}

/**
 * A MariaDB server of the test's own with TLS and require_secure_transport=ON; certificates made
 * by openssl here. The server certificate is swapped by copying over its file and FLUSH SSL.
 */
test('mariadb TLS: ssl options, certificate failures told in one line, client certificates', async (t) => {
  if (skipOrFail(t, throwawayMariadbUnavailable() ?? opensslUnavailable())) return;
  const certs: TestCertificates = makeCertificates('cert_user');
  t.after(() => certs.remove());
  const mysqlUid = Number(execFileSync('id', ['-u', 'mysql'], { encoding: 'utf8' }));
  const served = { cert: path.join(certs.folder, 'served.crt'), key: path.join(certs.folder, 'served.key') };
  const serve = (pair: { cert: string; key: string }): void => {
    copyFileSync(pair.cert, served.cert);
    copyFileSync(pair.key, served.key);
    chownSync(served.key, mysqlUid, 0);
    chmodSync(served.key, 0o600);
  };
  serve(certs.server);
  const server = await startThrowawayMariadb(
    [`--ssl-cert=${served.cert}`, `--ssl-key=${served.key}`, `--ssl-ca=${certs.ca}`, '--require-secure-transport=ON'],
    ['--ssl'],
  );
  t.after(() => server.stop());
  server.sql(
    "CREATE USER 'app'@'%'; GRANT ALL ON *.* TO 'app'@'%'; CREATE USER 'cert_user'@'%' REQUIRE SUBJECT '/CN=cert_user'; GRANT SELECT ON mysql.* TO 'cert_user'@'%'",
  );
  const base = `mariadb://app@127.0.0.1:${server.port}/mysql`;

  await t.test('verifying modes with the right CA connect, and the server reports the session encrypted', async () => {
    for (const query of [
      `ssl-verify-server-cert=true&ssl-ca=${certs.ca}`,
      `ssl-mode=VERIFY_IDENTITY&ssl-ca=${certs.ca}`,
      `ssl-mode=VERIFY_CA&ssl-ca=${certs.ca}`,
      'ssl-mode=REQUIRED',
      'ssl=true',
      'ssl-mode=PREFERRED',
    ]) {
      assert.match(await cipherOf(`${base}?${query}`), /^TLS_|^ECDHE|^AES/, query);
    }
    const driver = createDriver(resolveTarget(`${base}?ssl-verify-server-cert=true&ssl-ca=${certs.ca}`, {}));
    const conn = await driver.connect();
    const info = await driver.serverInfo(conn);
    assert.match(info.tls?.protocol ?? '', /^TLSv1\.[23]$/);
    assert.ok(info.tls?.cipher);
    assert.equal(info.transport, 'tls');
    await conn.close();
  });

  await t.test('without TLS the server refuses (require_secure_transport), with a hint to ask for TLS', async () => {
    // MariaDB 10.11 answers a plaintext login under require_secure_transport with "Access denied".
    const plaintext = await refusal(base);
    assert.equal(plaintext.code, '1045');
    assert.match(plaintext.hint ?? '', /require_secure_transport.*\?ssl=true/);
  });

  await t.test('a wrong CA, another host name and an expired certificate: exit 2, one line saying which', async () => {
    const wrongCa = await cli(`${base}?ssl-verify-server-cert=true&ssl-ca=${certs.otherCa}`);
    assert.equal(wrongCa.code, 2);
    assert.match(wrongCa.stderr, /^headroom: TLS: the certificate of 127\.0\.0\.1:\d+ is signed by an unknown CA/);
    assert.equal(wrongCa.stderr.trim().split('\n').length, 1, wrongCa.stderr);

    serve(certs.otherHost);
    server.sql('FLUSH SSL');
    const mismatch = await cli(`${base}?ssl-mode=VERIFY_IDENTITY&ssl-ca=${certs.ca}`);
    assert.equal(mismatch.code, 2);
    assert.match(mismatch.stderr, /^headroom: TLS: host name mismatch: IP: 127\.0\.0\.1 is not in the cert's list/);
    assert.equal(mismatch.stderr.trim().split('\n').length, 1, mismatch.stderr);
    assert.ok((await cipherOf(`${base}?ssl-mode=VERIFY_CA&ssl-ca=${certs.ca}`)).length > 0, 'VERIFY_CA does not check the name');

    serve(certs.expired);
    server.sql('FLUSH SSL');
    const expired = await cli(`${base}?ssl-verify-server-cert=true&ssl-ca=${certs.ca}`);
    assert.equal(expired.code, 2);
    assert.match(expired.stderr, /^headroom: TLS: the certificate of 127\.0\.0\.1:\d+ has expired/);
    assert.equal(expired.stderr.trim().split('\n').length, 1, expired.stderr);
    // ssl=true checks nothing (the MariaDB client's default): the expired certificate is used.
    assert.ok((await cipherOf(`${base}?ssl=true`)).length > 0);
    serve(certs.server);
    server.sql('FLUSH SSL');
  });

  await t.test('ssl-crl: a list that revokes the server certificate refuses it, exit 2, one line; an empty one connects; a bad file is named', async () => {
    const verifyCa = `${base}?ssl-mode=VERIFY_CA&ssl-ca=${certs.ca}`;
    const missing = path.join(certs.folder, 'no-such.crl');
    // ssl-crlpath: a folder of lists named by hash, as `openssl rehash` leaves it.
    const hashed = path.join(certs.folder, 'crl-hashed');
    mkdirSync(hashed);
    copyFileSync(certs.crl.revokingServer, path.join(hashed, 'revoking.crl'));
    execFileSync('openssl', ['rehash', hashed], { stdio: 'pipe' });
    for (const transport of ['native', 'node']) {
      process.env['HEADROOM_TRANSPORT'] = transport;
      try {
        const revoked = await cli(`${verifyCa}&ssl-crl=${certs.crl.revokingServer}`);
        assert.equal(revoked.code, 2, `${transport}: ${revoked.stderr}`);
        assert.match(revoked.stderr, /^headroom: TLS: the certificate of 127\.0\.0\.1:\d+ is revoked: ssl-crl /, transport);
        assert.equal(revoked.stderr.trim().split('\n').length, 1, revoked.stderr);
        const fromFolder = await cli(`${verifyCa}&ssl-crlpath=${hashed}`);
        assert.equal(fromFolder.code, 2, `${transport}: ${fromFolder.stderr}`);
        assert.match(fromFolder.stderr, /^headroom: TLS: the certificate of 127\.0\.0\.1:\d+ is revoked: ssl-crlpath /, transport);

        const driver = createDriver(resolveTarget(`${verifyCa}&ssl-crl=${certs.crl.empty}`, {}));
        const conn = await driver.connect();
        assert.equal((await driver.serverInfo(conn)).transport, transport === 'node' ? 'node-tls' : 'tls', 'the transport asked for carried the session');
        await conn.close();

        const absent = await cli(`${verifyCa}&ssl-crl=${missing}`);
        assert.equal(absent.code, 2, `${transport}: ${absent.stderr}`);
        assert.match(absent.stderr, /^headroom: cannot read the certificate revocation list file \(ssl-crl\) ".*no-such\.crl": ENOENT/, transport);
        const notCrl = await cli(`${verifyCa}&ssl-crl=${certs.ca}`);
        assert.equal(notCrl.code, 2, `${transport}: ${notCrl.stderr}`);
        assert.match(notCrl.stderr, /^headroom: the certificate revocation list file \(ssl-crl\) ".*ca\.crt" holds no PEM revocation list/, transport);
        assert.equal(notCrl.stderr.trim().split('\n').length, 1, notCrl.stderr);
      } finally {
        delete process.env['HEADROOM_TRANSPORT'];
      }
    }
  });

  await t.test('client certificate authentication (REQUIRE SUBJECT)', async () => {
    const url = `mariadb://cert_user@127.0.0.1:${server.port}/mysql?ssl-verify-server-cert=true&ssl-ca=${certs.ca}`;
    const conn = await createDriver(resolveTarget(`${url}&ssl-cert=${certs.client.cert}&ssl-key=${certs.client.key}`, {})).connect();
    assert.deepEqual(await conn.query('SELECT CURRENT_USER()'), [['cert_user@%']]);
    await conn.close();
    const without = await refusal(url);
    assert.equal(without.code, '1045');
  });
});

test('mariadb TLS: ?ssl=true against a server without TLS is refused, one line, exit 2', async (t) => {
  const target = resolveTarget(process.env['HEADROOM_TEST_MARIADB'] ?? 'mariadb://root@127.0.0.1:3306/test', {}) as ServerTarget;
  const plain = await createDriver(target)
    .connect()
    .catch((e: unknown) => e);
  if (skipOrFail(t, plain instanceof Error ? `MariaDB at ${target.host}:${target.port} is not reachable: ${plain.message}` : undefined)) return;
  const conn = plain as Awaited<ReturnType<ReturnType<typeof createDriver>['connect']>>;
  const [[, haveSsl]] = (await conn.query("SHOW VARIABLES LIKE 'have_ssl'")) as [[string, string]];
  await conn.close();
  if (haveSsl === 'YES') return t.skip('the shared server has TLS on: this case needs one without');
  // PREFERRED goes on in plaintext, on the socket it opened in case of TLS: the process's own
  // transport (the native reactor, which also runs TLS) where it can, and the result says which.
  const driver = createDriver(resolveTarget(`mariadb://${target.user}@${target.host}:${target.port}/${target.database}?ssl-mode=PREFERRED`, {}));
  const preferred = await driver.connect();
  const info = await driver.serverInfo(preferred);
  await preferred.close();
  assert.equal(info.tls, undefined);
  assert.equal(info.transport, transportKind());
  const { code, stderr } = await cli(`mariadb://${target.user}@${target.host}:${target.port}/${target.database}?ssl=true`);
  assert.equal(code, 2);
  assert.match(stderr, /^headroom: the server at .* does not support TLS, but ssl asks for it \(/);
  assert.equal(stderr.trim().split('\n').length, 1, stderr);
});
