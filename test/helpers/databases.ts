import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { resolveTarget, describeTarget, type Target } from '../../src/config/target.js';
import type { Connection, DbmsName, Driver } from '../../src/drivers/driver.js';
import { createDriver } from '../../src/drivers/registry.js';

/** The servers the tests use; override with HEADROOM_TEST_POSTGRES / HEADROOM_TEST_MARIADB. */
const ADMIN_URLS: Record<Exclude<DbmsName, 'sqlite'>, string> = {
  postgres: process.env['HEADROOM_TEST_POSTGRES'] ?? 'postgres://postgres@127.0.0.1:5432/test',
  mariadb: process.env['HEADROOM_TEST_MARIADB'] ?? 'mariadb://root@127.0.0.1:3306/test',
};

const START_HINTS: Record<Exclude<DbmsName, 'sqlite'>, string> = {
  postgres: "start it with: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start (or set HEADROOM_TEST_POSTGRES)",
  mariadb: 'start it with: start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd (or set HEADROOM_TEST_MARIADB)',
};

export const DBMS_UNDER_TEST: readonly DbmsName[] = ['sqlite', 'postgres', 'mariadb'];

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
  const admin = resolveTarget(ADMIN_URLS[dbms]);
  const driver = createDriver(admin);
  let conn;
  try {
    conn = await driver.connect();
  } catch (error) {
    const message = `${dbms} is not reachable at ${describeTarget(admin)} (${(error as Error).message}); ${START_HINTS[dbms]}`;
    if (process.env['CI'] === 'true') throw new Error(message);
    t.skip(message);
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
