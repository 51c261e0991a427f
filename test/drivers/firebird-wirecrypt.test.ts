import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import type { ServerTarget } from '../../src/config/target.js';
import { DbError } from '../../src/drivers/errors.js';
import { createDriver } from '../helpers/drivers.js';
import { resolveTarget } from '../../src/config/target.js';
import { startThrowawayFirebird, throwawayFirebirdUnavailable } from '../helpers/throwaway-firebird.js';
import { skipOrFail } from '../helpers/skip-or-fail.js';

const SHARED_URL = process.env['HEADROOM_TEST_FIREBIRD'] ?? 'firebird://SYSDBA:masterkey@127.0.0.1:3050//var/lib/firebird/3.0/data/headroom_test.fdb';

/**
 * A Firebird server of the test's own with WireCrypt = Required (the shared server's
 * firebird.conf is left alone). headroom's client, refused in plaintext, connects again and
 * encrypts the wire (Arc4) with the session key of an Srp login, so such a user works, encrypted; a login without Srp is refused by the server, and
 * headroom says so in one line naming WireCrypt.
 */
test('firebird: WireCrypt = Required works for an Srp login (encrypted), and a refused one names WireCrypt', { timeout: 180_000 }, async (t) => {
  if (skipOrFail(t, throwawayFirebirdUnavailable())) return;
  const sysdba = (resolveTarget(SHARED_URL, {}) as ServerTarget).password ?? 'masterkey';
  const server = await startThrowawayFirebird(['WireCrypt = Required'], sysdba);
  t.after(() => server.stop());
  const file = path.join(server.folder, 'wirecrypt.fdb');
  server.isql(
    `CREATE DATABASE '127.0.0.1/${server.port}:${file}';\n` +
      "CREATE USER tls_user PASSWORD 'tls-secret' USING PLUGIN Srp;\n" +
      "CREATE USER legacy_user PASSWORD 'legacy' USING PLUGIN Legacy_UserManager;\nCOMMIT;\n",
  );
  const target = (user: string, password: string): ServerTarget => ({ dbms: 'firebird', host: '127.0.0.1', port: server.port, user, password, database: file });

  const conn = await createDriver(target('tls_user', 'tls-secret')).connect();
  assert.deepEqual(await conn.query("SELECT RDB$GET_CONTEXT('SYSTEM', 'WIRE_ENCRYPTED') FROM RDB$DATABASE"), [['TRUE']]);
  await conn.close();

  const refused = await createDriver(target('legacy_user', 'legacy'))
    .connect()
    .then(
      () => assert.fail('a login without Srp attached under WireCrypt = Required'),
      (e: unknown) => e,
    );
  assert.ok(refused instanceof DbError, String(refused));
  assert.equal(refused.errorClass, 'bad_request');
  assert.equal(refused.code, '335545065');
  assert.match(refused.message, /wire encryption is required/);
  assert.match(refused.hint ?? '', /WireCrypt = Required/);
});
