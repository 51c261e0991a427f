import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { resolveTarget, describeTarget, type ServerTarget, type Target } from '../../src/config/target.js';
import type { Connection, DbmsName, Driver } from '../../src/drivers/driver.js';
import { createDriver } from './drivers.js';
import { createFirebirdDatabase, dropFirebirdDatabase } from '../../src/drivers/firebird/database.js';
import { skipOrFail } from './skip-or-fail.js';

/** The servers the tests use; override with HEADROOM_TEST_POSTGRES / _MARIADB / _FIREBIRD. */
const ADMIN_URLS: Record<Exclude<DbmsName, 'sqlite' | 'firebird'>, string> = {
  postgres: process.env['HEADROOM_TEST_POSTGRES'] ?? 'postgres://postgres@127.0.0.1:5432/test',
  mariadb: process.env['HEADROOM_TEST_MARIADB'] ?? 'mariadb://root@127.0.0.1:3306/test',
};

/**
 * Firebird has no CREATE DATABASE over an existing attachment: each test database is a new file
 * in this server-side folder (scripts/firebird.sh makes it writable by the server).
 */
const FIREBIRD_URL = process.env['HEADROOM_TEST_FIREBIRD'] ?? 'firebird://SYSDBA:masterkey@127.0.0.1:3050//var/lib/firebird/3.0/data/headroom_test.fdb';

const START_HINTS: Record<Exclude<DbmsName, 'sqlite'>, string> = {
  postgres: 'start it with: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start (or set HEADROOM_TEST_POSTGRES)',
  mariadb: 'start it with: start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd (or set HEADROOM_TEST_MARIADB)',
  firebird: 'install and start it with: bash scripts/firebird.sh (or set HEADROOM_TEST_FIREBIRD)',
};

export const DBMS_UNDER_TEST: readonly DbmsName[] = ['sqlite', 'postgres', 'mariadb', 'firebird'];

export interface TestDatabase {
  target: Target;
  /** Where the database was created from: for cleanups that outlive it (roles, users). */
  admin: Target;
  url: string;
  /** Drops the database (servers) or deletes the file (SQLite). */
  dispose(): Promise<void>;
}

/**
 * A fresh database of its own for one test file: a new database on the server, or a new SQLite
 * file in a temporary folder. When the server cannot be reached the test fails under CI=true
 * and is skipped elsewhere, both with the command that starts the server.
 */
export async function freshDatabase(t: TestContext, dbms: DbmsName): Promise<TestDatabase | undefined> {
  if (dbms === 'sqlite') {
    const folder = mkdtempSync(path.join(tmpdir(), 'headroom-test-'));
    const target = resolveTarget(`sqlite:${path.join(folder, 'test.db')}`);
    return { target, admin: target, url: describeTarget(target), dispose: async () => rmSync(folder, { recursive: true, force: true }) };
  }
  if (dbms === 'firebird') return freshFirebird(t);
  const admin = resolveTarget(ADMIN_URLS[dbms as Exclude<DbmsName, 'sqlite' | 'firebird'>]);
  const driver = createDriver(admin);
  let conn;
  try {
    conn = await driver.connect();
  } catch (error) {
    skipOrFail(t, `${dbms} is not reachable at ${describeTarget(admin)} (${(error as Error).message}); ${START_HINTS[dbms]}`);
    return undefined;
  }
  const name = `headroom_test_${randomBytes(4).toString('hex')}`;
  await conn.query(`CREATE DATABASE ${name}`);
  await conn.close();
  const target = { ...admin, database: name } as Target;
  return {
    target,
    admin,
    url: describeTarget(target),
    async dispose() {
      const cleanup = await driver.connect();
      try {
        await cleanup.query(dbms === 'postgres' ? `DROP DATABASE IF EXISTS ${name} WITH (FORCE)` : `DROP DATABASE IF EXISTS ${name}`);
      } finally {
        await cleanup.close();
      }
    },
  };
}

async function freshFirebird(t: TestContext): Promise<TestDatabase | undefined> {
  const template = resolveTarget(FIREBIRD_URL) as ServerTarget;
  const file = template.database.replace(/[^/]*$/, `headroom_test_${randomBytes(4).toString('hex')}.fdb`);
  const target: ServerTarget = { ...template, database: file };
  try {
    await createFirebirdDatabase(target);
  } catch (error) {
    skipOrFail(t, `firebird is not reachable at ${describeTarget(target)} (${(error as Error).message}); ${START_HINTS.firebird}`);
    return undefined;
  }
  // A Firebird database is a file: the same login that created it drops it.
  return { target, admin: target, url: describeTarget(target), dispose: () => dropFirebirdDatabase(target) };
}

/** A fresh database and one open connection to it, both closed and removed after the test. */
export async function connectFresh(t: TestContext, dbms: DbmsName): Promise<{ db: TestDatabase; driver: Driver; conn: Connection } | undefined> {
  const db = await freshDatabase(t, dbms);
  if (!db) return undefined;
  const driver = createDriver(db.target);
  const conn = await driver.connect();
  t.after(async () => {
    await conn.close();
    await db.dispose();
  });
  return { db, driver, conn };
}
