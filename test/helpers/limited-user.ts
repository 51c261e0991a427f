import type { ServerTarget } from '../../src/config/target.js';
import type { Connection, Driver } from '../../src/drivers/driver.js';
import { createDriver } from './drivers.js';

/**
 * A login of the test's own on the server of `target`, held to `limit` connections (PostgreSQL's
 * role CONNECTION LIMIT, MariaDB's MAX_USER_CONNECTIONS) and allowed into the target's database;
 * `drop` removes it (after its connections are closed).
 */
export async function limitedUser(
  admin: Connection,
  dbms: 'postgres' | 'mariadb',
  target: ServerTarget,
  limit: number,
  prefix = 'headroom_limited',
): Promise<{ role: string; driver: Driver; drop(): Promise<unknown> }> {
  const role = `${prefix}_${Math.floor(Math.random() * 1e6)}`;
  if (dbms === 'postgres') {
    await admin.query(`CREATE ROLE ${role} LOGIN CONNECTION LIMIT ${limit}`);
  } else {
    await admin.query(`CREATE USER '${role}'@'%' WITH MAX_USER_CONNECTIONS ${limit}`);
    await admin.query(`GRANT ALL ON ${target.database}.* TO '${role}'@'%'`);
  }
  return {
    role,
    driver: createDriver({ ...target, user: role }),
    drop: () => admin.query(dbms === 'postgres' ? `DROP ROLE IF EXISTS ${role}` : `DROP USER IF EXISTS '${role}'@'%'`),
  };
}
