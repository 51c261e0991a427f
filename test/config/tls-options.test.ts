import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { resolveTarget, type ServerTarget } from '../../src/config/target.js';
import { mariadbTlsSettings } from '../../src/drivers/mariadb/tls-options.js';
import { postgresTlsSettings } from '../../src/drivers/postgres/tls-options.js';
import { serverEndPoint } from '../../src/drivers/postgres/wire/channel-binding.js';
import { UserError } from '../../src/errors.js';
import { opensslUnavailable } from '../helpers/tls-certificates.js';
import { skipOrFail } from '../helpers/skip-or-fail.js';

const params = (query: string): URLSearchParams => new URLSearchParams(query);
const NO_HOME = '/nonexistent-home';

test('postgres TLS settings: libpq defaults, URL before PG* variables, its refusals', () => {
  // Nothing set and no ~/.postgresql: libpq's prefer, left implicit (the target has no tls).
  assert.equal(postgresTlsSettings(undefined, {}, NO_HOME), undefined);
  assert.equal((resolveTarget('postgres://u@h/db', {}) as ServerTarget).tls, undefined);
  assert.deepEqual(postgresTlsSettings(params('sslmode=verify-full&sslrootcert=/ca.crt'), { PGSSLMODE: 'disable' }, NO_HOME), {
    mode: 'verify-full',
    modeSource: 'sslmode',
    rootCert: '/ca.crt',
  });
  assert.deepEqual(postgresTlsSettings(undefined, { PGSSLMODE: 'require', PGSSLCERT: '/c.crt', PGSSLKEY: '/c.key' }, NO_HOME), {
    mode: 'require',
    modeSource: 'PGSSLMODE',
    cert: '/c.crt',
    key: '/c.key',
  });
  assert.deepEqual(postgresTlsSettings(params('sslmode=verify-full&sslrootcert=system&channel_binding=require&sslnegotiation=direct'), {}, NO_HOME), {
    mode: 'verify-full',
    modeSource: 'sslmode',
    rootCert: 'system',
    channelBinding: 'require',
    direct: true,
  });
  const refused = (query: string, why: RegExp): void =>
    assert.throws(
      () => postgresTlsSettings(params(query), {}, NO_HOME),
      (e: unknown) => e instanceof UserError && why.test(e.message),
    );
  refused('sslmode=required', /not an sslmode/);
  refused('sslmode=verify-ca', /needs a root certificate, and .*root\.crt does not exist/);
  refused('sslmode=require&sslrootcert=system', /sslrootcert=system needs sslmode=verify-full/);
  refused('sslmode=prefer&sslnegotiation=direct', /sslnegotiation=direct needs sslmode=require/);
  refused('sslcert=/c.crt', /has no key/);
  refused('channel_binding=always', /not a channel_binding/);
  // Revocation lists: each with the parameter it came from, for messages.
  assert.deepEqual(postgresTlsSettings(params('sslmode=verify-ca&sslrootcert=/ca.crt&sslcrl=/r.crl'), { PGSSLCRLDIR: '/crls' }, NO_HOME), {
    mode: 'verify-ca',
    modeSource: 'sslmode',
    rootCert: '/ca.crt',
    crl: '/r.crl',
    crlSource: 'sslcrl',
    crlDir: '/crls',
    crlDirSource: 'PGSSLCRLDIR',
  });
  // libpq variables of settings headroom does not honour: refused, as their URL parameters are.
  for (const variable of ['PGSSLSNI', 'PGSSLCOMPRESSION', 'PGSSLCERTMODE', 'PGSSLMINPROTOCOLVERSION', 'PGSSLMAXPROTOCOLVERSION', 'PGREQUIRESSL']) {
    assert.throws(
      () => postgresTlsSettings(undefined, { [variable]: '1' }, NO_HOME),
      (e: unknown) =>
        e instanceof UserError && e.message.startsWith(`${variable} is set, but the libpq setting `) && e.message.endsWith('is not supported by headroom yet'),
    );
  }
});

