import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DbError } from '../../src/drivers/errors.js';
import { createDriver } from '../helpers/drivers.js';
import type { ServerTarget } from '../../src/config/target.js';
import { startThrowawayPostgres, throwawayPostgresUnavailable } from '../helpers/throwaway-postgres.js';
import { skipOrFail } from '../helpers/skip-or-fail.js';

/**
 * Logins that the machine's shared server (trust for local TCP) never asks for: a cluster of the
 * test's own demands SCRAM-SHA-256, MD5 and cleartext passwords from three roles.
 */
test('postgres: SCRAM-SHA-256, MD5 and cleartext logins succeed with the right password and fail with a hint otherwise', async (t) => {
  if (skipOrFail(t, throwawayPostgresUnavailable())) return;
  const cluster = await startThrowawayPostgres(
    ['host all md5_user 127.0.0.1/32 md5', 'host all plain_user 127.0.0.1/32 password', 'host all all 127.0.0.1/32 scram-sha-256'],
    [
      "CREATE ROLE scram_user LOGIN PASSWORD 'scr@m pässword'",
      "SET password_encryption = 'md5'; CREATE ROLE md5_user LOGIN PASSWORD 'md5-secret'",
      "CREATE ROLE plain_user LOGIN PASSWORD 'plain-secret'",
    ],
  );
  t.after(() => cluster.stop());
  const target = (user: string, password: string | undefined): ServerTarget => ({
    dbms: 'postgres',
    host: '127.0.0.1',
    port: cluster.port,
    user,
    password,
    database: 'postgres',
  });
  for (const [user, password] of [
    ['scram_user', 'scr@m pässword'],
    ['md5_user', 'md5-secret'],
    ['plain_user', 'plain-secret'],
  ] as const) {
    const conn = await createDriver(target(user, password)).connect();
    assert.deepEqual(await conn.query('SELECT current_user'), [[user]]);
    await conn.close();
    const refused = await createDriver(target(user, 'wrong'))
      .connect()
      .then(
        () => assert.fail(`${user} logged in with a wrong password`),
        (e: unknown) => e,
      );
    assert.ok(refused instanceof DbError);
    assert.equal(refused.errorClass, 'bad_request', refused.message);
    assert.equal(refused.code, '28P01');
    assert.match(refused.hint ?? '', /check the user/);
  }
  const missing = await createDriver(target('scram_user', undefined))
    .connect()
    .then(
      () => assert.fail('logged in without a password'),
      (e: unknown) => e,
    );
  assert.ok(missing instanceof DbError && /password/.test(missing.message));
});
