import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { headroom } from '../../src/cli/main.js';
import { resolveTarget, type ServerTarget } from '../../src/config/target.js';
import { DbError } from '../../src/drivers/errors.js';
import { createDriver } from '../helpers/drivers.js';
import { startThrowawayPostgres, throwawayPostgresUnavailable, type ThrowawayPostgres } from '../helpers/throwaway-postgres.js';
import { makeCertificates, opensslUnavailable, type TestCertificates } from '../helpers/tls-certificates.js';
import { skipOrFail } from '../helpers/skip-or-fail.js';

/** The CLI's answer to a command: exit code and what it printed on stderr. */
async function cli(url: string): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const code = await headroom(['check', 'tpcb', '--db', url], (text) => void (stderr += text));
  return { code, stderr };
}

async function refusal(url: string, env: NodeJS.ProcessEnv = {}): Promise<DbError> {
  const error = await createDriver(resolveTarget(url, env))
    .connect()
    .then(
      (conn) => (void conn.close(), assert.fail(`${url} connected`)),
      (e: unknown) => e,
    );
  assert.ok(error instanceof DbError, String(error));
  return error;
}

/** Points the server at another certificate and waits until new connections get it. */
function serveCertificate(cluster: ThrowawayPostgres, pair: { cert: string; key: string }): void {
  cluster.psql(`ALTER SYSTEM SET ssl_cert_file = '${pair.cert}'`);
  cluster.psql(`ALTER SYSTEM SET ssl_key_file = '${pair.key}'`);
  cluster.psql('SELECT pg_reload_conf()');
  for (let tries = 0; tries < 50; tries++) {
    const shown = execFileSync('psql', ['-h', '127.0.0.1', '-p', String(cluster.port), '-U', 'postgres', '-d', 'postgres', '-tAc', 'SHOW ssl_cert_file'], {
      encoding: 'utf8',
      env: { ...process.env, PGSSLMODE: 'require' },
    });
    if (shown.trim() === pair.cert) return;
    execFileSync('sleep', ['0.1']);
  }
  assert.fail(`the server did not take ${pair.cert}`);
}

/**
 * A cluster of the test's own with ssl = on whose pg_hba.conf refuses every connection without
 * TLS; certificates made by openssl here. One cluster serves every case (the server certificate
 * is swapped with a reload) to keep the test's cost down.
 */