test('postgres TLS settings: the files in ~/.postgresql are used when they exist, as libpq does', (t) => {
  const home = mkdtempSync(path.join(tmpdir(), 'headroom-home-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  mkdirSync(path.join(home, '.postgresql'));
  for (const file of ['root.crt', 'postgresql.crt', 'postgresql.key', 'root.crl']) writeFileSync(path.join(home, '.postgresql', file), '');
  const folder = path.join(home, '.postgresql');
  assert.deepEqual(postgresTlsSettings(params('sslmode=verify-ca'), {}, home), {
    mode: 'verify-ca',
    modeSource: 'sslmode',
    rootCert: path.join(folder, 'root.crt'),
    cert: path.join(folder, 'postgresql.crt'),
    key: path.join(folder, 'postgresql.key'),
    crl: path.join(folder, 'root.crl'),
    crlSource: 'the default sslcrl',
  });
});

test("mariadb TLS settings: the mariadb and mysql clients' option names", () => {
  assert.equal(mariadbTlsSettings(undefined), undefined);
  assert.equal(mariadbTlsSettings(params('')), undefined);
  assert.deepEqual(mariadbTlsSettings(params('ssl=true')), { mode: 'require', modeSource: 'ssl' });
  assert.deepEqual(mariadbTlsSettings(params('ssl=0')), { mode: 'disable', modeSource: 'ssl' });
  assert.deepEqual(mariadbTlsSettings(params('ssl-ca=/ca.crt')), { mode: 'require', modeSource: 'ssl-ca/ssl-cert/ssl-key', rootCert: '/ca.crt' });
  assert.deepEqual(mariadbTlsSettings(params('ssl-verify-server-cert=1&ssl-ca=/ca.crt')), {
    mode: 'verify-full',
    modeSource: 'ssl-verify-server-cert',
    rootCert: '/ca.crt',
  });
  // Verifying without ssl-ca: the machine's CAs.
  assert.deepEqual(mariadbTlsSettings(params('ssl-mode=verify_identity')), { mode: 'verify-full', modeSource: 'ssl-mode', rootCert: 'system' });
  assert.deepEqual(mariadbTlsSettings(params('ssl-mode=VERIFY_CA&ssl-cert=/c.crt&ssl-key=/c.key&ssl-ca=/ca.crt')), {
    mode: 'verify-ca',
    modeSource: 'ssl-mode',
    rootCert: '/ca.crt',
    cert: '/c.crt',
    key: '/c.key',
  });
  assert.deepEqual(mariadbTlsSettings(params('ssl-mode=VERIFY_CA&ssl-ca=/ca.crt&ssl-crl=/r.crl&ssl-crlpath=/crls')), {
    mode: 'verify-ca',
    modeSource: 'ssl-mode',
    rootCert: '/ca.crt',
    crl: '/r.crl',
    crlSource: 'ssl-crl',
    crlDir: '/crls',
    crlDirSource: 'ssl-crlpath',
  });
  assert.deepEqual(mariadbTlsSettings(params('get-server-public-key=true')), { mode: 'disable', modeSource: 'ssl (default off)', getServerPublicKey: true });
  const refused = (query: string, why: RegExp): void =>
    assert.throws(
      () => mariadbTlsSettings(params(query)),
      (e: unknown) => e instanceof UserError && why.test(e.message),
    );
  refused('ssl=maybe', /not true or false/);
  refused('ssl-mode=STRICT', /not an SSL mode/);
  refused('ssl=false&ssl-mode=REQUIRED', /contradicts \?ssl=false/);
  refused('ssl-verify-server-cert=false&ssl-mode=VERIFY_CA', /contradicts \?ssl-verify-server-cert=false/);
  refused('ssl-cert=/c.crt', /has no key/);
});

test('channel binding: tls-server-end-point hashes the certificate with its signature hash (SHA-256 for SHA-1)', (t) => {
  if (skipOrFail(t, opensslUnavailable())) return;
  const folder = mkdtempSync(path.join(tmpdir(), 'headroom-cb-'));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  // One key of each kind, made once and signed with every digest (an RSA key takes seconds to make).
  const keys = { 'rsa:2048': path.join(folder, 'rsa.pem'), ec: path.join(folder, 'ec.pem') };
  execFileSync('openssl', ['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', keys['rsa:2048']], { stdio: 'pipe' });
  execFileSync('openssl', ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', keys.ec], { stdio: 'pipe' });
  for (const [digest, expected] of [
    ['sha256', 'sha256'],
    ['sha384', 'sha384'],
    ['sha512', 'sha512'],
    ['sha1', 'sha256'],
  ] as const) {
    for (const key of ['rsa:2048', 'ec'] as const) {
      const file = path.join(folder, `${digest}-${key === 'ec' ? 'ec' : 'rsa'}.der`);
      execFileSync('openssl', ['req', '-x509', '-key', keys[key], '-outform', 'DER', '-out', file, '-subj', '/CN=cb', '-days', '1', `-${digest}`], {
        stdio: 'pipe',
      });
      const fingerprint = execFileSync('openssl', ['x509', '-inform', 'DER', '-in', file, '-noout', '-fingerprint', `-${expected}`], { encoding: 'utf8' });
      const hex = fingerprint.split('=')[1]!.trim().replace(/:/g, '').toLowerCase();
      const der = readFileSync(file);
      assert.equal(serverEndPoint(der).toString('hex'), hex, `${key} signed with ${digest}`);
    }
  }
});