test('postgres TLS: sslmodes, certificate failures told in one line, client certificates, channel binding', async (t) => {
  if (skipOrFail(t, throwawayPostgresUnavailable() ?? opensslUnavailable())) return;
  const certs: TestCertificates = makeCertificates('cert_user');
  t.after(() => certs.remove());
  const postgresUid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
  const postgresGid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
  for (const pair of [certs.server, certs.otherHost, certs.expired]) {
    chownSync(pair.key, postgresUid, postgresGid);
    chownSync(pair.cert, postgresUid, postgresGid);
  }
  const cluster = await startThrowawayPostgres(
    [
      'hostssl all nossl_user 127.0.0.1/32 reject',
      'hostnossl all nossl_user 127.0.0.1/32 trust',
      'hostnossl all all 127.0.0.1/32 reject',
      'hostssl all cert_user 127.0.0.1/32 cert',
      'hostssl all scram_user 127.0.0.1/32 scram-sha-256',
      'hostssl all all 127.0.0.1/32 trust',
    ],
    ['CREATE ROLE cert_user LOGIN', "CREATE ROLE scram_user LOGIN PASSWORD 'scram-secret'", 'CREATE ROLE nossl_user LOGIN'],
    ['ssl = on', `ssl_cert_file = '${certs.server.cert}'`, `ssl_key_file = '${certs.server.key}'`, `ssl_ca_file = '${certs.ca}'`],
  );
  t.after(() => cluster.stop());
  const base = `postgres://postgres@127.0.0.1:${cluster.port}/postgres`;

  await t.test('verify-full with the right CA connects, and the server reports the session encrypted', async () => {
    for (const url of [
      `${base}?sslmode=verify-full&sslrootcert=${certs.ca}`,
      `postgres://postgres@localhost:${cluster.port}/postgres?sslmode=verify-full&sslrootcert=${certs.ca}`,
    ]) {
      const driver = createDriver(resolveTarget(url, {}));
      const conn = await driver.connect();
      const [[ssl, version]] = (await conn.query('SELECT ssl, version FROM pg_stat_ssl WHERE pid = pg_backend_pid()')) as [[boolean, string]];
      assert.equal(ssl, true, url);
      assert.match(version, /^TLSv1\.[23]$/);
      const info = await driver.serverInfo(conn);
      assert.equal(info.tls?.protocol, version);
      assert.ok(info.tls?.cipher);
      assert.equal(info.transport, 'tls');
      await conn.close();
    }
  });

  await t.test('the same settings from PGSSLMODE and PGSSLROOTCERT', async () => {
    const conn = await createDriver(resolveTarget(base, { PGSSLMODE: 'verify-full', PGSSLROOTCERT: certs.ca })).connect();
    assert.deepEqual(await conn.query('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()'), [[true]]);
    await conn.close();
    const wrong = await refusal(base, { PGSSLMODE: 'verify-full', PGSSLROOTCERT: certs.otherCa });
    assert.match(wrong.message, /unknown CA/);
  });

  await t.test('prefer (the default), require and allow all end up encrypted; disable is refused by pg_hba.conf', async () => {
    for (const url of [base, `${base}?sslmode=require`, `${base}?sslmode=allow`, `${base}?sslmode=prefer`]) {
      for (const transport of ['native', 'node']) {
        process.env['HEADROOM_TRANSPORT'] = transport;
        try {
          const conn = await createDriver(resolveTarget(url, {})).connect();
          assert.deepEqual(await conn.query('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()'), [[true]], `${url} over ${transport}`);
          await conn.close();
        } finally {
          delete process.env['HEADROOM_TRANSPORT'];
        }
      }
    }
    const plaintext = await refusal(`${base}?sslmode=disable`);
    assert.equal(plaintext.code, '28000');
    assert.match(plaintext.message, /no encryption/);
  });

  await t.test('prefer falls back to plaintext as libpq does: after a failed handshake, and after a refused encrypted login', async () => {
    // The wrong CA fails the handshake; the plaintext retry meets hostnossl ... reject.
    const afterHandshake = await refusal(`${base}?sslmode=prefer&sslrootcert=${certs.otherCa}`);
    assert.equal(afterHandshake.code, '28000');
    assert.match(afterHandshake.message, /no encryption/);
    // nossl_user may log in only without TLS (hostssl ... reject): prefer gets there on its second try.
    const conn = await createDriver(resolveTarget(`postgres://nossl_user@127.0.0.1:${cluster.port}/postgres`, {})).connect();
    assert.deepEqual(await conn.query('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()'), [[false]]);
    await conn.close();
    const required = await refusal(`postgres://nossl_user@127.0.0.1:${cluster.port}/postgres?sslmode=require`);
    assert.equal(required.code, '28000');
  });

  await t.test('a wrong CA, another host name and an expired certificate: exit 2, one line saying which', async () => {
    const wrongCa = await cli(`${base}?sslmode=verify-ca&sslrootcert=${certs.otherCa}`);
    assert.equal(wrongCa.code, 2);
    assert.match(wrongCa.stderr, /^headroom: TLS: the certificate of 127\.0\.0\.1:\d+ is signed by an unknown CA/);
    assert.equal(wrongCa.stderr.trim().split('\n').length, 1, wrongCa.stderr);
    // require checks nothing: the wrong CA does not matter without a root certificate.
    const unchecked = await createDriver(resolveTarget(`${base}?sslmode=require`, {})).connect();
    await unchecked.close();

    serveCertificate(cluster, certs.otherHost);
    const mismatch = await cli(`${base}?sslmode=verify-full&sslrootcert=${certs.ca}`);
    assert.equal(mismatch.code, 2);
    assert.match(mismatch.stderr, /^headroom: TLS: host name mismatch: IP: 127\.0\.0\.1 is not in the cert's list/);
    assert.equal(mismatch.stderr.trim().split('\n').length, 1, mismatch.stderr);
    // verify-ca checks the CA and not the name: the same certificate passes.
    const caOnly = await createDriver(resolveTarget(`${base}?sslmode=verify-ca&sslrootcert=${certs.ca}`, {})).connect();
    await caOnly.close();

    serveCertificate(cluster, certs.expired);
    const expired = await cli(`${base}?sslmode=verify-full&sslrootcert=${certs.ca}`);
    assert.equal(expired.code, 2);
    assert.match(expired.stderr, /^headroom: TLS: the certificate of 127\.0\.0\.1:\d+ has expired/);
    assert.equal(expired.stderr.trim().split('\n').length, 1, expired.stderr);
    serveCertificate(cluster, certs.server);
  });

  await t.test('sslcrl: a revocation list that lists the server certificate refuses it, exit 2, one line; an empty one from the same CA does not', async () => {
    const verifyCa = `${base}?sslmode=verify-ca&sslrootcert=${certs.ca}`;
    for (const transport of ['native', 'node']) {
      process.env['HEADROOM_TRANSPORT'] = transport;
      try {
        const revoked = await cli(`${verifyCa}&sslcrl=${certs.crl.revokingServer}`);
        assert.equal(revoked.code, 2, `${transport}: ${revoked.stderr}`);
        assert.match(revoked.stderr, /^headroom: TLS: the certificate of 127\.0\.0\.1:\d+ is revoked: sslcrl /, transport);
        assert.equal(revoked.stderr.trim().split('\n').length, 1, revoked.stderr);
        const fromEnv = await refusal(verifyCa, { PGSSLCRL: certs.crl.revokingServer });
        assert.equal(fromEnv.code, 'CERT_REVOKED', transport);
        assert.match(fromEnv.message, /is revoked: PGSSLCRL /, transport);

        const driver = createDriver(resolveTarget(`${verifyCa}&sslcrl=${certs.crl.empty}`, {}));
        const conn = await driver.connect();
        assert.deepEqual(await conn.query('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()'), [[true]]);
        assert.equal((await driver.serverInfo(conn)).transport, transport === 'node' ? 'node-tls' : 'tls', 'the transport asked for carried the session');
        await conn.close();
      } finally {
        delete process.env['HEADROOM_TRANSPORT'];
      }
    }
  });

  await t.test('sslcrl naming a missing file or a file that is no revocation list: exit 2, one line naming sslcrl and the file', async () => {
    const verifyCa = `${base}?sslmode=verify-ca&sslrootcert=${certs.ca}`;
    const missing = `${certs.folder}/no-such.crl`;
    const damagedCrl = path.join(certs.folder, 'damaged.crl');
    writeFileSync(damagedCrl, `${readFileSync(certs.crl.empty, 'utf8')}-----BEGIN X509 CRL-----\nbm90IGEgcmV2b2NhdGlvbiBsaXN0\n-----END X509 CRL-----\n`);
    for (const transport of ['native', 'node']) {
      process.env['HEADROOM_TRANSPORT'] = transport;
      try {
        const absent = await cli(`${verifyCa}&sslcrl=${missing}`);
        assert.equal(absent.code, 2, `${transport}: ${absent.stderr}`);
        assert.match(absent.stderr, new RegExp(`^headroom: cannot read the certificate revocation list file \\(sslcrl\\) "${missing}": ENOENT`), transport);
        assert.equal(absent.stderr.trim().split('\n').length, 1, absent.stderr);
        const notCrl = await cli(`${verifyCa}&sslcrl=${certs.ca}`);
        assert.equal(notCrl.code, 2, `${transport}: ${notCrl.stderr}`);
        assert.match(
          notCrl.stderr,
          new RegExp(`^headroom: the certificate revocation list file \\(sslcrl\\) "${certs.ca}" holds no PEM revocation list`),
          transport,
        );
        assert.equal(notCrl.stderr.trim().split('\n').length, 1, notCrl.stderr);
        // A good list, then one that cannot be parsed: the second must not be dropped silently.
        const damaged = await cli(`${verifyCa}&sslcrl=${damagedCrl}`);
        assert.equal(damaged.code, 2, `${transport}: ${damaged.stderr}`);
        assert.match(damaged.stderr, /^headroom: a certificate revocation list in sslcrl ".*damaged\.crl" cannot be parsed/, transport);
        assert.equal(damaged.stderr.trim().split('\n').length, 1, damaged.stderr);
      } finally {
        delete process.env['HEADROOM_TRANSPORT'];
      }
    }
  });

  await t.test(
    'sslcrl with several lists in one file uses them all; a list from another CA only is refused in one line; sslcrldir as libpq reads it',
    async () => {
      const verifyCa = `${base}?sslmode=verify-ca&sslrootcert=${certs.ca}`;
      // The other CA's list first: a reader that takes only the first list would let the server in.
      const both = path.join(certs.folder, 'other-then-revoking.crl');
      writeFileSync(both, readFileSync(certs.crl.otherCa, 'utf8') + readFileSync(certs.crl.revokingServer, 'utf8'));
      const hashedFolder = (name: string, lists: string[]): string => {
        const folder = path.join(certs.folder, name);
        mkdirSync(folder);
        for (const list of lists) copyFileSync(list, path.join(folder, path.basename(list)));
        execFileSync('openssl', ['rehash', folder], { stdio: 'pipe' });
        return folder;
      };
      const revokingDir = hashedFolder('crl-revoking', [certs.crl.revokingServer]);
      const emptyDir = hashedFolder('crl-empty', [certs.crl.empty]);
      const unhashed = path.join(certs.folder, 'crl-unhashed');
      mkdirSync(unhashed);
      copyFileSync(certs.crl.revokingServer, path.join(unhashed, 'revoking.crl'));
      for (const transport of ['native', 'node']) {
        process.env['HEADROOM_TRANSPORT'] = transport;
        try {
          for (const query of [`sslcrl=${both}`, `sslcrldir=${revokingDir}`, `sslcrl=${certs.crl.otherCa}&sslcrldir=${revokingDir}`]) {
            const revoked = await cli(`${verifyCa}&${query}`);
            assert.equal(revoked.code, 2, `${transport} ${query}: ${revoked.stderr}`);
            assert.match(revoked.stderr, /^headroom: TLS: the certificate of 127\.0\.0\.1:\d+ is revoked: sslcr/, `${transport} ${query}`);
            assert.equal(revoked.stderr.trim().split('\n').length, 1, revoked.stderr);
          }
          const fromEnv = await refusal(verifyCa, { PGSSLCRLDIR: revokingDir });
          assert.equal(fromEnv.code, 'CERT_REVOKED', transport);
          assert.match(fromEnv.message, /is revoked: PGSSLCRLDIR /, transport);

          const otherCaOnly = await cli(`${verifyCa}&sslcrl=${certs.crl.otherCa}`);
          assert.equal(otherCaOnly.code, 2, `${transport}: ${otherCaOnly.stderr}`);
          assert.match(otherCaOnly.stderr, /^headroom: TLS: no certificate revocation list from the CA of 127\.0\.0\.1:\d+ in sslcrl /, transport);
          assert.equal(otherCaOnly.stderr.trim().split('\n').length, 1, otherCaOnly.stderr);

          const conn = await createDriver(resolveTarget(`${verifyCa}&sslcrldir=${emptyDir}`, {})).connect();
          assert.deepEqual(await conn.query('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()'), [[true]]);
          await conn.close();

          // libpq's lookup reads only files named by hash: a folder without them would check nothing.
          const noHashes = await cli(`${verifyCa}&sslcrldir=${unhashed}`);
          assert.equal(noHashes.code, 2, `${transport}: ${noHashes.stderr}`);
          assert.match(
            noHashes.stderr,
            /^headroom: the certificate revocation list folder \(sslcrldir\) ".*crl-unhashed" has no lists named by hash \(HASH\.r0\) \(run openssl rehash /,
          );
          const absent = await cli(`${verifyCa}&sslcrldir=${certs.folder}/no-such-folder`);
          assert.equal(absent.code, 2, `${transport}: ${absent.stderr}`);
          assert.match(absent.stderr, /^headroom: cannot read the certificate revocation list folder \(sslcrldir\) ".*no-such-folder": ENOENT/);
        } finally {
          delete process.env['HEADROOM_TRANSPORT'];
        }
      }
    },
  );

  await t.test("client certificate authentication (hostssl ... cert), with libpq's check of the key's permissions", async () => {
    const url = `postgres://cert_user@127.0.0.1:${cluster.port}/postgres?sslmode=verify-full&sslrootcert=${certs.ca}`;
    const conn = await createDriver(resolveTarget(`${url}&sslcert=${certs.client.cert}&sslkey=${certs.client.key}`, {})).connect();
    assert.deepEqual(await conn.query('SELECT current_user, client_dn FROM pg_stat_ssl JOIN pg_stat_activity USING (pid) WHERE pid = pg_backend_pid()'), [
      ['cert_user', '/CN=cert_user'],
    ]);
    await conn.close();
    const fromEnv = await createDriver(resolveTarget(url, { PGSSLCERT: certs.client.cert, PGSSLKEY: certs.client.key })).connect();
    await fromEnv.close();
    const without = await refusal(url);
    assert.equal(without.code, '28000');
    chmodSync(certs.client.key, 0o644);
    try {
      const open = await refusal(`${url}&sslcert=${certs.client.cert}&sslkey=${certs.client.key}`);
      assert.equal(open.code, 'TLS_KEY_PERMISSIONS');
      assert.match(open.hint ?? '', /chmod 0600/);
    } finally {
      chmodSync(certs.client.key, 0o600);
    }
  });

  await t.test('SCRAM-SHA-256-PLUS: channel binding over TLS', async () => {
    const url = `postgres://scram_user:scram-secret@127.0.0.1:${cluster.port}/postgres?sslmode=verify-full&sslrootcert=${certs.ca}`;
    // require fails unless the server accepted the tls-server-end-point binding.
    for (const binding of ['require', 'prefer', 'disable']) {
      const conn = await createDriver(resolveTarget(`${url}&channel_binding=${binding}`, {})).connect();
      assert.deepEqual(await conn.query('SELECT current_user'), [['scram_user']]);
      await conn.close();
    }
    // trust logs in without SCRAM: channel_binding=require refuses that, as libpq does.
    const trusted = await refusal(`${base}?sslmode=require&channel_binding=require`);
    assert.equal(trusted.code, 'TLS_CHANNEL_BINDING');
  });
});

test('postgres TLS: sslmode=require against a server without TLS is refused, one line, exit 2', async (t) => {
  const target = resolveTarget(process.env['HEADROOM_TEST_POSTGRES'] ?? 'postgres://postgres@127.0.0.1:5432/test', {}) as ServerTarget;
  const plain = await createDriver(target)
    .connect()
    .catch((e: unknown) => e);
  if (skipOrFail(t, plain instanceof Error ? `PostgreSQL at ${target.host}:${target.port} is not reachable: ${plain.message}` : undefined)) return;
  const [[ssl]] = (await (plain as Awaited<ReturnType<ReturnType<typeof createDriver>['connect']>>).query('SHOW ssl')) as [[string]];
  await (plain as { close(): Promise<void> }).close();
  if (ssl === 'on') return t.skip('the shared server has TLS on: this case needs one without');
  const { code, stderr } = await cli(`postgres://${target.user}@${target.host}:${target.port}/${target.database}?sslmode=require`);
  assert.equal(code, 2);
  assert.match(stderr, /^headroom: the server at .* does not support TLS, but sslmode=require asks for it \(turn ssl on/);
  assert.equal(stderr.trim().split('\n').length, 1, stderr);
});
